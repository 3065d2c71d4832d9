// Runs that outlive a sitting (contract §6). A job runs in segments
// over its trial range, in order, so that what is done is always a prefix of
// the range; a checkpoint holds the job, that prefix's length and its
// tallies, and a run resumed from it ends with the tally an uninterrupted run
// gives (tallies are sums: the split changes nothing).
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

#include "melange/engine.hpp"
#include "melange/job.hpp"
#include "melange/ranks.hpp"

namespace melange {

// The job and the tally of its first tally.trials trials.
struct Checkpoint {
  Job job;
  Tally tally;
};

// A text header that names the job (every field that defines its bits and
// tallies), then the tallies as little-endian 64-bit counts.
void write_checkpoint(std::ostream& out, const Job& job, const Tally& done);
// Throws UsageError naming `name` when `in` is not a checkpoint melange
// wrote, or one cut short or damaged (its checksum must match and its counts
// add up), or one whose tallies would take more than `memory_cap` bytes;
// sizes are checked against the file's length before anything is allocated.
Checkpoint read_checkpoint(std::istream& in, const std::string& name, std::uint64_t memory_cap);
// Its header alone: the job, and tally.trials, words and draws (no counts,
// nothing checked against them), for a caller that plans before it reads.
Checkpoint read_checkpoint_job(std::istream& in, const std::string& name);

// The first field in which `ours` and `theirs` differ, as "seed 5 here, 7
// in the checkpoint" (with the default names); empty when they are the same
// job: the seed, algorithm, n, k, weights, method, bits, first, trials and
// the tallies kept (a checkpoint's stream version is checked on reading).
std::string job_difference(const Job& ours, const Job& theirs, const std::string& ours_name = "here",
                           const std::string& theirs_name = "in the checkpoint");

struct SegmentOptions {
  // Called with the tally of the prefix done (rank 0 only, under ranks)
  // every `every_seconds`, when stopped, and at the end; empty: none.
  std::function<void(const Tally&)> save;
  double every_seconds = 60;
  // Polled between segments (every quarter second or so): true stops the
  // run after a last save. Under ranks, any rank's stop stops them all.
  std::function<bool()> stop;
  // The ranks that share the job; nullptr: this process alone.
  Ranks* ranks = nullptr;
};

// Runs `job` from the end of `resume` (a tally of a prefix of its range; at
// rank 0 only, under ranks) to the end of its range, or until stop() says
// so. The result holds the prefix done (tally.trials < job.trials when
// stopped); under ranks it is the whole job's at rank 0 and meaningless on
// the others. Under ranks each segment is split into shares (share_of); a
// fault on one rank ends every rank: that rank rethrows its error, the
// others throw RanksFailed.
// The tally to resume from is moved in, not copied. A save that throws ends
// the run on every rank (as a fault does).
RunResult run_segments(const Job& job, const RunOptions& options, const SegmentOptions& segments,
                       std::optional<Tally> resume = std::nullopt);

}  // namespace melange
