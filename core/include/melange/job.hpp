// A job: which shuffles to run and what to tally. Its result is a pure
// function of the job (DESIGN.md section 1), whatever backend or thread count
// runs it.
#pragma once

#include <cstdint>
#include <string>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/histogram.hpp"
#include "melange/limits.hpp"

namespace melange {


struct Job {
  std::uint64_t seed = kDefaultSeed;
  Algorithm algorithm = Algorithm::fisher_yates;
  BoundedSpec spec{};
  int n = 4;
  std::uint64_t first = 0;   // global index of the first trial
  std::uint64_t trials = 0;  // trial t uses stream t, for t in [first, first + trials)
  bool rank_histogram = true;
  bool position_matrix = false;
};

// Throw UsageError with a message that says which limit was hit and what to do.
void validate_draws(const Job& job);  // n, trial range and bounded method
void validate(const Job& job);        // the above and the tallies

// Largest n (at most kMaxRankItems) whose rank histogram fits `cap` bytes.
int max_rank_items(std::uint64_t cap);

// Bytes one Tally::for_job(job) holds: 8 n! for the ranks, 8 n^2 for the positions.
std::uint64_t tally_bytes(const Job& job);

// What a range of trials produced. Merging is exact integer addition, so any
// split of the trial range gives the same tally.
struct Tally {
  RankHistogram ranks;        // empty unless job.rank_histogram
  PositionMatrix positions;   // empty unless job.position_matrix
  std::uint64_t trials = 0;
  std::uint64_t words = 0;    // stream words consumed, rejected ones included
  std::uint64_t draws = 0;    // bounded draws and comparator calls made

  static Tally for_job(const Job& job);
  void merge(const Tally& other);
  friend bool operator==(const Tally&, const Tally&) = default;
};

}  // namespace melange
