// The references every `melange bench` row is shown against, each keeping
// the same tallies as the row's job (a rank histogram, an item x position
// matrix, or the permutations written to memory as `sample` writes them),
// on the same number of threads:
// - std_shuffle: what a C++ programmer writes with the standard library,
//   std::shuffle over std::mt19937_64;
// - batched: the fastest scalar shuffle known, Fisher-Yates whose indices
//   are drawn several to a 64-bit word by batched ranged integers
//   (Brackett-Rozinsky and Lemire 2024) from lehmer64, a 128-bit
//   multiplicative generator whose step is one multiply.
#pragma once

#include <cstdint>

namespace melange::cli {

struct PeerTallies {
  enum class Kind { rank_histogram, position_matrix, rows };
  enum class Shuffler { std_shuffle, batched };
  int n = 4;
  Kind kind = Kind::rank_histogram;
  // rows: trial t's permutation goes to rows_out[t n, t n + n), memory the
  // caller holds for the trials of a run (as melange fills a caller's buffer).
  std::uint16_t* rows_out = nullptr;
  Shuffler shuffler = Shuffler::std_shuffle;
};

// Runs `trials` shuffles split over `threads` threads; returns a checksum of
// the tallies, so that the work cannot be optimized away.
std::uint64_t run_peer(const PeerTallies& job, std::uint64_t trials, int threads);

// The indices of one Fisher-Yates shuffle of n items by batched ranged
// integers over lehmer64, for tests: swaps[i] is the j drawn for position
// n - 1 - i (uniform in [0, n - 1 - i]), n - 1 of them.
void batched_fisher_yates_indices(int n, std::uint64_t seed, std::uint32_t* swaps);

}  // namespace melange::cli
