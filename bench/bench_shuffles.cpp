// Shuffles per second: each algorithm x n x backend, one thread, as audits
// (rank histogram for n <= 8, position matrix above).
#include <benchmark/benchmark.h>

#include "melange/engine.hpp"
#include "melange/trial.hpp"

namespace {

void BM_Audit(benchmark::State& state) {
  melange::Job job;
  job.algorithm = static_cast<melange::Algorithm>(state.range(0));
  job.n = static_cast<int>(state.range(1));
  job.tallies.set(melange::TallyKind::ranks, job.n <= 8);
  job.tallies.set(melange::TallyKind::positions, job.n > 8);
  job.trials = job.n <= 8 ? 1u << 22 : 1u << 18;
  melange::RunOptions options;
  options.backend = state.range(2) == 0 ? "scalar" : "simd";
  options.threads = 1;
  std::uint64_t first = 0;
  std::string used;
  for (auto _ : state) {
    job.first = first;
    const melange::RunResult r = melange::run(job, options);
    used = r.arch.empty() ? r.backend : r.backend + " " + r.arch;
    benchmark::DoNotOptimize(r.tally.trials);
    first += job.trials;
  }
  state.SetItemsProcessed(state.iterations() * job.trials);
  state.SetLabel(std::string(melange::algorithm_name(job.algorithm)) + " n=" +
                 std::to_string(job.n) + " " + used);
}

void Args(benchmark::internal::Benchmark* b) {
  for (long algo = 0; algo < static_cast<long>(std::size(melange::kAllAlgorithms)); ++algo)
    for (long n : {4, 8, 13, 52}) {
      for (long backend : {0, 1}) b->Args({algo, n, backend});
    }
}
BENCHMARK(BM_Audit)->Apply(Args)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// The reference loop (trial.hpp's tally_trials): every algorithm coin by coin
// or draw by draw, no decision table, no lanes. compare.sh sets the sort
// one-liners' decision tables against it.
void BM_ReferenceLoop(benchmark::State& state) {
  melange::Job job;
  job.algorithm = static_cast<melange::Algorithm>(state.range(0));
  job.n = static_cast<int>(state.range(1));
  constexpr std::uint64_t kTrials = 1u << 20;
  std::uint64_t first = 0;
  for (auto _ : state) {
    melange::Tally tally = melange::Tally::for_job(job);
    melange::tally_trials(job, first, first + kTrials, tally);
    benchmark::DoNotOptimize(tally.words);
    first += kTrials;
  }
  state.SetItemsProcessed(state.iterations() * kTrials);
  state.SetLabel(std::string(melange::algorithm_name(job.algorithm)) + " n=" + std::to_string(job.n));
}
BENCHMARK(BM_ReferenceLoop)
    ->Args({static_cast<long>(melange::Algorithm::sort_binary_insertion), 4})
    ->Args({static_cast<long>(melange::Algorithm::sort_v8_timsort), 4})
    ->Unit(benchmark::kMillisecond);

}  // namespace
