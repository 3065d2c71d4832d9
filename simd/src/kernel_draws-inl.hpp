// The vector kernel's draws, written once for any lane width: one bounded
// draw per lane (each bounded method's lane arithmetic), the batches of
// `batched`, every draw of a group stored as digits, and the scalar
// reference where a lane rejects (resume_lane resumes it from its first
// rejected word; redo_* and resample_rejected redo its whole trial), so the
// words consumed are always the contract's. Every path of the kernel
// (kernel_packed-inl.hpp, kernel_wide-inl.hpp, kernel_decks-inl.hpp,
// kernel_tables-inl.hpp, kernel_sampling-inl.hpp) draws through here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel_counters-inl.hpp"
#include "kernel_entry.hpp"
#include "kernel_inline.hpp"
#include "kernel_philox-inl.hpp"
#include "plan.hpp"
#include "tuning.hpp"
#include "melange/philox.hpp"
#include "melange/rank.hpp"
#include "melange/stream.hpp"
#include "melange/trial.hpp"

namespace melange::simd::internal {

template <class Arch>
struct LaneDraws {
  using L = Lanes<Arch>;
  using u32 = typename L::u32;
  static constexpr int kLanes = static_cast<int>(u32::size);
  using Philox = LanePhilox<Arch>;

  // One bounded draw per lane; lanes that would reject a word set `reject`.
  template <Method M>
  MELANGE_LANE_INLINE static u32 draw(const Plan& p, const DrawPlan& d, u32 x, u32& reject) {
    const int shift = 32 - p.job.spec.bits;
    if constexpr (M == Method::lemire || M == Method::multiply) {
      // With y = x >> shift: (y s) >> bits == mulhi(x & mask, s), and the low
      // half of (x & mask) s is (y s mod 2^bits) << shift.
      const u32 y = x & u32(p.high_mask), s(d.s);
      if constexpr (M == Method::lemire)
        if (d.threshold) reject = reject | L::less(L::mullo(y, s), u32(d.threshold));
      return L::mulhi(y, s);
    } else {
      static_assert(M == Method::modulo || M == Method::rejection,
                    "a bounded method with no lane arithmetic: give it its branch here");
      const u32 y = x >> shift;
      if constexpr (M == Method::rejection)
        if (d.threshold) reject = reject | L::less(y, u32(d.threshold));
      const u32 t = L::mulhi(y, u32(d.divisor.m));
      const u32 q = (t + ((y - t) >> d.divisor.sh1)) >> d.divisor.sh2;
      return y - L::mullo(q, u32(d.s));
    }
  }

  // Calls f(draw, j) for each draw of the trials of one group under
  // `batched`: a word per batch of the schedule, its digits by successive
  // multiplies (the high half is the digit, the low half carries on), and the
  // batch's rejection test on what is left.
  template <class F>
  MELANGE_LANE_INLINE static void batched_draws(const Plan& p, std::uint64_t first, u32& reject, F&& f,
                                                u32* first_rejected = nullptr) {
    Philox::for_each_word(p, first, p.words.size(), [&](std::size_t k, const u32& word) MELANGE_LANE_LAMBDA {
      const WordPlan& w = p.words[k];
      u32 x = word;
      for (std::uint32_t i = 0; i < w.count; ++i) {
        const DrawPlan& d = p.draws[w.first + i];
        u32 j, low;
        L::mul_wide(x, u32(d.s), j, low);
        x = low;
        f(d, j);
      }
      if (w.threshold) {
        reject = reject | L::less(x, u32(w.threshold));
        if (first_rejected) note_rejected(reject, k, *first_rejected);
      }
    });
  }

  // Keeps each lane's first rejected word: `reject` only gains lanes, and
  // the words come in order, so the least k at which a lane is set is its
  // first (~0 where none yet).
  MELANGE_LANE_INLINE static void note_rejected(const u32& reject, std::size_t k, u32& first_rejected) {
    first_rejected = xsimd::min(first_rejected, ~reject | u32(static_cast<std::uint32_t>(k)));
  }

