#include "melange/trial.hpp"

#include <algorithm>
#include <vector>

#include "melange/rank.hpp"

namespace melange {

namespace {

// A job with serial kinds: each trial is counted against the trial before
// it (t - 1, wrapping below 0), which the range's first trial re-runs, so
// that any split of the trials (threads, chunks, ranks, checkpoints)
// counts every pair once, and a range's pairs do not depend on where it
// starts.
void tally_serial_trials(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally) {
  const TrialJob tj = trial_job(job);
  const auto n = static_cast<std::size_t>(tj.n), k = static_cast<std::size_t>(tj.k);
  with_algorithm(job.algorithm, [&](auto algo) {
    constexpr Algorithm A = decltype(algo)::value;
    std::vector<std::uint16_t> items(n), before(k), record(k), scratch(2 * n);
    SampleSink first{before.data()};
    run_trial<A>(tj, begin - 1, items.data(), first);
    TallyCounter counter{tally};
    auto sink = [&](const auto& shuffled, Shape s, const auto& src) {
      count_trial(tj, shuffled, src.words_consumed(), src.draws_made(), counter);
      const auto dealt = dealt_items(shuffled, s);
      for (std::size_t p = 0; p < k; ++p) record[p] = static_cast<std::uint16_t>(dealt[static_cast<int>(p)]);
      count_serial(tj, before.data(), record.data(), scratch.data(), counter);
      before.swap(record);
    };
    for (std::uint64_t t = begin; t != end; ++t) run_trial<A>(tj, t, items.data(), sink);
  });
  tally.trials += end - begin;
}

// Under batched, the schedule's batches planned once for the job rather
// than cut, with a division each, in every trial: the same bits. Empty where
// there is no plan.
std::vector<PlannedBatch> batch_plan(const Job& job) {
  return job.spec.method == Method::batched ? planned_batches(job.algorithm, shape_of(job))
                                            : std::vector<PlannedBatch>{};
}

// Trials [begin, end) of A into sink, trial t's items at items_of(), with
// the plan where there is one.
template <Algorithm A, class ItemsOf, class Sink>
void run_trials(const TrialJob& tj, const std::vector<PlannedBatch>& plan, std::uint64_t begin, std::uint64_t end,
                ItemsOf items_of, Sink& sink) {
  if (plan.empty())
    for (std::uint64_t t = begin; t != end; ++t) run_trial<A>(tj, t, items_of(), sink);
  else
    for (std::uint64_t t = begin; t != end; ++t) run_trial<A>(tj, t, items_of(), sink, BatchesAt{plan.data()});
}

}  // namespace

void TallyCounter::flush() {
  const std::uint64_t waiting = std::min<std::uint64_t>(held_, kDelay);
  for (std::uint64_t i = 0; i < waiting; ++i) ++*pending_[(held_ - 1 - i) % kDelay];
  held_ = 0;
  tally.words += words_;
  tally.draws += draws_;
  words_ = draws_ = 0;
}

void count_items(const TrialJob& job, const std::uint16_t* items, TallyCounter& counter) {
  count_outcome(job, items, counter);
}

ReferenceTrials::ReferenceTrials(const Job& job) : job_(job), trial_job_(trial_job(job)), plan_(batch_plan(job)) {}

void ReferenceTrials::tally(std::uint64_t begin, std::uint64_t end, Tally& tally) const {
  if (has_serial_kinds(job_.tallies)) return tally_serial_trials(job_, begin, end, tally);
  with_algorithm(job_.algorithm, [&](auto algo) {
    std::vector<std::uint16_t> items(job_.n);
    TallyCounter counter{tally};
    CountingSink<TallyCounter> sink{trial_job_, counter};
    run_trials<decltype(algo)::value>(trial_job_, plan_, begin, end, [&] { return items.data(); }, sink);
  });
  tally.trials += end - begin;
}

void ReferenceTrials::sample(std::uint64_t begin, std::uint64_t end, std::uint16_t* out) const {
  with_algorithm(job_.algorithm, [&](auto algo) {
    // The trial shuffles n items; the sink keeps its k (deals) or all n.
    std::vector<std::uint16_t> items(job_.n);
    SampleSink sink{out};
    // Whole permutations are shuffled in place in their output row.
    run_trials<decltype(algo)::value>(
        trial_job_, plan_, begin, end, [&] { return trial_job_.k == trial_job_.n ? sink.out : items.data(); }, sink);
  });
}

ReferenceTrials::Consumed ReferenceTrials::redo(std::uint64_t t, std::uint16_t* out) const {
  Consumed used;
  with_algorithm(job_.algorithm, [&](auto algo) {
    auto sink = [&](const auto& items, Shape s, const auto& src) {
      SampleSink<std::uint16_t>{out}(items, s, src);
      used = {src.words_consumed(), src.draws_made()};
    };
    run_trials<decltype(algo)::value>(trial_job_, plan_, t, t + 1, [&] { return out; }, sink);
  });
  return used;
}

void tally_trials(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally) {
  ReferenceTrials(job).tally(begin, end, tally);
}

void sample_trials(const Job& job, std::uint64_t begin, std::uint64_t end, std::uint16_t* out) {
  ReferenceTrials(job).sample(begin, end, out);
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
    RecordTallyDefinitions::count(kinds, lehmer_unrank(r, shape.n), shape, counter);
  }
}

void count_rank_pairs(const Job& job, const std::vector<std::uint64_t>& pairs, Tally& tally) {
  const TrialJob tj = trial_job(job);
  const Shape s = tj.shape();
  const std::uint64_t orders = factorial(s.n);
  const auto n = static_cast<std::size_t>(s.n);
  std::vector<std::uint16_t> before(n), record(n), scratch(2 * n);
  for (std::uint64_t cell = 0; cell < pairs.size(); ++cell) {
    if (pairs[cell] == 0) continue;
    const std::vector<int> a = lehmer_unrank(cell / orders, s.n), b = lehmer_unrank(cell % orders, s.n);
    std::copy(a.begin(), a.end(), before.begin());
    std::copy(b.begin(), b.end(), record.begin());
    WeightedCounter counter{tally, pairs[cell]};
    RecordTallyDefinitions::count(job.tallies, record.data(), s, counter);
    count_serial(tj, before.data(), record.data(), scratch.data(), counter);
  }
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
