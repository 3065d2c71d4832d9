// Merging results (contract §6): the results of one job over
// disjoint trial ranges whose union is contiguous, read from an audit's
// JSON documents or checkpoints, become the result of one run over the
// union. Tallies are sums, so the merged result is the one a single run
// gives. The pieces are read in two steps so that memory stays within the
// cap whatever their size: first each piece's job and range (its count
// arrays passed over, a checkpoint's header alone), then, once the plan
// fits, each piece's counts, streamed into a tally.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "melange/engine.hpp"
#include "melange/job.hpp"

namespace melange::report {

// One piece, as its first read found it: its job (first and trials: its
// range) and what else the document says.
struct MergePiece {
  std::string path;
  bool checkpoint = false;
  Job job;
  std::uint64_t words = 0, draws = 0;
  std::string backend;
  int threads = 1;
  std::vector<std::string> left_out;  // the audit's notes on tallies it left out
  // The law it was tested against (AuditReport::model: "" uniform), or
  // nullopt where the piece does not say (a checkpoint).
  std::optional<std::string> model;
  // The small labelled kinds' counts (JsonCounts::labelled), read with the job.
  std::array<std::vector<std::uint64_t>, kTallyKinds> labelled;
  std::uint64_t file_bytes = 0;
};

// The first step: the pieces' jobs and ranges, checked to be one job over
// ranges that join up, sorted by range, and the union's job, whose tallies
// fit the cap.
struct MergePlan {
  Job job;
  std::vector<MergePiece> pieces;
  std::uint64_t memory_cap = 0;
  // The law the pieces that name one agree on; nullopt where none does.
  // Pieces that name different laws are refused.
  std::optional<std::string> model;
};

struct MergedResult {
  Job job;        // the pieces' job over the union of their ranges
  RunResult run;  // the summed tally; backend "mixed" where the pieces' differ; a note naming the pieces
  // The first piece's notes on tallies its audit left out (its memory cap's
  // choice, which carries over as the audit wrote it).
  std::vector<std::string> left_out;
};

// Merges the results at `paths` (in any order). `memory_cap`: bytes the
// tallies may hold, the merged one and the piece being read. UsageError,
// naming the file, for a piece that is neither an audit's JSON result nor a
// checkpoint, holds a value out of range or counts that do not add up, for
// pieces of different jobs, ranges that overlap or leave a gap, and for
// tallies above the cap.
MergePlan plan_merge(const std::vector<std::string>& paths, std::uint64_t memory_cap);
// The second step: each piece's counts, streamed, checked and summed.
MergedResult merge(const MergePlan& plan);
// Both steps. A caller that has outputs to check before the counts are read
// (contract §7) takes them one at a time.
MergedResult merge_results(const std::vector<std::string>& paths, std::uint64_t memory_cap);

}  // namespace melange::report