  // Calls f(draw, j) for every draw of one group of trials, in schedule
  // order: Philox, and under `batched` the batches' multiply chains, which
  // are independent of each other.
  // `first_rejected`, where not null, ends as each lane's first rejected
  // word (note_rejected).
  template <Method M, class F>
  MELANGE_LANE_INLINE static void for_each_draw(const Plan& p, std::uint64_t first, u32& reject, F&& f,
                                                u32* first_rejected = nullptr) {
    if constexpr (M == Method::batched) {
      batched_draws(p, first, reject, f, first_rejected);
    } else {
      Philox::for_each_word(p, first, p.draws.size(), [&](std::size_t k, const u32& word) MELANGE_LANE_LAMBDA {
        const DrawPlan& d = p.draws[k];
        f(d, draw<M>(p, d, word, reject));
        if (first_rejected && d.threshold) note_rejected(reject, k, *first_rejected);
      });
    }
  }

  // Every draw of one group, its lanes' j stored at digits[draw * kLanes]
  // (store_digits: 32-bit digits, or bytes). A lane that rejected a word is resumed from that word on the scalar
  // path (resume_lane), which costs the draws after it, where redoing the
  // trial would cost all its draws and swaps again; so no lane is left
  // rejected. Returns the words the resumed lanes read beyond
  // words_per_trial.
  template <Method M, class Digit>
  MELANGE_LANE_INLINE static std::uint64_t lane_digits(const Plan& p, std::uint64_t first, u32& reject,
                                                       Digit* digits) {
    u32 first_rejected(~0u);
    if constexpr (M == Method::batched)
      batched_digits(p, first, reject, digits, first_rejected);
    else
      for_each_draw<M>(
          p, first, reject,
          [&](const DrawPlan& d, const u32& lanes_j) MELANGE_LANE_LAMBDA {
            store_digits(lanes_j, digits + (&d - p.draws.data()) * kLanes);
          },
          &first_rejected);
    if (!p.may_reject || !L::any(reject)) return 0;
    reject = u32(0u);
    return resume_lanes<M>(p, first, first_rejected, digits);
  }

  // Resumes each lane that rejected a word (first_rejected, ~0 where none)
  // on the scalar path (resume_lane); returns the words they read beyond
  // words_per_trial.
  template <Method M, class Digit>
  static std::uint64_t resume_lanes(const Plan& p, std::uint64_t first, const u32& first_rejected,
                                    Digit* digits) {
    alignas(64) std::uint32_t word[kLanes];
    first_rejected.store_aligned(word);
    std::uint64_t extra = 0;
    for (int l = 0; l < kLanes; ++l)
      if (word[l] != ~0u)
        extra += resume_lane<M>(p, first + static_cast<std::uint64_t>(l), word[l], l, digits) - p.words_per_trial;
    return extra;
  }

  // lane_digits' draws under `batched` in Philox's slot view
  // (for_each_word_slots): a batch's multiplies run on the even and the odd
  // lanes apart, each widening multiply leaving the digit in a slot's high
  // half and the next x in its low half, where the next multiply reads it;
  // the digits come back to lane order only to be stored. In lane order
  // (batched_draws' mul_wide) a digit took four more instructions on AVX2:
  // the word's split into even and odd lanes and the hi and lo rejoined.
  template <class Digit>
  MELANGE_LANE_INLINE static void batched_digits(const Plan& p, std::uint64_t first, u32& reject, Digit* digits,
                                                 u32& first_rejected) {
    Philox::for_each_word_slots(p, first, p.words.size(),
                                [&](std::size_t k, const u32& even, const u32& odd) MELANGE_LANE_LAMBDA {
                                  batch_digits(p, k, even, odd, digits, reject, first_rejected);
                                });
  }

