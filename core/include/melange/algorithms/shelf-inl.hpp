// The shelf shuffler (contract §3) in lanes: one trial a lane, for decks of
// up to kCardItems cards. Beside its definition (shelf_by_draws in
// algorithms.hpp), written against any lane kernel K that gives its lanes
// (K::L with gather, K::u32, K::kLanes) and its draws in schedule order
// (K::for_each_draw); the SIMD backend instantiates it
// (simd/src/kernel_cards-inl.hpp), and owns none of it.
#pragma once

#include <cstdint>

#include "melange/algorithms/card_keys.hpp"
#include "melange/limits.hpp"

namespace melange::lanes {

template <class K>
struct ShelfLanes {
  using L = typename K::L;
  using u32 = typename K::u32;
  static constexpr int kLanes = K::kLanes;

  // A shelf machine's rows, rows[lane * n + place]: each pass, every card
  // gets a key that sorts it into its place among the stacked piles, shelf
  // 0's on top: its shelf, then, within the pile, the cards laid on top,
  // the last dealt first, then those laid under, the first dealt first.
  // With d a card's turn in the dealing order (the card at position
  // n - 1 - d) and kCardItems = 64, its key is shelf << 7 | 63 - d laid on
  // top, shelf << 7 | 64 | d laid under (the side above the place's bits):
  // the j-th key's card goes to place j. A pass's keys do not depend on the
  // cards, so every pass's are made first; each pass then moves the items
  // of the one before, a gather a place.
  static constexpr std::uint32_t kLastPlace = kCardItems - 1;
  static constexpr int kSideShift = kCardPositionBits;
  template <auto M, class Plan, class Item>
  MELANGE_LANE_INLINE static void rows(const Plan& p, std::uint64_t first, u32& reject, Item* rows) {
    const int n = p.job.n;
    u32 keys[kMaxPasses][kCardItems];
    u32 shelf(0u);
    K::template for_each_draw<M>(p, first, reject, [&](const auto& draw, const u32& j) MELANGE_LANE_LAMBDA {
      const auto k = static_cast<int>(&draw - p.draws.data());  // pass, card, then shelf or side
      if (k % 2 == 0) {
        shelf = j;
        return;
      }
      const int d = k % (2 * n) / 2;
      // 63 - d, plus 1 + 2d where the side j is 1 (under): 64 + d.
      keys[k / (2 * n)][d] = (shelf << (kSideShift + 1)) + u32(kLastPlace - d) + ((u32(0u) - j) & u32(1u + 2 * d));
    });
    alignas(64) std::uint32_t items[2][kCardItems * kLanes];  // [place * kLanes + lane], before and after a pass
    alignas(64) std::uint32_t lane_ids[kLanes];
    for (int l = 0; l < kLanes; ++l) lane_ids[l] = static_cast<std::uint32_t>(l);
    const u32 lane = u32::load_aligned(lane_ids);
    for (int pass = 0; pass < p.job.passes; ++pass) {
      u32* k = keys[pass];
      sort_deck<L>(k, n);
      const std::uint32_t* before = items[(pass + 1) % 2];
      std::uint32_t* after = items[pass % 2];
      for (int j = 0; j < n; ++j) {
        // d: the low bits, as they are laid under, flipped laid on top.
        const u32 low = k[j] & u32(kLastPlace), under = (k[j] >> kSideShift) & u32(1u);
        const u32 from = u32(static_cast<std::uint32_t>(n - 1)) - (low ^ ((under - u32(1u)) & u32(kLastPlace)));
        const u32 item = pass == 0 ? from : L::gather(before, from * u32(kLanes) + lane);
        item.store_aligned(after + j * kLanes);
      }
    }
    const std::uint32_t* last = items[(p.job.passes - 1) % 2];
    for (int l = 0; l < kLanes; ++l)
      for (int j = 0; j < n; ++j) rows[l * n + j] = static_cast<Item>(last[j * kLanes + l]);
  }
};

}  // namespace melange::lanes
