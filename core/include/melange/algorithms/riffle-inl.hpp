// The riffle (contract §3) in lanes: one trial a lane, for decks of up to
// kCardItems cards and up to kRiffleDigitBits riffles. Beside its
// definition (riffle_by_digits in algorithms.hpp), written against any lane
// kernel K that gives its lanes (K::L, K::u32, K::kLanes) and its draws in
// schedule order (K::for_each_draw); the SIMD backend instantiates it
// (simd/src/kernel_cards-inl.hpp), and owns none of it.
#pragma once

#include <cstdint>

#include "melange/algorithms/card_keys.hpp"

namespace melange::lanes {

template <class K>
struct RiffleLanes {
  using L = typename K::L;
  using u32 = typename K::u32;
  static constexpr int kLanes = K::kLanes;

  // A riffle's rows, rows[lane * n + position]: each lane's keys,
  // digit << kCardPositionBits | position, padded to kCardItems with keys
  // above them all, are put in order by a sorting network, where a lane's
  // own counting sort would clear and sum 2^riffles bins. The keys are
  // distinct, so their order is the stable order by digit that the
  // definition lists: the j-th key's position receives item j.
  template <auto M, class Plan, class Item>
  MELANGE_LANE_INLINE static void rows(const Plan& p, std::uint64_t first, u32& reject, Item* rows) {
    const int n = p.job.n;
    u32 keys[kCardItems];
    K::template for_each_draw<M>(p, first, reject, [&](const auto& d, const u32& digit) MELANGE_LANE_LAMBDA {
      keys[d.i] = (digit << kCardPositionBits) | u32(d.i);
    });
    sort_deck<L>(keys, n);
    // Where each lane's item j goes among the rows, stored in full before
    // any item is written: read back as words, not taken out of the
    // registers a lane at a time.
    alignas(64) std::uint32_t lane_row[kLanes];
    for (int l = 0; l < kLanes; ++l) lane_row[l] = static_cast<std::uint32_t>(l * n);
    const u32 row_starts = u32::load_aligned(lane_row);
    alignas(64) std::uint32_t to[kCardItems * kLanes];
    for (int j = 0; j < n; ++j) ((keys[j] & u32(kCardItems - 1)) + row_starts).store_aligned(to + j * kLanes);
    for (int j = 0; j < n; ++j)
#pragma GCC unroll 16
      for (int l = 0; l < kLanes; ++l) rows[to[j * kLanes + l]] = static_cast<Item>(j);
  }
};

}  // namespace melange::lanes
