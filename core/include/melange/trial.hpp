// The trial body (docs/architecture.md): source -> algorithm -> sink. Every
// place that runs trials runs this: the scalar reference loop below, the
// vector kernels' fall-back batches, the CUDA threads, and the exact
// enumerator (with a path walker for the source).
//
// A sink is called as sink(items, n, source) once the algorithm is done.
// A counting sink counts the outcome into the job's tally kinds through
// their definitions (tallies.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/config.hpp"
#include "melange/deal.hpp"
#include "melange/decision_table.hpp"
#include "melange/job.hpp"
#include "melange/rank.hpp"
#include "melange/source.hpp"

namespace melange {

// What one trial needs to know of its job, plain enough for a GPU thread.
struct TrialJob {
  std::uint64_t seed;
  BoundedSpec spec;
  int n;
  int k;           // the last k positions are the outcome (k = n: all of them)
  TallySet tallies;
  // Every parameter of the algorithm beyond n and k (the weighted orders'
  // weights in host memory; a card shuffle's), as shape_of() gives them.
  Shape parameters;
  // n and k from the members, which a GPU thread may have made constants
  // (thread_trials.cuh), so that its loops unroll.
  MELANGE_HD Shape shape() const {
    Shape s = parameters;
    s.n = n;
    s.k = k;
    return s;
  }
};

inline TrialJob trial_job(const Job& job) {
  const Shape s = shape_of(job);
  return TrialJob{job.seed, job.spec, s.n, s.k, job.tallies, s};
}

// Identity order, algorithm A drawing from `src`, then the sink. `items` is a
// pointer to n items, or a container of them with items[i] (packed_items.hpp).
template <Algorithm A, class Items, RandomSource Source, class Sink>
MELANGE_HD inline void trial_body(Items&& items, Shape s, Source& src, Sink& sink) {
  iota_items(items, s.n);
  shuffle_as<A>(items, s, src);
  sink(items, s, src);
}

// Trial t of a job: stream t through the job's bounded method (Set: which
// methods the source is compiled for; the job's must be among them).
// `batches`: the job's batch plan (planned_batches), where the caller holds
// one; the same bits as cutting the batches per trial.
template <Algorithm A, MethodSet Set = MethodSet::any, class Items, class Sink, class Batches = NoBatchPlan>
MELANGE_HD inline void run_trial(const TrialJob& job, std::uint64_t t, Items&& items, Sink& sink,
                                 Batches batches = {}) {
  BasicPhiloxSource<Set, Batches> src(job.seed, t, job.spec, A, job.shape(), batches);
  trial_body<A>(items, job.shape(), src, sink);
}

// Reports a deal (or a whole permutation, k = n) to a counter: deal[i] is
// the item in slot i, i < k. Records read from another program are counted
// here too.
template <class Deal, class Counter>
MELANGE_HD inline void count_dealt(const TrialJob& job, const Deal& deal, Counter& counter) {
#ifdef __CUDA_ARCH__
  DeviceTallyDefinitions::count(job.tallies, deal, job.shape(), counter);  // launch_plan.hpp: the kinds a GPU counts
#else
  RecordTallyDefinitions::count(job.tallies, deal, job.shape(), counter);
#endif
}

// Reports a record against the record before it to a counter: the job's
// serial kinds (tallies.hpp), on the host. `scratch` holds 2n items.
template <class Counter>
inline void count_serial(const TrialJob& job, const std::uint16_t* before, const std::uint16_t* record,
                         std::uint16_t* scratch, Counter& counter) {
  const Shape s = job.shape();
  std::uint16_t* relabeled = scratch + s.n;
  relabel(before, record, relabeled, s, scratch);
  AllSerialDefinitions::count(job.tallies, before, record, static_cast<const std::uint16_t*>(relabeled), s, counter);
}

// Reports a trial's outcome to a counter (tallies.hpp: rank(r),
// position(item, p), add(kind, bin)): the tallies the job asked for. The
// outcome is the last k positions (deal.hpp has the ranks of a deal).
// kDeals = false compiles the whole-permutation tallies alone, for code
// that must stay small (a GPU thread of an algorithm that never deals; see
// can_deal).
template <bool kDeals = true, class Items, class Counter>
MELANGE_HD inline void count_outcome(const TrialJob& job, const Items& items, Counter& counter) {
  if constexpr (!kDeals) {
    // The two whole-permutation kinds, without a deal's rank code.
    if (job.tallies.has(TallyKind::ranks)) counter.rank(lehmer_rank(items, job.n));
    if (job.tallies.has(TallyKind::positions))
      for (int p = 0; p < job.n; ++p) counter.position(items[p], p);
  } else {
    count_dealt(job, dealt_items(items, job.shape()), counter);
  }
}

// The outcome, then usage(words, draws): what the trial read (stream words)
// and asked for (bounded draws and comparator coins).
template <bool kDeals = true, class Items, class Counter>
MELANGE_HD inline void count_trial(const TrialJob& job, const Items& items, std::uint64_t words,
                                   std::uint64_t draws, Counter& counter) {
  count_outcome<kDeals>(job, items, counter);
  counter.usage(words, draws);
}

// The sink that counts: a trial's tallies go to `counter`.
template <class Counter, bool kDeals = true>
struct CountingSink {
  const TrialJob& job;
  Counter& counter;
  template <class Items, class Source>
  MELANGE_HD void operator()(const Items& items, Shape, const Source& src) {
    count_trial<kDeals>(job, items, src.words_consumed(), src.draws_made(), counter);
  }
};

// The sink that keeps the outcome: the permutation, or a deal's k items in
// slot order, into out[0..k), then out moves on a row. Out: std::uint16_t,
// or std::uint8_t where every item is below 256 (a GPU's byte records).
template <class Out = std::uint16_t>
struct SampleSink {
  Out* out;
  template <class Items, class Source>
  MELANGE_HD void operator()(const Items& items, Shape s, const Source&) {
    const auto dealt = dealt_items(items, s);
    for (int p = 0; p < s.k; ++p) out[p] = static_cast<Out>(dealt[p]);
    out += s.k;
  }
};
template <class Out>
SampleSink(Out*) -> SampleSink<Out>;

// The algorithms whose draw d fixes the item of slot
// scheduled_draw(A, s, d).position for good (their rows say so).
template <Algorithm A>
inline constexpr bool kFixesSlotsInTurn = row_of(A).fixes_slots_in_turn;

// Trial t of a job that tallies positions alone, each slot counted as it
// becomes final: the slot's item goes from the draw straight to
// counter.position, and is neither stored back nor read again (at n = 52, 52
// loads and stores of the items a trial fewer than count_trial over the
// finished items). The same counts, words and draws as run_trial with a
// CountingSink.
template <Algorithm A, MethodSet Set = MethodSet::any, class Items, class Counter, class Batches = NoBatchPlan>
MELANGE_HD inline void count_positions_in_turn(const TrialJob& job, std::uint64_t t, Items&& a, Counter& counter,
                                               Batches batches = {}) {
  static_assert(kFixesSlotsInTurn<A>, "an algorithm that may move an item out of a slot it filled");
  const Shape s = job.shape();
  BasicPhiloxSource<Set, Batches> src(job.seed, t, job.spec, A, s, batches);
  iota_items(a, s.n);
  const int draws = scheduled_draws(A, s), first = s.first_dealt();
  for (int d = 0; d < draws; ++d) {
    const ScheduledDraw sd = scheduled_draw(A, s, d);
    const std::uint32_t j = src.bounded(sd.range);
    const auto item = internal::item_value(a[j]);
    a[j] = internal::item_value(a[sd.position]);
    counter.position(static_cast<int>(item), static_cast<int>(sd.position) - first);
  }
  // The slots no draw reached (slot 0 of fisher-yates and sattolo).
  for (int p = first; p < s.n - draws; ++p) counter.position(static_cast<int>(internal::item_value(a[p])), p - first);
  counter.usage(src.words_consumed(), src.draws_made());
}

// Trial t through the job's decision table (decision_table.hpp): the same
// tallies, words and draws as run_trial with a CountingSink. Kind: the
// table's index kind, fixed at compile time (FixedTableIndex, a GPU kernel's)
// or read from the view.
template <class Kind = TableIndexOfView, class Counter>
MELANGE_HD inline void count_table_trial(const TrialJob& job, const DecisionTableView& table, std::uint64_t t,
                                         Counter& counter) {
  const bool batched = job.spec.method == Method::batched;
  PhiloxStream stream(job.seed, t);
  const std::uint32_t index = table_index<Kind>(stream, table, batched);
  const std::uint32_t meta = table.meta[index];
  if (job.tallies.has(TallyKind::ranks)) counter.rank(table_rank(meta));
  if (job.tallies.has(TallyKind::positions)) {
    const std::uint32_t perm = table.perms[index];
    for (int p = 0; p < job.n; ++p) counter.position(static_cast<int>((perm >> (4 * p)) & 15u), p);
  }
  const std::uint32_t draws = table_draws(meta);
  // A coin index may read past the coins used: the trial consumed only those.
  const bool coin_a_word = Kind::of(table) == TableIndex::coins && !batched;
  counter.usage(coin_a_word ? draws : stream.words_consumed(), draws);
}

// The permutation of trial t through the table, into out[0..n).
template <class Kind = TableIndexOfView, class Out>
MELANGE_HD inline void sample_table_trial(const TrialJob& job, const DecisionTableView& table, std::uint64_t t,
                                          Out* out) {
  PhiloxStream stream(job.seed, t);
  const std::uint32_t perm = table.perms[table_index<Kind>(stream, table, job.spec.method == Method::batched)];
  for (int p = 0; p < job.n; ++p) out[p] = static_cast<Out>((perm >> (4 * p)) & 15u);
}

// The host's counter: a Tally. Word and draw counts are kept here and added
// to the Tally by flush() (and on destruction): the engine's workers hold
// their Tallies side by side, and a store to one a trial would share a cache
// line with the next worker's.
class TallyCounter {
 public:
  explicit TallyCounter(Tally& t) : tally(t) {}
  TallyCounter(const TallyCounter&) = delete;
  TallyCounter& operator=(const TallyCounter&) = delete;
  ~TallyCounter() { flush(); }