  // Word k's batch: its digits stored, and its rejection test (kept_lanes;
  // a word rejects in few groups, so its lanes are noted only then).
  template <class Digit>
  MELANGE_LANE_INLINE static void batch_digits(const Plan& p, std::size_t k, u32 e, u32 o, Digit* digits,
                                               u32& reject, u32& first_rejected) {
    const WordPlan& w = p.words[k];
    const DrawPlan* d = p.draws.data() + w.first;
    Digit* out = digits + w.first * kLanes;
    const auto unrolled = [&](auto count) MELANGE_LANE_LAMBDA { slot_digits<count()>(d, e, o, out); };
    if (!with_count_in<1, kUnrolledBatch>(static_cast<int>(w.count), unrolled)) slot_digits(d, w.count, e, o, out);
    if (!w.threshold) return;
    const u32 kept = kept_lanes(e, o, w.threshold);
    if (!L::all(kept)) [[unlikely]]
      note_word_rejected(kept, k, reject, first_rejected);
  }

  // A batch's rejection test on the x its multiplies leave, in the slot
  // view (even and odd lanes): the lanes whose x is at or above the
  // threshold (every lane, for a threshold of 0).
  MELANGE_LANE_INLINE static u32 kept_lanes(const u32& e, const u32& o, std::uint32_t threshold) {
    const u32 x = L::interleave(e, o);
    return L::equal(L::max(x, u32(threshold)), x);
  }

  // The lanes word k's batch did not keep (kept_lanes) are rejected, their
  // first rejected word noted.
  MELANGE_LANE_INLINE static void note_word_rejected(const u32& kept, std::size_t k, u32& reject,
                                                     u32& first_rejected) {
    reject = reject | ~kept;
    note_rejected(reject, k, first_rejected);
  }

  // The digits of a batch of `count` draws from d on, in the slot view
  // (batched_digits), stored at out[draw * kLanes]. Batches of up to
  // kUnrolledBatch draws (bounded.hpp) are unrolled: a loop's index and
  // address arithmetic took ten instructions a digit beside the digit's
  // own six.
  template <int Count, class Digit>
  MELANGE_LANE_INLINE static void slot_digits(const DrawPlan* d, u32& e, u32& o, Digit* out) {
#pragma GCC unroll 8
    for (int i = 0; i < Count; ++i) slot_digit(d[i], e, o, out + i * kLanes);
  }
  template <class Digit>
  MELANGE_LANE_INLINE static void slot_digits(const DrawPlan* d, std::uint32_t count, u32& e, u32& o, Digit* out) {
    for (std::uint32_t i = 0; i < count; ++i) slot_digit(d[i], e, o, out + i * kLanes);
  }
  template <class Digit>
  MELANGE_LANE_INLINE static void slot_digit(const DrawPlan& d, u32& e, u32& o, Digit* out) {
    const u32 s(d.s);
    e = L::even_products(e, s);
    o = L::even_products(o, s);
    store_digits(L::products_high(e, o), out);
  }

  // A draw's lanes stored as digits: 32 bits each, or a byte each where
  // the caller's items are bytes (count_slots), so that one load gives it
  // eight lanes' j.
  MELANGE_LANE_INLINE static void store_digits(const u32& j, std::uint32_t* out) { j.store_aligned(out); }
  MELANGE_LANE_INLINE static void store_digits(const u32& j, std::uint8_t* out) { L::store_low_bytes(j, out); }

  // Lane `lane`'s trial from its first rejected word w on, by the
  // contract's own scalar draws (PhiloxStream, BatchedDraws, the one-a-word
  // methods): the draws before word w stand, as w is where the lane's
  // stream and the lanes' parted. Writes the lane's digits from there and
  // returns the words the trial read in all.
  template <Method M, class Digit>
  static std::uint64_t resume_lane(const Plan& p, std::uint64_t trial, std::uint32_t w, int lane, Digit* digits) {
    PhiloxStream words(p.job.seed, trial, w / 4);
    for (std::uint32_t k = 0; k < w % 4; ++k) words.next();
    Digit* out = digits + lane;
    if constexpr (M == Method::batched) {
      BatchedDraws batches(static_cast<int>(w));
      for (std::size_t d = p.words[w].first; d < p.draws.size(); ++d)
        out[d * kLanes] = static_cast<Digit>(batches.next_planned(words, p.draws[d].s, p.words));
    } else {
      for (std::size_t d = w; d < p.draws.size(); ++d)
        out[d * kLanes] = static_cast<Digit>(melange::internal::bounded_one_a_word(words, p.draws[d].s, p.job.spec));
    }
    return std::uint64_t{w} / 4 * 4 + words.words_consumed();
  }

