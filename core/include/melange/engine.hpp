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
  // Called from the calling thread about ten times a second: (done, total).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
};

struct RunResult {
  Tally tally;
  BackendKind backend;  // the backend that ran the trials
  std::string note;     // e.g. why the requested backend was not used
  int threads;
};

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