  void rank(std::uint64_t r) { tally[TallyKind::ranks].add(r); }
  void position(int item, int p) {
    TallyCounts& m = tally[TallyKind::positions];
    ++m.counts()[static_cast<std::size_t>(item) * m.k() + p];
  }
  // The other kinds. A histogram may be large (2,598,960 hands for poker,
  // 21 MB) and its bins hit at random, so that nearly every count misses the
  // cache: each bin is prefetched when its count comes and counted
  // kDelay counts later, so that the misses overlap.
  void add(TallyKind kind, std::uint64_t bin) {
    std::uint64_t* cell = &tally[kind].counts()[bin];
    __builtin_prefetch(cell, 1);
    std::uint64_t*& slot = pending_[held_++ % kDelay];
    if (held_ > kDelay) ++*slot;
    slot = cell;
  }
  // Brings the Tally up to date: the counts still in flight, the words and
  // draws. Out of line (trial.cpp), as count_items below is: the SIMD
  // kernels are compiled with their architectures' flags, and an inline
  // copy they emitted could be the one the linker keeps for every caller
  // (scripts/check_arch_isolation.py).
  void flush();
  void usage(std::uint64_t words, std::uint64_t draws) {
    words_ += words;
    draws_ += draws;
  }

  Tally& tally;

