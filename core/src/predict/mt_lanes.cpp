#include "mt_lanes.hpp"

#include <algorithm>

namespace melange::predict::internal {
namespace {

constexpr int kN = Mt19937::kN, kM = Mt19937::kM;

// Output m of the first generation, a lane at a time, from the seeded
// words m, m + 1 and m + kM: the twist of word m, tempered.
inline void first_generation_output(const std::uint32_t* word_m, const std::uint32_t* word_next,
                                    const std::uint32_t* word_far, std::uint32_t* out) {
  for (int lane = 0; lane < kMtLanes; ++lane) {
    const std::uint32_t y = (word_m[lane] & 0x80000000u) | (word_next[lane] & 0x7fffffffu);
    std::uint32_t v = word_far[lane] ^ (y >> 1) ^ ((0u - (y & 1u)) & 0x9908b0dfu);
    v ^= v >> 11;
    v ^= (v << 7) & 0x9d2c5680u;
    v ^= (v << 15) & 0xefc60000u;
    out[lane] = v ^ (v >> 18);
  }
}

}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default")))
void mt19937_first_outputs(const std::uint32_t (&seeds)[kMtLanes], int outputs, std::uint32_t* out) {
  alignas(64) std::uint32_t low[kMtOutputs + 1][kMtLanes];  // seeded words 0 .. kMtOutputs
  alignas(64) std::uint32_t high[kMtOutputs][kMtLanes];     // seeded words kM .. kM + kMtOutputs - 1
  alignas(64) std::uint32_t x[kMtLanes];
  for (int lane = 0; lane < kMtLanes; ++lane) x[lane] = low[0][lane] = seeds[lane];
  const auto words = static_cast<std::uint32_t>(kM + outputs);
  for (std::uint32_t i = 1; i < words; ++i) {
    for (int lane = 0; lane < kMtLanes; ++lane) x[lane] = 1812433253u * (x[lane] ^ (x[lane] >> 30)) + i;
    if (i <= static_cast<std::uint32_t>(outputs)) std::copy(x, x + kMtLanes, low[i]);
    if (i >= kM) std::copy(x, x + kMtLanes, high[i - kM]);
  }
  for (int m = 0; m < outputs; ++m) first_generation_output(low[m], low[m + 1], high[m], out + m * kMtLanes);
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void mt19937_by_array_first_outputs(const std::uint64_t (&seeds)[kMtLanes], std::size_t key_size, int outputs,
                                    std::vector<std::uint32_t>& state, std::uint32_t* out) {
  state.resize(static_cast<std::size_t>(kN) * kMtLanes);
  const auto row = [&state](int i) { return state.data() + static_cast<std::size_t>(i) * kMtLanes; };
  const std::array<std::uint32_t, kN>& base = Mt19937::by_array_base();
  for (int i = 0; i < kN; ++i) std::fill(row(i), row(i) + kMtLanes, base[static_cast<std::size_t>(i)]);
  alignas(64) std::uint32_t key[2][kMtLanes];
  for (int lane = 0; lane < kMtLanes; ++lane) {
    key[0][lane] = static_cast<std::uint32_t>(seeds[lane]);
    key[1][lane] = static_cast<std::uint32_t>(seeds[lane] >> 32);
  }
  // init_by_array's two passes, in its order, a lane at a time.
  int i = 1, j = 0;
  for (int k = kN; k > 0; --k) {
    std::uint32_t* word = row(i);
    const std::uint32_t* before = row(i - 1);
    const std::uint32_t* words = key[j];
    const auto index = static_cast<std::uint32_t>(j);
    for (int lane = 0; lane < kMtLanes; ++lane)
      word[lane] = (word[lane] ^ ((before[lane] ^ (before[lane] >> 30)) * 1664525u)) + words[lane] + index;
    if (++i >= kN) {
      std::copy(row(kN - 1), row(kN - 1) + kMtLanes, row(0));
      i = 1;
    }
    if (++j >= static_cast<int>(key_size)) j = 0;
  }
  for (int k = kN - 1; k > 0; --k) {
    std::uint32_t* word = row(i);
    const std::uint32_t* before = row(i - 1);
    const auto index = static_cast<std::uint32_t>(i);
    for (int lane = 0; lane < kMtLanes; ++lane)
      word[lane] = (word[lane] ^ ((before[lane] ^ (before[lane] >> 30)) * 1566083941u)) - index;
    if (++i >= kN) {
      std::copy(row(kN - 1), row(kN - 1) + kMtLanes, row(0));
      i = 1;
    }
  }
  std::fill(row(0), row(0) + kMtLanes, 0x80000000u);
  for (int m = 0; m < outputs; ++m) first_generation_output(row(m), row(m + 1), row(m + kM), out + m * kMtLanes);
}

}  // namespace melange::predict::internal
