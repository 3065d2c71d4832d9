// The vector kernel body, written once for any lane width: one trial per lane,
// Philox4x32-10 and the bounded draw computed across lanes, the permutation
// kept in a register (four bits an item) for small n, or applied per lane in
// memory for larger n. A lane that rejects a word takes the contract's
// scalar draws from that word on (resume_lane), or, where the draws are not
// stored first (packed permutations, card shuffles, tables), has its whole
// trial re-run on the scalar reference path; so the words consumed are
// always the contract's. Included only by the per-architecture .cpp files.
// Its pieces: kernel_philox-inl.hpp (the cipher across lanes), kernel_counters-inl.hpp
// (lane-private tallies), kernel_rows-inl.hpp (packed permutations as rows);
// this file holds the draws and one path each for packed, wide, table and
// sampling jobs.
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernel_cards-inl.hpp"
#include "kernel_counters-inl.hpp"
#include "kernel_entry.hpp"
#include "kernel_philox-inl.hpp"
#include "kernel_rows-inl.hpp"
#include "sorting_network.hpp"
#include "melange/philox.hpp"
#include "melange/rank.hpp"
#include "melange/stream.hpp"
#include "melange/trial.hpp"
#include "tuning.hpp"

namespace melange::simd::internal {


template <class Arch>
struct Kernel {
  using L = Lanes<Arch>;
  using u32 = typename L::u32;
  static constexpr int kLanes = static_cast<int>(u32::size);
  using Philox = LanePhilox<Arch>;
  using Counters = LaneCounters<Arch>;
  using Rows = LaneRows<Arch>;
  using Cards = LaneCards<Kernel>;  // the card shuffles' rows (kernel_cards-inl.hpp)

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

  // Items 0..n-1 packed four bits each: the identity permutation.
  static std::uint32_t packed_identity(int n) {
    std::uint32_t v = 0;
    for (int k = 0; k < n; ++k) v |= static_cast<std::uint32_t>(k) << (4 * k);
    return v;
  }

  // Runs the draws and swaps of one batch with the permutation in a register.
  // Returns the packed permutations and sets `reject`.
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

  template <Method M, int N>
  MELANGE_LANE_INLINE static u32 packed_batch(const Plan& p, std::uint64_t first, u32& reject) {
    u32 perm(packed_identity(N));
    // swap(a[i], a[j]) on four-bit items: j differs by lane, i does not.
    auto swap = [&perm](std::uint32_t i, const u32& j) MELANGE_LANE_LAMBDA {
      const u32 j4 = j << 2;
      const int i4 = static_cast<int>(i) * 4;
      const u32 x = ((perm >> i4) ^ L::shift_right(perm, j4)) & u32(15u);
      perm = perm ^ (x << i4) ^ L::shift_left(x, j4);
    };
    if constexpr (M == Method::batched) {
      batched_draws(p, first, reject,
                    [&](const DrawPlan& d, const u32& j) MELANGE_LANE_LAMBDA { swap(d.i, j); });
    } else {
      auto swap_along = [&](std::size_t draws) MELANGE_LANE_LAMBDA {
        Philox::for_each_word(p, first, draws, [&](std::size_t k, const u32& word) MELANGE_LANE_LAMBDA {
          const DrawPlan& d = p.draws[k];
          swap(d.i, draw<M>(p, d, word, reject));
        });
      };
      // The plan's draws are the algorithm's schedule. The usual counts, n - 1
      // (fisher-yates, sattolo) and n (naive-swap), get loops of constant trip
      // count, which the compiler unrolls; any other count runs as it is.
      const std::size_t draws = p.draws.size();
      if (draws == N - 1)
        swap_along(N - 1);
      else if (draws == N)
        swap_along(N);
      else
        swap_along(draws);
    }
    return perm;
  }

