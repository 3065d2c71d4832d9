// The trial body (DESIGN.md section 5): source -> algorithm -> sink. Every
// place that runs trials runs this: the scalar reference loop below, the
// vector kernels' fall-back batches, the CUDA threads, and the exact
// enumerator (with a path walker for the source).
//
// A sink is called as sink(items, n, source) once the algorithm is done.
// Adding a tally kind: a counter method here (count_trial) and the places
// that report it.
#pragma once

#include <algorithm>
#include <cstdint>

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
  bool ranks;      // tally the Lehmer rank (a deal: its deal rank)
  bool positions;  // tally the item x position (slot) matrix
  bool hands;      // tally the hand's colex rank
  bool categories; // tally the poker category
  const double* weights;  // the weighted orders' weights (host memory), else null
  MELANGE_HD Shape shape() const { return Shape{n, k, weights}; }
};

inline TrialJob trial_job(const Job& job) {
  const Shape s = shape_of(job);
  return TrialJob{job.seed, job.spec, s.n, s.k, job.rank_histogram, job.position_matrix,
                  job.hand_histogram, job.poker_categories, s.weights};
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
  const Shape s = job.shape();
  if (job.ranks) counter.rank(s.whole() ? lehmer_rank(deal, s.n) : deal_rank(deal, s.n, s.k));
  if (job.positions)
    for (int p = 0; p < s.k; ++p) counter.position(deal[p], p);
  if (job.hands) counter.hand(hand_rank(deal, s.k));
  if (job.categories) counter.category(static_cast<int>(poker_category(deal)));
}

// Reports a trial's outcome to a counter with rank(r), position(item, p),
// hand(r) and category(c): the tallies the job asked for. The outcome is the
// last k positions (deal.hpp has the ranks of a deal). kDeals = false
// compiles the whole-permutation tallies alone, for code that must stay
// small (a GPU thread of an algorithm that never deals; see can_deal).
template <bool kDeals = true, class Items, class Counter>
MELANGE_HD inline void count_outcome(const TrialJob& job, const Items& items, Counter& counter) {
  if constexpr (!kDeals) {
    if (job.ranks) counter.rank(lehmer_rank(items, job.n));
    if (job.positions)
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
// scheduled_draw(A, s, d).position for good: their swaps walk down and never
// reach back above it (fisher-yates, sattolo, partial).
template <Algorithm A>
inline constexpr bool kFixesSlotsInTurn =
    A == Algorithm::fisher_yates || A == Algorithm::sattolo || A == Algorithm::partial;

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
  if (job.ranks) counter.rank(table_rank(meta));
  if (job.positions) {
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

  void rank(std::uint64_t r) { tally.ranks.add(r); }
  void position(int item, int p) {
    ++tally.positions.counts()[static_cast<std::size_t>(item) * tally.positions.k() + p];
  }
  // A hand histogram is large (2,598,960 bins for poker, 21 MB) and its bins
  // are hit at random, so nearly every count misses the cache: each bin is
  // prefetched when its hand comes and counted kHandDelay hands later, so
  // that the misses overlap.
  void hand(std::uint64_t r) {
    __builtin_prefetch(&tally.hands[r], 1);
    std::uint64_t& slot = pending_[held_++ % kHandDelay];
    if (held_ > kHandDelay) ++tally.hands[slot];
    slot = r;
  }
  // Brings the Tally up to date: the hands still in flight, the words and draws.
  void flush() {
    const std::uint64_t waiting = std::min<std::uint64_t>(held_, kHandDelay);
    for (std::uint64_t i = 0; i < waiting; ++i) ++tally.hands[pending_[(held_ - 1 - i) % kHandDelay]];
    held_ = 0;
    tally.words += words_;
    tally.draws += draws_;
    words_ = draws_ = 0;
  }
  void category(int c) { ++tally.categories[static_cast<std::size_t>(c)]; }
  void usage(std::uint64_t words, std::uint64_t draws) {
    words_ += words;
    draws_ += draws;
  }

  Tally& tally;

 private:
  static constexpr std::uint64_t kHandDelay = 16;
  std::uint64_t pending_[kHandDelay] = {};
  std::uint64_t held_ = 0;  // hands seen since the last flush
  std::uint64_t words_ = 0, draws_ = 0;  // since the last flush
};

// The scalar reference, one trial at a time: every other path is checked
// against these bit for bit. [begin, end) may end at 2^64 (end == 0).
void tally_trials(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally);
void sample_trials(const Job& job, std::uint64_t begin, std::uint64_t end, std::uint16_t* out);

// The same through the job's decision table, one trial at a time.
void tally_table_trials(const Job& job, const DecisionTableView& table, std::uint64_t begin, std::uint64_t end,
                        Tally& tally);
void sample_table_trials(const Job& job, const DecisionTableView& table, std::uint64_t begin, std::uint64_t end,
                         std::uint16_t* out);

}  // namespace melange
