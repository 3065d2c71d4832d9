// The card shuffles in the lanes (Plan::sorts_keys): a riffle's and a shelf
// machine's rows, each lane's cards given keys that a sorting network puts
// in the order the definition lists (contract §3). Part of kernel.hpp,
// instantiated by Kernel<Arch> as LaneCards<Kernel<Arch>>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "kernel_inline.hpp"
#include "plan.hpp"
#include "sorting_network.hpp"

namespace melange::simd::internal {

template <class K>
struct LaneCards {
  using L = typename K::L;
  using u32 = typename K::u32;
  static constexpr int kLanes = K::kLanes;

  // Sorts keys[0..kCardItems) lane by lane: a minimum and a maximum a
  // comparator for all the lanes at once, every index a constant.
  static constexpr auto kCardNetwork = sorting_network<kCardItems>();
  template <std::size_t... C>
  MELANGE_LANE_INLINE static void sort_keys(u32* keys, std::index_sequence<C...>) {
    const auto exchange = [](u32& a, u32& b) MELANGE_LANE_LAMBDA {
      const u32 low = xsimd::min(a, b);
      b = xsimd::max(a, b);
      a = low;
    };
    (exchange(keys[kCardNetwork[C].low], keys[kCardNetwork[C].high]), ...);
  }
  // Sorts a deck's n keys, the slots above them padded with keys above all.
  MELANGE_LANE_INLINE static void sort_deck(u32* keys, int n) {
    for (int i = n; i < kCardItems; ++i) keys[i] = u32(~0u);
    sort_keys(keys, std::make_index_sequence<kCardNetwork.size()>());
  }

  // A riffle's rows, rows[lane * n + position] (Plan::sorts_keys): each
  // lane's keys, digit << kCardPositionBits | position, padded to
  // kCardItems with keys above them all, are put in order by a sorting
  // network, where a lane's own counting sort would clear and sum 2^riffles
  // bins. The keys are distinct, so their order is the stable order by
  // digit that the definition lists: the j-th key's position receives item j.
  template <Method M, class Item>
  MELANGE_LANE_INLINE static void riffle_rows(const Plan& p, std::uint64_t first, u32& reject, Item* rows) {
    const int n = p.job.n;
    u32 keys[kCardItems];
    K::template for_each_draw<M>(p, first, reject, [&](const DrawPlan& d, const u32& digit) MELANGE_LANE_LAMBDA {
      keys[d.i] = (digit << kCardPositionBits) | u32(d.i);
    });
    sort_deck(keys, n);
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

  // A shelf machine's rows (Plan::sorts_keys), rows[lane * n + place]: each
  // pass, every card gets a key that sorts it into its place among the
  // stacked piles, shelf 0's on top: its shelf, then, within the pile, the
  // cards laid on top, the last dealt first, then those laid under, the
  // first dealt first. With d a card's turn in the dealing order (the card
  // at position n - 1 - d) and kCardItems = 64, its key is shelf << 7 |
  // 63 - d laid on top, shelf << 7 | 64 | d laid under (the side above the
  // place's bits): the j-th key's card goes to place j. A
  // pass's keys do not depend on the cards, so every pass's are made first;
  // each pass then moves the items of the one before, a gather a place.
  static constexpr std::uint32_t kLastPlace = kCardItems - 1;
  static constexpr int kSideShift = kCardPositionBits;
  template <Method M, class Item>
  MELANGE_LANE_INLINE static void shelf_rows(const Plan& p, std::uint64_t first, u32& reject, Item* rows) {
    const int n = p.job.n;
    u32 keys[kMaxPasses][kCardItems];
    u32 shelf(0u);
    K::template for_each_draw<M>(p, first, reject, [&](const DrawPlan& draw, const u32& j) MELANGE_LANE_LAMBDA {
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
      sort_deck(k, n);
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

  // The card shuffles' rows in the lanes (Plan::sorts_keys): cards_in_lanes
  // (plan.cpp) sends riffle and shelf here by name, and any other card
  // shuffle to the scalar path.
  template <Method M, class Item>
  MELANGE_LANE_INLINE static void card_rows(const Plan& p, std::uint64_t first, u32& reject, Item* rows) {
    if (p.job.algorithm == Algorithm::riffle)
      riffle_rows<M>(p, first, reject, rows);
    else
      shelf_rows<M>(p, first, reject, rows);
  }
};

}  // namespace melange::simd::internal