  // Lehmer rank of packed permutations: sum over i < j of [p_j < p_i] (n-1-i)!.
  template <int N>
  MELANGE_LANE_INLINE static u32 packed_rank(u32 perm) {
    u32 item[N];
    for (int k = 0; k < N; ++k) item[k] = (perm >> (4 * k)) & u32(15u);
    u32 rank(0u);
    for (int i = 0; i < N - 1; ++i) {
      const u32 weight(static_cast<std::uint32_t>(factorial(N - 1 - i)));
      for (int j = i + 1; j < N; ++j) rank = rank + (L::greater_small(item[i], item[j]) & weight);
    }
    return rank;
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

  // Every draw of one group, its lanes' j stored at digits[draw * kLanes].
  // A lane that rejected a word is resumed from that word on the scalar
  // path (resume_lane), which costs the draws after it, where redoing the
  // trial would cost all its draws and swaps again; so no lane is left
  // rejected. Returns the words the resumed lanes read beyond
  // words_per_trial.
  template <Method M>
  MELANGE_LANE_INLINE static std::uint64_t lane_digits(const Plan& p, std::uint64_t first, u32& reject,
                                                       std::uint32_t* digits) {
    u32 first_rejected(~0u);
    for_each_draw<M>(
        p, first, reject,
        [&](const DrawPlan& d, const u32& lanes_j) MELANGE_LANE_LAMBDA {
          lanes_j.store_aligned(digits + (&d - p.draws.data()) * kLanes);
        },
        &first_rejected);
    if (!p.may_reject || !L::any(reject)) return 0;
    alignas(64) std::uint32_t word[kLanes];
    first_rejected.store_aligned(word);
    std::uint64_t extra = 0;
    for (int l = 0; l < kLanes; ++l)
      if (word[l] != ~0u)
        extra += resume_lane<M>(p, first + static_cast<std::uint64_t>(l), word[l], l, digits) - p.words_per_trial;
    reject = u32(0u);
    return extra;
  }

  // Lane `lane`'s trial from its first rejected word w on, by the
  // contract's own scalar draws (PhiloxStream, BatchedDraws, the one-a-word
  // methods): the draws before word w stand, as w is where the lane's
  // stream and the lanes' parted. Writes the lane's digits from there and
  // returns the words the trial read in all.
  template <Method M>
  static std::uint64_t resume_lane(const Plan& p, std::uint64_t trial, std::uint32_t w, int lane,
                                   std::uint32_t* digits) {
    PhiloxStream words(p.job.seed, trial, w / 4);
    for (std::uint32_t k = 0; k < w % 4; ++k) words.next();
    std::uint32_t* out = digits + lane;
    if constexpr (M == Method::batched) {
      BatchedDraws batches(static_cast<int>(w));
      for (std::size_t d = p.words[w].first; d < p.draws.size(); ++d)
        out[d * kLanes] = batches.next_planned(words, p.draws[d].s, p.words);
    } else {
      for (std::size_t d = w; d < p.draws.size(); ++d)
        out[d * kLanes] = melange::internal::bounded_one_a_word(words, p.draws[d].s, p.job.spec);
    }
    return std::uint64_t{w} / 4 * 4 + words.words_consumed();
  }

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
    const std::uint64_t extra_words = lane_digits<M>(p, first, reject, digits);
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
    const std::uint64_t extra_words = lane_digits<M>(p, first, reject, digits);
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

  // The same for sampling: the scalar reference rewrites the rows (n items
  // each, from `rows`) of the lanes that rejected.
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

  template <class Item>
  static void resample_rejected(const Plan& p, std::uint64_t t, const u32& reject, Item* rows) {
    alignas(64) std::uint32_t lane[kLanes];
    reject.store_aligned(lane);
    const auto width = static_cast<std::size_t>(shape_of(p.job).k);  // a row: the outcome's items
    for (int l = 0; l < kLanes; ++l)
      if (lane[l]) scalar_rows(p, t + l, t + l + 1, rows + l * width);
  }

  // Small n: the permutation stays in a register; counts go to lane-private
  // counters. Returns the number of trials counted here (not redone).
  template <Method M, int N>
  static std::uint64_t tally_packed(const Plan& p, std::uint64_t begin, std::uint64_t full,
                                    Tally& tally) {
    const bool want_ranks = !tally[TallyKind::ranks].empty(), want_positions = !tally[TallyKind::positions].empty();
    Counters c(p, want_ranks, want_positions);
    // A serial job (n <= kMaxSerialPairItems): the lanes' ranks in trial
    // order make pairs with the trial before each; count_rank_pairs counts
    // everything a pair holds. A lane the scalar reference redoes counts
    // its own pair; its rank is still the next lane's "before".
    const bool serial = has_serial_kinds(p.job.tallies);
    const std::uint64_t orders = serial ? factorial(N) : 0;
    std::vector<std::uint64_t> pairs(orders * orders);
    std::uint64_t before = serial ? scalar_rank(p, begin - 1) : 0;
    std::uint64_t clean = 0;
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      u32 reject(0u);
      const u32 perm = packed_batch<M, N>(p, t, reject);
      const bool some_rejected = p.may_reject && L::any(reject);
      const u32 keep = some_rejected ? redo_rejected(p, t, reject, tally) : u32(~0u);
      alignas(64) std::uint32_t kept[kLanes];
      if (some_rejected) keep.store_aligned(kept);
      if (serial) {
        // Every kind of the pair's second record follows from its rank too:
        // count_rank_pairs counts them, and the lanes count only the pairs.
        alignas(64) std::uint32_t rank[kLanes];
        packed_rank<N>(perm).store_aligned(rank);
        for (int l = 0; l < kLanes; ++l) {
          const bool redone = some_rejected && !kept[l];
          const std::uint64_t r = redone ? scalar_rank(p, t + static_cast<std::uint64_t>(l)) : rank[l];
          if (!redone) ++pairs[before * orders + r];
          before = r;
        }
      } else {
        if (want_ranks) c.add_ranks(packed_rank<N>(perm), some_rejected ? kept : nullptr);
        if (want_positions) c.template add_positions<N>(perm, keep);
      }
      if (some_rejected) {
        for (int l = 0; l < kLanes; ++l) clean += kept[l] != 0;
      } else {
        clean += kLanes;
      }
      if (++c.batches == kFlushBatches) c.flush(tally);
    }
    c.flush(tally);
    if (serial) count_rank_pairs(p.job, pairs, tally);
    return clean;
  }