  // The lanes whose trial met a rejection: the scalar reference redoes each
  // of those trials alone, and the group's other lanes count as they are.
  // Returns the mask of lanes to keep (all ones: keep).
  static u32 redo_rejected(const Plan& p, std::uint64_t t, const u32& reject, Tally& tally) {
    alignas(64) std::uint32_t lane[kLanes];
    reject.store_aligned(lane);
    for (int l = 0; l < kLanes; ++l)
      if (lane[l]) p.reference->tally(t + l, t + l + 1, tally);
    return ~reject;
  }

  // The same into the lanes' rows of n items (whole permutations), each
  // redone trial's words and draws added to the tally: the caller counts
  // the rows. Returns the lanes that were not redone, as redo_rejected.
  static u32 redo_into_rows(const Plan& p, std::uint64_t t, const u32& reject, std::uint16_t* rows, Tally& tally) {
    alignas(64) std::uint32_t lane[kLanes];
    reject.store_aligned(lane);
    for (int l = 0; l < kLanes; ++l)
      if (lane[l]) {
        const ReferenceTrials::Consumed used =
            p.reference->redo(t + static_cast<std::uint64_t>(l), rows + static_cast<std::size_t>(l) * p.job.n);
        ++tally.trials;
        tally.words += used.words;
        tally.draws += used.draws;
      }
    return ~reject;
  }

  // Rows [b, e) by the scalar reference, as 16-bit items or narrowed to bytes.
  template <class Item>
  static void scalar_rows(const Plan& p, std::uint64_t b, std::uint64_t e, Item* rows,
                          bool table = false) {
    if constexpr (sizeof(Item) == 2) {
      if (table) return sample_table_trials(p.job, p.table, b, e, rows);
      return p.reference->sample(b, e, rows);
    } else {
      std::vector<std::uint16_t> wide((e - b) * static_cast<std::uint64_t>(shape_of(p.job).k));
      scalar_rows(p, b, e, wide.data(), table);
      std::copy(wide.begin(), wide.end(), rows);  // items < 256: exact
    }
  }

  // The same for sampling: the scalar reference rewrites the rows (n items
  // each, from `rows`) of the lanes that rejected.

  template <class Item>
  static void resample_rejected(const Plan& p, std::uint64_t t, const u32& reject, Item* rows) {
    alignas(64) std::uint32_t lane[kLanes];
    reject.store_aligned(lane);
    const auto width = static_cast<std::size_t>(shape_of(p.job).k);  // a row: the outcome's items
    for (int l = 0; l < kLanes; ++l)
      if (lane[l]) scalar_rows(p, t + l, t + l + 1, rows + l * width);
  }

  // Calls f(std::integral_constant<int, N>{}) for the job's n, 2 <= n <= kPackedItems.
  template <class F>
  static auto with_packed_n(int n, F&& f) {
    using Result = decltype(f(std::integral_constant<int, kPackedItems>{}));
    const auto outside = [n] { return Error("internal: packed path for n = " + std::to_string(n)); };
    if constexpr (std::is_void_v<Result>) {
      if (!with_count_in<2, kPackedItems>(n, f)) throw outside();
    } else {
      Result r{};
      if (!with_count_in<2, kPackedItems>(n, [&](auto c) { r = f(c); })) throw outside();
      return r;
    }
  }
};

}  // namespace melange::simd::internal
