// The pieces `melange merge` joins, read in two steps so that memory stays
// within the cap whatever their size: first each piece's job and range (the
// count arrays of a JSON result passed over, a checkpoint's header alone),
// then, once the plan fits, each piece's counts, streamed into a tally.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "melange/job.hpp"

namespace melange::cli {

struct MergePiece {
  std::string path;
  bool checkpoint = false;
  Job job;  // first and trials: this piece's range
  std::uint64_t words = 0, draws = 0;
  std::string backend;
  int threads = 1;
  std::vector<std::string> left_out;     // the audit's notes on tallies it left out
  std::vector<std::uint64_t> categories;  // a JSON result's poker categories (ten counts)
  std::uint64_t file_bytes = 0;
};

// The piece's job and range; UsageError naming the file when it is not an
// `audit --json` result or a checkpoint, or holds a value out of range.
MergePiece read_piece_job(const std::string& path);

// The piece's tally, every count checked (whole, at most 2^64 - 1, as many
// as its job has, adding up to its trials); at most `memory_cap` bytes.
Tally read_piece_tally(const MergePiece& piece, std::uint64_t memory_cap);

}  // namespace melange::cli
