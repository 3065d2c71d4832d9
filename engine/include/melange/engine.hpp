// The engine: picks a backend from the table (backend_table.hpp), splits a
// job's trial range over threads, and merges the tallies exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "melange/backend_table.hpp"
#include "melange/job.hpp"

namespace melange {

namespace internal {
class ContextBackends;
}

// What a caller keeps across many calls of run(), sample(), fill_records()
// and for_each_piece() (RunOptions::context): the backends made so far, each
// with what it built on first use (the decision tables of the sort
// one-liners and of batched Fisher-Yates up to n = 8, which take
// milliseconds), so that a call of a few thousand trials costs what its
// trials cost. No global state: a Context is its holder's, shared by
// nothing else. Calls may use one Context from several threads at once.
class Context {
 public:
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  internal::ContextBackends& backends() const { return *backends_; }

 private:
  std::unique_ptr<internal::ContextBackends> backends_;
};

struct RunOptions {
  // "auto" picks the fastest available backend that supports the job; else
  // a backend's name ("scalar", "simd", "cuda") or an architecture that pins
  // its backend ("avx2"). See backend_choices().
  std::string backend = "auto";
  int threads = 1;
  // Bytes the run's tallies may hold, every worker's together (each worker
  // keeps its own tally and they are merged at the end). The engine runs
  // fewer workers than `threads` when they would not fit, and refuses a job
  // whose single tally does not.
  std::uint64_t memory_cap = kDefaultMemoryCap;
  // Called from the calling thread about ten times a second: (done, total).
  std::function<void(std::uint64_t, std::uint64_t)> progress;
  // Polled by every worker before each unit of work (any thread may call
  // it): true ends the run early with Cancelled, the caller's interrupt.
  std::function<bool()> cancelled;
  // The caller's Context, kept across calls; null: a fresh one for this call.
  Context* context = nullptr;
};

struct RunResult {
  Tally tally;
  std::string backend;  // the backend that ran the trials: "scalar", "simd", "cuda"
  std::string arch;     // its architecture, where it has several ("avx2"); else ""
  std::string note;     // e.g. why the requested backend was not used
  int threads = 1;           // on each rank
  std::string threads_note;  // set when the memory cap cut the thread count
  int ranks = 1;             // processes that shared the trials (MPI ranks)
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
  std::string backend;
  std::string arch;
  std::string note;
  int threads = 1;
};

// The permutations of trials [first, first + trials).
SampleResult sample(const Job& job, const RunOptions& options = {});

}  // namespace melange
