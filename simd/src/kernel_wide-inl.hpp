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
#include "kernel_stepped-inl.hpp"

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

  struct SlotDraw {
    std::size_t i, row;  // the slot the draw fixes; its row's offset in the counts
    std::size_t steps;   // the next group's steps after this draw's swaps (count_slots)
  };

  // count_slots' buffers: a group's items as bytes (n < kWideStagedItems),
  // a lane's row `Stride` items from the next, and the identity to start
  // them from; two groups' digits as bytes too (the group swapped, and the
  // next) and the next group's Philox words; each draw's slot, row and
  // steps.
  template <Method M, std::size_t Stride>
  struct SlotScratch {
    using Steps = SteppedDigits<Arch, M>;
    static_assert(kWideStagedItems <= 256, "count_slots' items and digits are bytes");
    static_assert(kLanes % 8 == 0, "count_swaps reads its lanes' digits eight at a time");
    std::vector<std::uint8_t, xsimd::aligned_allocator<std::uint8_t, 64>> items, identity, digits;
    std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>> words;
    std::vector<SlotDraw> draws;
    explicit SlotScratch(const Plan& p)
        : items(Stride * kLanes), identity(Stride), digits(2 * Steps::digits_size(p)), words(Steps::words_size(p)) {
      for (int pos = 0; pos < std::min(p.job.n, static_cast<int>(Stride)); ++pos)
        identity[static_cast<std::size_t>(pos)] = static_cast<std::uint8_t>(pos);
      for (const DrawPlan& d : p.draws) draws.push_back({d.i, std::size_t{d.i} * static_cast<std::size_t>(p.job.n), 0});
    }
    // Spreads `steps` over the draws evenly.
    void spread(std::size_t steps) {
      const std::size_t count = draws.size();
      for (std::size_t k = 0; k < count; ++k) draws[k].steps = (k + 1) * steps / count - k * steps / count;
    }
    // Every lane's row back to the identity: for a short row a constant
    // size, a few vector moves rather than a call.
    MELANGE_LANE_INLINE void restart(std::size_t n) {
      const std::size_t copied = Stride <= 64 ? Stride : n;
      for (int l = 0; l < kLanes; ++l) std::memcpy(items.data() + l * Stride, identity.data(), copied);
    }
  };

  // The draws of a group whose slots each draw fixes (Plan::fixes_slots),
  // positions alone: each draw's item is counted in its slot's row as the
  // slot is fixed, ++counts[i][a[j]], and a[j] = a[i]; the rows are never
  // read back. A lane's swap is two loads (a[i], a[j]), a store and an
  // increment, and an eighth of the load of eight lanes' j (lane_swaps),
  // where the wide path's swap (two stores) and its count of the finished
  // rows (a load and an increment an item) took 870 instructions a trial
  // at n = 52 on AVX2, against 495 here with a j's load a lane
  // (callgrind). A lane's row lies at a constant offset from the first
  // (`Stride` items), so that the lanes' addresses need no register each.
  // counts:
  // [position][item], WideCounters' cells. After each draw's swaps,
  // between(steps): the next group's cipher, `steps` steps of it
  // (count_slots).
  template <std::size_t Stride, class Between>
  MELANGE_LANE_INLINE static void count_swaps(const std::vector<SlotDraw>& draws, const std::uint8_t* digits,
                                              std::uint8_t* items, std::uint16_t* counts, Between&& between) {
    const std::uint8_t* jd = digits;
    for (const SlotDraw& d : draws) {
      const std::size_t i = d.i;
      std::uint16_t* const row = counts + d.row;
      [&]<int... g>(std::integer_sequence<int, g...>) MELANGE_LANE_LAMBDA {
        (lane_swaps<g, Stride>(jd, items, i, row), ...);
      }(std::make_integer_sequence<int, kLanes / 8>{});
      jd += kLanes;
      between(d.steps);
    }
  }

  // Lanes 8g to 8g + 7's swaps of one draw, their eight j's (bytes) read
  // in one load. The swaps are bound by their loads and stores (Zen 5:
  // four a cycle, and a lane's swap is five of them: ++row[item] is a
  // load and a store), and a j's load a lane was a sixth: n = 52 on AVX2
  // took 0.91-0.94 s for 30 million trials against 1.00-1.01 s, the
  // digits' narrowing to bytes (store_digits) included.
  template <int g, std::size_t Stride>
  MELANGE_LANE_INLINE static void lane_swaps(const std::uint8_t* jd, std::uint8_t* items, std::size_t i,
                                             std::uint16_t* row) {
    std::uint64_t js;
    std::memcpy(&js, jd + 8 * g, sizeof js);
    [&]<int... l>(std::integer_sequence<int, l...>) MELANGE_LANE_LAMBDA {
      (lane_swap<8 * g + l, Stride>(js, items, i, row), ...);
    }(std::make_integer_sequence<int, 8>{});
  }

  // Lane l's swap of one draw, as count_swaps has it: j from the low byte
  // of `js` (which moves on to the next lane's), item = a[j], a[j] = a[i],
  // ++row[item], each address a register or two and a constant. Written
  // out because GCC 12 computes the address of a[j] apart (it is read and
  // written) and adds the row's offset to the item, two instructions more
  // a lane a draw: a fifth of the loop.
  template <int l, std::size_t Stride>
  MELANGE_LANE_INLINE static void lane_swap(std::uint64_t& js, std::uint8_t* items, std::size_t i,
                                            std::uint16_t* row) {
    std::uint64_t j, at_i, item;
    asm volatile(
        "movzbl %b[js], %k[j]\n\t"
        "shrq $8, %[js]\n\t"
        "movzbl %c[row_at](%[items],%[i]), %k[at_i]\n\t"
        "movzbl %c[row_at](%[items],%[j]), %k[item]\n\t"
        "movb %b[at_i], %c[row_at](%[items],%[j])\n\t"
        "addw $1, (%[row],%[item],2)"
        : [j] "=&r"(j), [at_i] "=&r"(at_i), [item] "=&r"(item), [js] "+r"(js)
        : [items] "r"(items), [i] "r"(i), [row] "r"(row), [row_at] "i"(static_cast<std::size_t>(l) * Stride)
        : "memory");
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
    WideCounters<Arch> c(p.job.n, want_positions);
    // Positions alone, not staged, of a schedule that fixes its slots: each
    // draw's item counted as it is fixed, in buffers of its own.
    if (want_positions && !want_ranks && p.fixes_slots && !p.sorts_keys && !c.stages())
      return p.job.n <= 64 ? count_slots<M, 64>(p, begin, full, c, tally)
                           : count_slots<M, kWideStagedItems>(p, begin, full, c, tally);
    std::vector<std::uint16_t> items(static_cast<std::size_t>(p.job.n) * kLanes), identity(p.job.n);
    iota_items(identity.data(), p.job.n);
    if (deal)  // identity once; undo_swaps keeps it between batches
      for (int l = 0; l < kLanes; ++l) std::copy(identity.begin(), identity.end(), items.begin() + l * p.job.n);
    std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>> digits(p.draws.size() * kLanes);
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

  // tally_wide's groups by count_swaps, the next group's cipher run a few
  // rounds at a time between this group's swaps and its digits made after
  // them (SteppedDigits in kernel_stepped-inl.hpp; the steps spread evenly
  // over the draws), the first group's drawn whole before. Drawing the next
  // group a whole block at a time between the swaps, digits and all, ran
  // slower than drawing it first.
  template <Method M, std::size_t Stride>
  static std::uint64_t count_slots(const Plan& p, std::uint64_t begin, std::uint64_t full, WideCounters<Arch>& c,
                                   Tally& tally) {
    using Steps = SteppedDigits<Arch, M>;
    SlotScratch<M, Stride> s(p);
    s.spread(Steps::steps(p));
    const std::size_t n = static_cast<std::size_t>(p.job.n);
    std::uint8_t* const items = s.items.data();
    std::uint16_t* const counts = c.counts.data();
    std::uint8_t* now = s.digits.data();
    std::uint8_t* ahead = now + Steps::digits_size(p);
    tally.words += Steps(p, begin, s.words.data(), now, begin != full).finish();
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      s.restart(n);
      Steps next(p, t + kLanes, s.words.data(), ahead, t + kLanes != full);
      count_swaps<Stride>(s.draws, now, items, counts, [&](std::size_t steps) MELANGE_LANE_LAMBDA {
        for (std::size_t k = 0; k < steps && !next.done(); ++k) next.step();
      });
      for (const std::uint32_t pos : p.open_slots)
        for (int l = 0; l < kLanes; ++l) ++counts[pos * n + items[l * Stride + pos]];
      tally.words += next.finish();
      std::swap(now, ahead);
      if (++c.batches; c.full()) c.flush(tally);
    }
    c.flush(tally);
    return full - begin;
  }
};

}  // namespace melange::simd::internal