  // The rank of trial t's permutation, by the scalar reference.
  static std::uint64_t scalar_rank(const Plan& p, std::uint64_t t) {
    std::uint16_t items[kPackedItems];
    p.reference->sample(t, t + 1, items);
    return lehmer_rank(items, p.job.n);
  }

  // True where the lanes hold a deck a register (Lanes::inverse_decks) and
  // the job fits it: a whole permutation of at most kDeckItems items made
  // by swaps (not a card shuffle's sorted keys), with no kind but positions
  // (a rank, or a record's statistics, needs the permutation, not its
  // inverse).
  static constexpr bool kDecks = requires { L::kDeckItems; };
  static bool decks_fit(const Plan& p, const Tally& tally) {
    if constexpr (kDecks)
      return !is_deal(p.job) && p.job.n <= L::kDeckItems && !p.sorts_keys &&
             tally[TallyKind::ranks].empty() && lane_kinds_only(p.job.tallies);
    return false;
  }

  // n up to 64 on VBMI: each lane's inverse permutation built in a register
  // and its positions counted from it. Returns the trials counted here.
  template <Method M>
  static std::uint64_t tally_decks(const Plan& p, std::uint64_t begin, std::uint64_t full, Tally& tally) {
    std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>> digits(p.draws.size() * kLanes);
    alignas(64) std::uint8_t inverse[kLanes * 64];
    const bool want_positions = !tally[TallyKind::positions].empty();
    typename L::DeckCounters c(p.job.n);
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      u32 reject(0u);
      tally.words += lane_digits<M>(p, t, reject, digits.data());  // leaves no lane rejected
      if (!want_positions) continue;
      L::inverse_decks(p, digits.data(), inverse);
      c.add_group(inverse);
      if (c.full()) c.drain(tally);
    }
    if (want_positions) c.flush(tally);
    return full - begin;
  }

