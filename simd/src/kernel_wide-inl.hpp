// The wide path of the vector kernel: larger n, deals and card shuffles,
// each lane's items in memory (items[lane * n + position]); the draws of a
// group first, then its swaps, lanes in turn, so that the lanes' chains
// overlap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kernel_cards-inl.hpp"
#include "kernel_draws-inl.hpp"

namespace melange::simd::internal {

template <class Arch>
struct WidePath {
  using D = LaneDraws<Arch>;
  using L = typename D::L;
  using u32 = typename D::u32;
  static constexpr int kLanes = D::kLanes;
  using Cards = LaneCards<D>;  // the card shuffles' rows (kernel_cards-inl.hpp)

  // Runs the draws and swaps of one batch on per-lane item arrays
  // (n > kPackedItems, and deals): items[lane * n + position]. Lanes are
  // swapped in turn within each draw, so that eight independent chains
  // overlap. The items start as `identity`, or (null) as they are: a deal's
  // arrays are put back by undo_swaps, k swaps instead of n items a lane.
  // Returns the words read beyond words_per_trial (lane_digits): a swap
  // schedule's lanes are never left rejected; a card shuffle's may be.
  template <Method M>
  MELANGE_LANE_INLINE static std::uint64_t wide_batch(const Plan& p, std::uint64_t first, u32& reject,
                                                      std::uint16_t* items, const std::uint16_t* identity,
                                                      std::uint32_t* digits) {
    if (p.sorts_keys) {
      Cards::template card_rows<M>(p, first, reject, items);
      return 0;
    }
    const std::size_t n = static_cast<std::size_t>(p.job.n);
    if (identity)
      for (int l = 0; l < kLanes; ++l) std::memcpy(items + l * n, identity, n * sizeof *items);
    // Two passes: every draw's lanes first, then the swaps, so that the
    // draws overlap instead of waiting on the swaps.
    const std::uint64_t extra_words = D::template lane_digits<M>(p, first, reject, digits);
    for (std::size_t draw = 0; draw < p.draws.size(); ++draw) {
      const std::uint32_t* jd = digits + draw * kLanes;
      const std::uint32_t i = p.draws[draw].i;
      std::uint16_t* a = items;
#pragma GCC unroll 8
      for (int l = 0; l < kLanes; ++l, a += n) std::swap(a[i], a[jd[l]]);
    }
    return extra_words;
  }

  // wide_batch for a schedule that fixes its slots (Plan::fixes_slots), its
  // permutations written to `out` as [position][lane]: a draw's item goes
  // to its slot there, and `items` keep only the slots still open, so a
  // swap makes one store at random and one beside the other lanes' (a
  // draw's sixteen share a line). Zen 5: 1.1 cycles a lane's swap, where
  // two stores at random took 2.0. Returns the words read beyond
  // words_per_trial; no lane is left rejected (lane_digits).
  template <Method M>
  MELANGE_LANE_INLINE static std::uint64_t slot_fixing_batch(const Plan& p, std::uint64_t first,
                                                             std::uint16_t* items, const std::uint16_t* identity,
                                                             std::uint32_t* digits, std::uint16_t* out) {
    const std::size_t n = static_cast<std::size_t>(p.job.n);
    for (int l = 0; l < kLanes; ++l) std::memcpy(items + l * n, identity, n * sizeof *items);
    u32 reject(0u);
    const std::uint64_t extra_words = D::template lane_digits<M>(p, first, reject, digits);
    for (std::size_t draw = 0; draw < p.draws.size(); ++draw) {
      const std::uint32_t* jd = digits + draw * kLanes;
      const std::uint32_t i = p.draws[draw].i;
      std::uint16_t* a = items;
      std::uint16_t* slot = out + static_cast<std::size_t>(i) * kLanes;
#pragma GCC unroll 8
      for (int l = 0; l < kLanes; ++l, a += n) {
        const std::uint32_t j = jd[l];
        slot[l] = a[j];
        a[j] = a[i];
      }
    }
    for (const std::uint32_t pos : p.open_slots)
      for (int l = 0; l < kLanes; ++l) out[pos * kLanes + l] = items[l * n + pos];
    return extra_words;
  }

