// The reference every `melange bench` row is shown against: the shuffle a
// C++ programmer writes with the standard library, std::shuffle over
// std::mt19937_64, keeping the same tallies as the row's job (a rank
// histogram, an item x position matrix, or the permutations written to
// memory as `sample` writes them), on the same number of threads.
#pragma once

#include <cstdint>

namespace melange::cli {

struct PeerTallies {
  enum class Kind { rank_histogram, position_matrix, rows };
  int n = 4;
  Kind kind = Kind::rank_histogram;
  // rows: trial t's permutation goes to rows_out[t n, t n + n), memory the
  // caller holds for the trials of a run (as melange fills a caller's buffer).
  std::uint16_t* rows_out = nullptr;
};

// Runs `trials` shuffles split over `threads` threads; returns a checksum of
// the tallies, so that the work cannot be optimized away.
std::uint64_t run_std_shuffle(const PeerTallies& job, std::uint64_t trials, int threads);

}  // namespace melange::cli