  // Larger n, deals and card shuffles: per-lane item arrays in memory. Returns the
  // trials counted here.
  template <Method M>
  static std::uint64_t tally_wide(const Plan& p, std::uint64_t begin, std::uint64_t full,
                                  Tally& tally) {
    if constexpr (kDecks)
      if (decks_fit(p, tally)) return tally_decks<M>(p, begin, full, tally);
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
          redo_into_rows(p, t, reject, items.data(), tally).store_aligned(kept);
        else
          redo_rejected(p, t, reject, tally).store_aligned(kept);
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

  // Each lane's index into the job's decision table (decision_table.hpp).
  // Coins: the top `depth` bits of the first word under `batched`, else the
  // top bit of each of the first `depth` words; never rejected. One-batch
  // schedules: v = mulhi(x0, P), and the lanes whose x0 P mod 2^32 falls
  // below 2^32 mod P set `reject` (their trials are redone on the scalar
  // path, which reads the next word as the method says).
  template <TableIndex K>
  MELANGE_LANE_INLINE static u32 table_indices(const Plan& p, std::uint64_t first, u32& reject) {
    u32 index(0u);
    if (one_word_index<K>(p)) {
      Philox::for_each_word(p, first, 1, [&](std::size_t, const u32& word) MELANGE_LANE_LAMBDA {
        index = index_of_word<K>(p, word, reject);
      });
    } else {
      const int depth = p.table.depth;
      Philox::for_each_word(p, first, static_cast<std::size_t>(depth), [&](std::size_t k, const u32& word) MELANGE_LANE_LAMBDA {
        index = index | ((word >> 31) << (depth - 1 - static_cast<int>(k)));
      });
    }
    return index;
  }

  // True where a trial's index comes from its first word alone.
  template <TableIndex K>
  static bool one_word_index(const Plan& p) {
    return K == TableIndex::batch || p.job.spec.method == Method::batched;
  }
  template <TableIndex K>
  MELANGE_LANE_INLINE static u32 index_of_word(const Plan& p, const u32& word, u32& reject) {
    if constexpr (K == TableIndex::batch) {
      u32 index, low;
      L::mul_wide(word, u32(p.table.product), index, low);
      reject = L::less(low, u32(p.table.threshold));
      return index;
    } else {
      return word >> (32 - p.table.depth);
    }
  }

  // count(t, index, reject) for each group of lanes from trial t in
  // [begin, full): their table indices, and the lanes that rejected. Two
  // groups a step where the index is one word (their blocks side by side),
  // else one.
  template <TableIndex K, class Count>
  MELANGE_LANE_INLINE static void for_each_index(const Plan& p, std::uint64_t begin, std::uint64_t full, Count&& count) {
    const bool pairs = one_word_index<K>(p);
    for (std::uint64_t t = begin; t != full;) {
      if (pairs && full - t >= 2 * kLanes) {
        u32 words[2], reject[2] = {u32(0u), u32(0u)};
        Philox::template first_words<2>(p, t, words);
        const u32 first_index = index_of_word<K>(p, words[0], reject[0]);
        const u32 second_index = index_of_word<K>(p, words[1], reject[1]);
        count(t, first_index, reject[0]);
        count(t + kLanes, second_index, reject[1]);
        t += 2 * kLanes;
      } else {
        u32 reject(0u);
        count(t, table_indices<K>(p, t, reject), reject);
        t += kLanes;
      }
    }
  }

  // A table job with the rank histogram asked for: the lanes count table
  // indices (IndexCounters), the tallies follow at each flush. Per group of
  // lanes: the Philox block, the index (a multiply and a compare, or the
  // coins' top bits), and an increment a lane; no gather. A coin table of
  // more entries than the rank histogram's lane columns keeps the gather
  // (tally_table), within the memory the plan counted (scratch_bytes).
  template <int N, TableIndex K>
  static bool counts_by_index(const Plan& p, const Tally& tally) {
    if (tally[TallyKind::ranks].empty()) return false;
    return K == TableIndex::batch || (std::uint64_t{1} << p.table.depth) <= factorial(N) * kLanes;
  }
  template <int N, TableIndex K>
  static std::uint64_t tally_table_by_index(const Plan& p, std::uint64_t begin, std::uint64_t full, Tally& tally) {
    IndexCounters<Arch> c(K == TableIndex::batch ? p.table.product : std::uint32_t{1} << p.table.depth);
    const bool may_reject = K == TableIndex::batch && p.table.threshold != 0;
    std::uint64_t draws_total = 0, clean = 0;
    auto count = [&](std::uint64_t t, const u32& index, const u32& reject) MELANGE_LANE_LAMBDA {
      if (may_reject && L::any(reject)) {
        alignas(64) std::uint32_t kept[kLanes];
        redo_rejected(p, t, reject, tally).store_aligned(kept);
        c.add(index, kept);
        for (int l = 0; l < kLanes; ++l) clean += kept[l] != 0;
      } else {
        c.add(index, nullptr);
        clean += kLanes;
      }
      if (++c.batches == kFlushBatches) draws_total += c.template flush<N>(p.table, tally);
    };
    for_each_index<K>(p, begin, full, count);
    draws_total += c.template flush<N>(p.table, tally);
    tally.draws += draws_total;
    tally.words += words_read<K>(p, draws_total, clean);
    return clean;
  }

  // Under `batched` a clean trial read one word (a coin trial's at most
  // kMaxTableItems-item coins fit in one); otherwise a coin trial read a
  // word a coin.
  template <TableIndex K>
  static std::uint64_t words_read(const Plan& p, std::uint64_t draws, std::uint64_t clean) {
    return K == TableIndex::coins && p.job.spec.method != Method::batched ? draws : clean;
  }

  template <int N, TableIndex K>
  static std::uint64_t tally_table(const Plan& p, std::uint64_t begin, std::uint64_t full, Tally& tally) {
    if (counts_by_index<N, K>(p, tally)) return tally_table_by_index<N, K>(p, begin, full, tally);
    const bool want_ranks = !tally[TallyKind::ranks].empty(), want_positions = !tally[TallyKind::positions].empty();
    const bool may_reject = K == TableIndex::batch && p.table.threshold != 0;
    Counters c(p, want_ranks, want_positions);
    u32 draws(0u);
    std::uint64_t draws_total = 0, clean = 0;
    auto flush = [&] {
      alignas(64) std::uint32_t lane[kLanes];
      draws.store_aligned(lane);
      for (int l = 0; l < kLanes; ++l) draws_total += lane[l];
      draws = u32(0u);
      c.flush(tally);
    };
    // Counts the group of lanes from trial t, given their indices.
    auto count = [&](std::uint64_t t, const u32& index, const u32& reject) MELANGE_LANE_LAMBDA {
      const bool some_rejected = may_reject && L::any(reject);
      const u32 keep = some_rejected ? redo_rejected(p, t, reject, tally) : u32(~0u);
      alignas(64) std::uint32_t kept[kLanes];
      if (some_rejected) keep.store_aligned(kept);
      const u32 meta = L::gather(p.table.meta, index);
      if (want_ranks) c.add_ranks(meta & u32((1u << kTableDrawShift) - 1), some_rejected ? kept : nullptr);
      if (want_positions) c.template add_positions<N>(L::gather(p.table.perms, index), keep);
      draws = draws + ((meta >> kTableDrawShift) & keep);
      if (some_rejected) {
        for (int l = 0; l < kLanes; ++l) clean += kept[l] != 0;
      } else {
        clean += kLanes;
      }
      if (++c.batches == kFlushBatches) flush();
    };
    for_each_index<K>(p, begin, full, count);
    flush();
    tally.draws += draws_total;
    tally.words += words_read<K>(p, draws_total, clean);
    return clean;
  }

  static void tally_table_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Tally& tally) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    tally.trials += with_packed_n(p.job.n, [&](auto n) {
      return p.table.kind == TableIndex::batch ? tally_table<n(), TableIndex::batch>(p, begin, full, tally)
                                               : tally_table<n(), TableIndex::coins>(p, begin, full, tally);
    });
    if (full != end) tally_table_trials(p.job, p.table, full, end, tally);
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

