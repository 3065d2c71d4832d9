// The engine splits a job over threads and a backend and merges the tallies.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "melange/backend.hpp"
#include "melange/job.hpp"

namespace melange {

struct RunOptions {
  // auto picks the fastest available backend that supports the job.
  std::optional<BackendKind> backend;  // nullopt = auto
  int threads = 1;
  // Bytes the run's tallies may hold, every worker's together (each worker
  // keeps its own tally and they are merged at the end). The engine runs
  // fewer workers than `threads` when they would not fit, and refuses a job
  // whose single tally does not.
  std::uint64_t memory_cap = kDefaultMemoryCap;
  // Called from the calling thread about ten times a second: (done, total).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

struct RunResult {
  Tally tally;
  BackendKind backend;  // the backend that ran the trials
  std::string note;     // e.g. why the requested backend was not used
  int threads;
  std::string threads_note;  // set when the memory cap cut the thread count
};

// How many workers a run gets under the memory cap, and why, checked before
// any trial runs. Throws UsageError when one worker's tally does not fit.
struct WorkerPlan {
  int workers = 1;
  std::uint64_t bytes = 0;  // the tallies of all workers together
  std::string note;         // set when fewer workers than asked
};
WorkerPlan plan_workers(const Job& job, const RunOptions& options);

RunResult run(const Job& job, const RunOptions& options = {});

struct SampleResult {
  std::vector<std::uint16_t> permutations;  // trials * n items, row-major: trial, then position
  BackendKind backend;
  std::string note;
  int threads;
};

// The permutations of trials [first, first + trials).
SampleResult sample(const Job& job, const RunOptions& options = {});

}  // namespace melange
