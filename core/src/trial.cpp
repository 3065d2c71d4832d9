#include "melange/trial.hpp"

#include <algorithm>
#include <vector>

#include "melange/rank.hpp"

namespace melange {

void tally_trials(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally) {
  const TrialJob tj = trial_job(job);
  with_algorithm(job.algorithm, [&](auto algo) {
    std::vector<std::uint16_t> items(job.n);
    TallyCounter counter{tally};
    CountingSink<TallyCounter> sink{tj, counter};
    for (std::uint64_t t = begin; t != end; ++t) run_trial<decltype(algo)::value>(tj, t, items.data(), sink);
  });
  tally.trials += end - begin;
}

namespace {

// Counts an outcome `weight` times.
struct WeightedCounter {
  Tally& tally;
  std::uint64_t weight;
  void rank(std::uint64_t r) { tally[TallyKind::ranks].add(r, weight); }
  void position(int item, int p) {
    TallyCounts& m = tally[TallyKind::positions];
    m.counts()[static_cast<std::size_t>(item) * m.k() + p] += weight;
  }
  void add(TallyKind kind, std::uint64_t bin) { tally[kind].add(bin, weight); }
};

}  // namespace

void derive_from_ranks(Tally& tally, Shape shape, TallySet kinds) {
  kinds.set(TallyKind::ranks, false);
  for (TallyKind kind : kAllTallyKinds)
    if (kinds.has(kind)) std::fill(tally[kind].counts().begin(), tally[kind].counts().end(), 0);
  const std::vector<std::uint64_t>& ranks = tally[TallyKind::ranks].counts();
  for (std::uint64_t r = 0; r < ranks.size(); ++r) {
    if (ranks[r] == 0) continue;
    WeightedCounter counter{tally, ranks[r]};
    AllTallyDefinitions::count(kinds, lehmer_unrank(r, shape.n), shape, counter);
  }
}

void sample_trials(const Job& job, std::uint64_t begin, std::uint64_t end, std::uint16_t* out) {
  const TrialJob tj = trial_job(job);
  with_algorithm(job.algorithm, [&](auto algo) {
    // The trial shuffles n items; the sink keeps its k (deals) or all n.
    std::vector<std::uint16_t> items(job.n);
    SampleSink sink{out};
    // Whole permutations are shuffled in place in their output row.
    for (std::uint64_t t = begin; t != end; ++t)
      run_trial<decltype(algo)::value>(tj, t, tj.k == tj.n ? sink.out : items.data(), sink);
  });
}

void tally_table_trials(const Job& job, const DecisionTableView& table, std::uint64_t begin, std::uint64_t end,
                        Tally& tally) {
  const TrialJob tj = trial_job(job);
  TallyCounter counter{tally};
  for (std::uint64_t t = begin; t != end; ++t) count_table_trial(tj, table, t, counter);
  tally.trials += end - begin;
}

void sample_table_trials(const Job& job, const DecisionTableView& table, std::uint64_t begin, std::uint64_t end,
                         std::uint16_t* out) {
  const TrialJob tj = trial_job(job);
  for (std::uint64_t t = begin; t != end; ++t, out += job.n) sample_table_trial(tj, table, t, out);
}

}  // namespace melange