  template <Method M>
  static void tally_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Tally& tally) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    const std::uint64_t clean =
        packed(p.job)
            ? with_packed_n(p.job.n, [&](auto n) { return tally_packed<M, n()>(p, begin, full, tally); })
            : tally_wide<M>(p, begin, full, tally);
    tally.trials += clean;
    tally.words += clean * p.words_per_trial;
    tally.draws += clean * p.draws.size();
    if (full != end) p.reference->tally(full, end, tally);
  }

  template <class Item>
  static void store_rows(const u32& packed, int n, Item* rows) {
    if (n >= 2) return with_packed_n(n, [&](auto c) { Rows::template store_rows<c()>(packed, rows); });
    alignas(64) std::uint32_t perm[kLanes];
    packed.store_aligned(perm);
    for (int l = 0; l < kLanes; ++l)
      for (int k = 0; k < n; ++k) rows[l * n + k] = static_cast<Item>((perm[l] >> (4 * k)) & 15u);
  }


  template <class Item>
  static void sample_table_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Item* out) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    const int n = p.job.n;
    const auto rows = [&](auto&& perms_at) {
      for (std::uint64_t t = begin; t != full; t += kLanes) {
        Item* row = out + (t - begin) * n;
        u32 reject(0u);
        const u32 index = p.table.kind == TableIndex::batch ? table_indices<TableIndex::batch>(p, t, reject)
                                                            : table_indices<TableIndex::coins>(p, t, reject);
        store_rows(perms_at(index), n, row);
        if (p.table.kind == TableIndex::batch && L::any(reject)) resample_rejected(p, t, reject, row);
      }
    };
    // A one-batch table of n <= 4 (24 entries) fits AVX-512's registers.
    if (p.table.kind == TableIndex::batch && p.table.product <= L::kSmallTable) {
      const auto small = L::small_table(p.table.perms, p.table.product);
      rows([&](const u32& index) { return L::lookup(small, index); });
    } else {
      rows([&](const u32& index) { return L::gather(p.table.perms, index); });
    }
    if (full != end) scalar_rows(p, full, end, out + (full - begin) * n, true);
  }

  // Rows of 16-bit items; bytes only where the permutation is packed (the
  // sample() below narrows the wide paths' rows).
  template <Method M, class Item>
  static void sample_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Item* out) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    const Shape shape = shape_of(p.job);
    const auto n = static_cast<std::size_t>(shape.n), width = static_cast<std::size_t>(shape.k);
    std::vector<std::uint16_t> identity(n);
    iota_items(identity.data(), p.job.n);
    std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>> digits(p.draws.size() * kLanes);
    // A deal's lanes shuffle all n items here; their last k go to the rows.
    std::vector<std::uint16_t> dealing(shape.whole() ? 0 : n * kLanes);
    for (std::size_t c = 0; c < dealing.size(); ++c) dealing[c] = static_cast<std::uint16_t>(c % n);
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      Item* row = out + (t - begin) * width;
      u32 reject(0u);
      if (packed(p.job)) {
        u32 perm;
        with_packed_n(p.job.n, [&](auto n) { perm = packed_batch<M, n()>(p, t, reject); });
        store_rows(perm, p.job.n, row);
      } else if (p.sorts_keys) {
        Cards::template card_rows<M>(p, t, reject, row);
      } else if constexpr (sizeof(Item) == 2) {
        if (shape.whole()) {
          wide_batch<M>(p, t, reject, row, identity.data(), digits.data());  // lanes' rows are the output rows
        } else {
          wide_batch<M>(p, t, reject, dealing.data(), nullptr, digits.data());
          for (int l = 0; l < kLanes; ++l)
            std::memcpy(row + l * width, dealing.data() + l * n + shape.first_dealt(), width * sizeof *row);
          undo_swaps(p, dealing.data(), digits.data());
        }
      }
      if (p.may_reject && L::any(reject)) resample_rejected(p, t, reject, row);
    }
    if (full != end) scalar_rows(p, full, end, out + (full - begin) * width);
  }

  static void tally(const Plan& p, std::uint64_t begin, std::uint64_t end, Tally& t) {
    if (p.table.perms) return tally_table_range(p, begin, end, t);
    with_method(p.job.spec.method, [&](auto m) { tally_range<decltype(m)::value>(p, begin, end, t); });
  }

  template <class Item>
  static void sample_items(const Plan& p, std::uint64_t begin, std::uint64_t end, Item* out) {
    if (p.table.perms) return sample_table_range(p, begin, end, out);
    with_method(p.job.spec.method, [&](auto m) { sample_range<decltype(m)::value>(p, begin, end, out); });
  }

  static void sample(const Plan& p, std::uint64_t begin, std::uint64_t end, std::uint16_t* out) {
    sample_items(p, begin, end, out);
  }

  // Rows as bytes, straight from the lanes: for jobs whose permutation is
  // packed, and card shuffles (rows_as_bytes); the dispatcher narrows the other
  // paths' rows.
  static void sample_bytes(const Plan& p, std::uint64_t begin, std::uint64_t end, std::uint8_t* out) {
    sample_items(p, begin, end, out);
  }

  // Raw words, for the benchmarks and the lane tests.
  static void words(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                    int words_per_stream, std::uint32_t* out) {
    Job job;
    job.seed = seed;
    const Plan p = make_plan(job);
    const std::uint64_t full = streams / kLanes * kLanes;
    for (std::uint64_t s = 0; s < full; s += kLanes)
      Philox::for_each_word(p, first + s, static_cast<std::size_t>(words_per_stream),
                    [&](std::size_t k, const u32& word) {
                      alignas(64) std::uint32_t lane[kLanes];
                      word.store_aligned(lane);
                      for (int l = 0; l < kLanes; ++l) out[(s + l) * words_per_stream + k] = lane[l];
                    });
    for (std::uint64_t s = full; s < streams; ++s) {
      PhiloxStream st(seed, first + s);
      for (int k = 0; k < words_per_stream; ++k) out[s * words_per_stream + k] = st.next();
    }
  }

  static std::uint32_t checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams) {
    Job job;
    job.seed = seed;
    const Plan p = make_plan(job);
    u32 acc(0u);
    // kGroups groups a step: independent multiply chains per round.
    constexpr int kGroups = 2;
    const std::uint64_t full = streams / (kGroups * kLanes) * (kGroups * kLanes);
    for (std::uint64_t s = 0; s < full; s += kGroups * kLanes) {
      u32 c[kGroups][4];
      for (int g = 0; g < kGroups; ++g) {
        c[g][0] = c[g][1] = u32(0u);
        Philox::lane_streams(first + s + g * kLanes, c[g][2], c[g][3]);
      }
      Philox::template philox<kGroups>(p, c);
      for (int g = 0; g < kGroups; ++g) acc = acc ^ c[g][0] ^ c[g][1] ^ c[g][2] ^ c[g][3];
    }
    alignas(64) std::uint32_t lane[kLanes];
    acc.store_aligned(lane);
    std::uint32_t x = 0;
    for (int l = 0; l < kLanes; ++l) x ^= lane[l];
    for (std::uint64_t s = full; s < streams; ++s) {
      const PhiloxCounter b = philox4x32_10(stream_counter(first + s, 0), stream_key(seed));
      x ^= b.v[0] ^ b.v[1] ^ b.v[2] ^ b.v[3];
    }
    return x;
  }
};

}  // namespace melange::simd::internal

