// The trial body (DESIGN.md section 5): source -> algorithm -> sink. Every
// place that runs trials runs this: the scalar reference loop below, the
// vector kernels' fall-back batches, the CUDA threads, and the exact
// enumerator (with a path walker for the source).
//
// A sink is called as sink(items, n, source) once the algorithm is done.
// Adding a tally kind: a counter method here (count_trial) and the places
// that report it.
#pragma once

#include <cstdint>

#include "melange/algorithms.hpp"
#include "melange/decision_table.hpp"
#include "melange/config.hpp"
#include "melange/job.hpp"
#include "melange/rank.hpp"
#include "melange/source.hpp"

namespace melange {

// What one trial needs to know of its job, plain enough for a GPU thread.
struct TrialJob {
  std::uint64_t seed;
  BoundedSpec spec;
  int n;
  bool ranks;      // tally the Lehmer rank
  bool positions;  // tally the item x position matrix
};

inline TrialJob trial_job(const Job& job) {
  return TrialJob{job.seed, job.spec, job.n, job.rank_histogram, job.position_matrix};
}

// Identity order, algorithm A drawing from `src`, then the sink. `items` is a
// pointer to n items, or a container of them with items[i] (packed_items.hpp).
template <Algorithm A, class Items, RandomSource Source, class Sink>
MELANGE_HD inline void trial_body(Items&& items, int n, Source& src, Sink& sink) {
  iota_items(items, n);
  shuffle_as<A>(items, n, src);
  sink(items, n, src);
}

// Trial t of a job: stream t through the job's bounded method (Set: which
// methods the source is compiled for; the job's must be among them).
template <Algorithm A, MethodSet Set = MethodSet::any, class Items, class Sink>
MELANGE_HD inline void run_trial(const TrialJob& job, std::uint64_t t, Items&& items, Sink& sink) {
  BasicPhiloxSource<Set> src(job.seed, t, job.spec, A, job.n);
  trial_body<A>(items, job.n, src, sink);
}

// Reports a finished trial to a counter with rank(r), position(item, p) and
// usage(words, draws): the tallies the job asked for, and what the trial read
// (stream words) and asked for (bounded draws and comparator coins).
template <class Items, class Counter>
MELANGE_HD inline void count_trial(const TrialJob& job, const Items& items, std::uint64_t words,
                                   std::uint64_t draws, Counter& counter) {
  if (job.ranks) counter.rank(lehmer_rank(items, job.n));
  if (job.positions)
    for (int p = 0; p < job.n; ++p) counter.position(items[p], p);
  counter.usage(words, draws);
}

// The sink that counts: a trial's tallies go to `counter`.
template <class Counter>
struct CountingSink {
  const TrialJob& job;
  Counter& counter;
  template <class Items, class Source>
  MELANGE_HD void operator()(const Items& items, int, const Source& src) {
    count_trial(job, items, src.words_consumed(), src.draws_made(), counter);
  }
};

// The sink that keeps the permutation: out[0..n), then out moves on a row.
struct SampleSink {
  std::uint16_t* out;
  template <class Items, class Source>
  MELANGE_HD void operator()(const Items& items, int n, const Source&) {
    for (int p = 0; p < n; ++p) out[p] = static_cast<std::uint16_t>(items[p]);
    out += n;
  }
};

// Trial t through the job's decision table (decision_table.hpp): the same
// tallies, words and draws as run_trial with a CountingSink.
template <class Counter>
MELANGE_HD inline void count_table_trial(const TrialJob& job, const DecisionTableView& table, std::uint64_t t,
                                         Counter& counter) {
  const bool batched = job.spec.method == Method::batched;
  PhiloxStream stream(job.seed, t);
  const std::uint32_t index = table_index(stream, table, batched);
  const std::uint32_t meta = table.meta[index];
  if (job.ranks) counter.rank(table_rank(meta));
  if (job.positions) {
    const std::uint32_t perm = table.perms[index];
    for (int p = 0; p < job.n; ++p) counter.position(static_cast<int>((perm >> (4 * p)) & 15u), p);
  }
  const std::uint32_t draws = table_draws(meta);
  // A coin index may read past the coins used: the trial consumed only those.
  const bool coin_a_word = table.kind == TableIndex::coins && !batched;
  counter.usage(coin_a_word ? draws : stream.words_consumed(), draws);
}

// The permutation of trial t through the table, into out[0..n).
MELANGE_HD inline void sample_table_trial(const TrialJob& job, const DecisionTableView& table, std::uint64_t t,
                                          std::uint16_t* out) {
  PhiloxStream stream(job.seed, t);
  const std::uint32_t perm = table.perms[table_index(stream, table, job.spec.method == Method::batched)];
  for (int p = 0; p < job.n; ++p) out[p] = static_cast<std::uint16_t>((perm >> (4 * p)) & 15u);
}

// The host's counter: a Tally.
struct TallyCounter {
  Tally& tally;
  void rank(std::uint64_t r) { tally.ranks.add(r); }
  void position(int item, int p) {
    ++tally.positions.counts()[static_cast<std::size_t>(item) * tally.positions.n() + p];
  }
  void usage(std::uint64_t words, std::uint64_t draws) {
    tally.words += words;
    tally.draws += draws;
  }
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