 private:
  static constexpr std::uint64_t kDelay = 16;
  std::uint64_t* pending_[kDelay] = {};
  std::uint64_t held_ = 0;  // counts added since the last flush
  std::uint64_t words_ = 0, draws_ = 0;  // since the last flush
};

// count_outcome of n 16-bit items into a TallyCounter, compiled once in
// trial.cpp: for code built with other flags (the SIMD kernels), whose own
// copies of the inline definitions the linker could keep for every caller
// (scripts/check_arch_isolation.py).
void count_items(const TrialJob& job, const std::uint16_t* items, TallyCounter& counter);

// Every kind of a whole permutation is a function of its rank: from a
// tally whose rank histogram is counted, the job's other kinds are made
// bin by bin (n! unranked orders, each counted once with its count as
// weight), replacing what they held. Records of a few items (n <=
// kMaxDerivedItems) are counted this way: a rank a record, the rest once.
inline constexpr int kMaxDerivedItems = 6;
void derive_from_ranks(Tally& tally, Shape shape, TallySet kinds);

// A serial job's pairs of consecutive whole permutations known by their
// ranks (pairs[a n! + b]: a record of rank b after one of rank a): each
// pair's serial kinds and the second record's kinds, counted as many times
// as the pair came. What a counter that sees ranks alone (the SIMD lanes,
// n <= kMaxSerialPairItems) hands on.
void count_rank_pairs(const Job& job, const std::vector<std::uint64_t>& pairs, Tally& tally);

// The scalar reference, one trial at a time: every other path is checked
// against these bit for bit. [begin, end) may end at 2^64 (end == 0).
void tally_trials(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally);
void sample_trials(const Job& job, std::uint64_t begin, std::uint64_t end, std::uint16_t* out);

// The same with the job's set-up (its trial job and, under batched, its
// batches, planned with a division each) made once: for a caller that
// redoes a few trials at a time, as a SIMD lane whose draw was rejected
// is, and would otherwise plan the batches for every trial.
class ReferenceTrials {
 public:
  explicit ReferenceTrials(const Job& job);
  void tally(std::uint64_t begin, std::uint64_t end, Tally& tally) const;
  void sample(std::uint64_t begin, std::uint64_t end, std::uint16_t* out) const;
  // Trial t's whole permutation into out[0..n), and what it read: for a
  // caller that counts the permutation with its own counters.
  struct Consumed {
    std::uint64_t words = 0, draws = 0;
  };
  Consumed redo(std::uint64_t t, std::uint16_t* out) const;

 private:
  Job job_;
  TrialJob trial_job_;
  std::vector<PlannedBatch> plan_;  // empty where the method has none
};

// The same through the job's decision table, one trial at a time.
void tally_table_trials(const Job& job, const DecisionTableView& table, std::uint64_t begin, std::uint64_t end,
                        Tally& tally);
void sample_table_trials(const Job& job, const DecisionTableView& table, std::uint64_t begin, std::uint64_t end,
                         std::uint16_t* out);

}  // namespace melange