  // Puts every lane's items back in identity order after wide_batch: its
  // swaps in reverse.
  static void undo_swaps(const Plan& p, std::uint16_t* items, const std::uint32_t* digits) {
    const std::size_t n = static_cast<std::size_t>(p.job.n);
    for (std::size_t draw = p.draws.size(); draw-- > 0;) {
      const std::uint32_t* jd = digits + draw * kLanes;
      const std::uint32_t i = p.draws[draw].i;
      std::uint16_t* a = items;
      for (int l = 0; l < kLanes; ++l, a += n) std::swap(a[i], a[jd[l]]);
    }
  }

  // Larger n, deals and card shuffles: per-lane item arrays in memory. Returns the
  // trials counted here.
  template <Method M>
  static std::uint64_t tally_wide(const Plan& p, std::uint64_t begin, std::uint64_t full,
                                  Tally& tally) {
    // A deal's outcome, and a record's statistics with it, are counted by
    // the trial body's own count (count_items); the lanes' counters take the rest.
    const bool deal = is_deal(p.job);
    const bool by_definition = deal || !lane_kinds_only(p.job.tallies);
    const TrialJob tj = trial_job(p.job);
    TallyCounter counter{tally};
    const bool want_ranks = !by_definition && !tally[TallyKind::ranks].empty();
    const bool want_positions = !by_definition && !tally[TallyKind::positions].empty();
    std::vector<std::uint16_t> items(static_cast<std::size_t>(p.job.n) * kLanes), identity(p.job.n);
    iota_items(identity.data(), p.job.n);
    if (deal)  // identity once; undo_swaps keeps it between batches
      for (int l = 0; l < kLanes; ++l) std::copy(identity.begin(), identity.end(), items.begin() + l * p.job.n);
    std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>> digits(p.draws.size() * kLanes);
    WideCounters<Arch> c(p.job.n, want_positions);
    std::uint64_t clean = 0;
    // Only a card shuffle's lanes can be left rejected (wide_batch). Such a
    // lane's whole permutation is redone into its row and counted with the
    // others (the counters here are cheaper than the tally's); where the
    // kinds are counted by definition, the reference redoes and counts it.
    const bool redo_in_rows = !deal && !by_definition;
    // Positions alone, staged, of a schedule that fixes its slots: each
    // draw's item goes straight to the group's slot.
    const bool fix_slots = want_positions && !want_ranks && c.stages() && p.fixes_slots;
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      if (fix_slots) {
        tally.words += slot_fixing_batch<M>(p, t, items.data(), identity.data(), digits.data(), c.next_slot());
        clean += kLanes;
        c.add_slot();
        if (++c.batches; c.full()) c.flush(tally);
        continue;
      }
      u32 reject(0u);
      tally.words += wide_batch<M>(p, t, reject, items.data(), deal ? nullptr : identity.data(), digits.data());
      const bool some_rejected = p.may_reject && L::any(reject);
      alignas(64) std::uint32_t kept[kLanes];
      if (some_rejected) {
        if (redo_in_rows)
          D::redo_into_rows(p, t, reject, items.data(), tally).store_aligned(kept);
        else
          D::redo_rejected(p, t, reject, tally).store_aligned(kept);
      }
      std::uint32_t counted = 0;  // the lanes whose rows are counted here
      for (int l = 0; l < kLanes; ++l) {
        const bool redone = some_rejected && !kept[l];
        if (redone && !redo_in_rows) continue;  // the reference counted it
        clean += !redone;
        counted |= 1u << l;
        const std::uint16_t* a = items.data() + l * static_cast<std::size_t>(p.job.n);
        if (by_definition) count_items(tj, a, counter);
        if (want_ranks) tally[TallyKind::ranks].add(lehmer_rank(a, p.job.n));
      }
      if (want_positions) c.add_group(items.data(), counted);
      if (deal) undo_swaps(p, items.data(), digits.data());
      ++c.batches;
      if (c.full()) c.flush(tally);
    }
    if (want_positions) c.flush(tally);
    return clean;
  }
};

}  // namespace melange::simd::internal
