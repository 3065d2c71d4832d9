// The workers of a tally run: one backend, one tally per worker kept across
// calls, so that a run in segments (checkpoint.cpp) reuses them instead of
// allocating n! bins a segment. Not part of the public API.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "melange/engine.hpp"
#include "melange/internal/bytes_text.hpp"
#include "backend_choice.hpp"

namespace melange::internal {

class TallyWorkers {
 public:
  // Validates the job, picks its backend and plans the workers under the
  // memory cap; throws UsageError before any trial runs.
  TallyWorkers(const Job& job, const RunOptions& options);

  // Adds trials [first, first + count) of the job to the workers' tallies.
  void run(std::uint64_t first, std::uint64_t count,
           const std::function<void(std::uint64_t, std::uint64_t)>& progress);
  // Adds every worker's tally to `total` and zeroes them.
  void fold_into(Tally& total);
  // The run's result: every worker's tally merged.
  RunResult result() &&;

  const WorkerPlan& plan() const { return plan_; }

 private:
  Job job_;
  BackendChoice choice_;
  WorkerPlan plan_;
  std::function<bool()> cancelled_;  // RunOptions::cancelled
  std::vector<std::optional<Tally>> tallies_;  // made by each worker on its first unit
};

WorkerPlan plan_for(const Job& job, const RunOptions& options, const Backend& backend);

}  // namespace melange::internal
