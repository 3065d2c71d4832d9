#include "asf_lanes.hpp"

namespace melange::predict::internal {

__attribute__((target_clones("avx512f", "avx2", "default")))
void asf_cards_at(const std::uint32_t (&seeds)[kAsfLanes], int position, std::uint32_t (&cards)[kAsfLanes]) {
  constexpr int kCards = 52;
  // draws[ctr - 1][lane]: swap ctr's other position, Random(51) (Delphi's
  // RandSeed := RandSeed * 134775813 + 1, then RandSeed * 51 >> 32).
  alignas(64) std::uint32_t draws[kCards][kAsfLanes];
  alignas(64) std::uint32_t state[kAsfLanes];
  for (int lane = 0; lane < kAsfLanes; ++lane) state[lane] = seeds[lane];
  for (int ctr = 0; ctr < kCards; ++ctr)
    for (int lane = 0; lane < kAsfLanes; ++lane) {
      state[lane] = state[lane] * 134775813u + 1u;
      draws[ctr][lane] = static_cast<std::uint32_t>((static_cast<std::uint64_t>(state[lane]) * 51u) >> 32);
    }
  for (int lane = 0; lane < kAsfLanes; ++lane) cards[lane] = static_cast<std::uint32_t>(position);
  for (int ctr = kCards - 1; ctr >= 0; --ctr) {
    const auto here = static_cast<std::uint32_t>(ctr);
    for (int lane = 0; lane < kAsfLanes; ++lane) {
      const std::uint32_t p = cards[lane], there = draws[ctr][lane];
      cards[lane] = p == here ? there : (p == there ? here : p);
    }
  }
}

}  // namespace melange::predict::internal
