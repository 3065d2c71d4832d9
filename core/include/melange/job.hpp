// A job: which shuffles to run and what to tally. Its result is a pure
// function of the job (contract §1), whatever backend or thread count
// runs it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/histogram.hpp"
#include "melange/limits.hpp"
#include "melange/tallies.hpp"

namespace melange {


struct Job {
  std::uint64_t seed = kDefaultSeed;
  Algorithm algorithm = Algorithm::fisher_yates;
  BoundedSpec spec{};
  int n = 4;
  int k = 0;                 // partial: items dealt, 1..n; 0 (or n) for the whole permutation
  std::vector<double> weights{};  // the weighted orders: item i's weight, finite and > 0; n of them
  int riffles = 0;           // riffle: 1..kMaxRiffles riffles (a 2^riffles-shuffle); 0 elsewhere
  int shelves = 0;           // shelf: 2..kMaxShelves shelves; 0 elsewhere
  int passes = 0;            // shelf: 1..kMaxPasses passes through the machine; 0 elsewhere
  std::uint64_t first = 0;   // global index of the first trial
  std::uint64_t trials = 0;  // trial t uses stream t, for t in [first, first + trials)
  // What to tally (tallies.hpp). For a deal (k < n) the rank histogram
  // counts deal ranks (n!/(n-k)! bins) and the position matrix is item x
  // slot (n x k).
  TallySet tallies{TallyKind::ranks};
};

// The items a trial shuffles and the last k positions it hands on.
inline Shape shape_of(const Job& job) {
  return Shape{job.n,       job.k > 0 ? job.k : job.n, job.weights.empty() ? nullptr : job.weights.data(),
               job.riffles, job.shelves, job.passes};
}
// The job of no trials that shuffles as `s` says, shape_of's inverse (the
// weights are not a Shape's to hand on).
inline Job shuffle_job(Algorithm a, BoundedSpec spec, Shape s) {
  Job job;
  job.algorithm = a;
  job.spec = spec;
  job.n = s.n;
  job.k = s.k;
  job.riffles = s.riffles;
  job.shelves = s.shelves;
  job.passes = s.passes;
  return job;
}
// True when the job deals k < n items rather than shuffling all n.
inline bool is_deal(const Job& job) { return !shape_of(job).whole(); }

// Throw UsageError with a message that says which limit was hit and what to do.
void validate_draws(const Job& job);  // n, trial range and bounded method
void validate(const Job& job);        // the above and the tallies

// Largest n (at most kMaxRankItems) whose rank histogram fits `cap` bytes.
int max_rank_items(std::uint64_t cap);

// Bytes one Tally::for_job(job) holds: 8 bytes a bin of each kind's counts
// (8 n! for the ranks, 8 n^2 for the positions).
std::uint64_t tally_bytes(const Job& job);

// What a range of trials produced. Merging is exact integer addition, so any
// split of the trial range gives the same tally.
struct Tally {
  std::array<TallyCounts, kTallyKinds> by_kind;  // empty unless the job tallies the kind
  std::uint64_t trials = 0;
  std::uint64_t words = 0;    // stream words consumed, rejected ones included
  std::uint64_t draws = 0;    // bounded draws and comparator calls made

  TallyCounts& operator[](TallyKind k) { return by_kind[static_cast<std::size_t>(k)]; }
  const TallyCounts& operator[](TallyKind k) const { return by_kind[static_cast<std::size_t>(k)]; }

  static Tally for_job(const Job& job);
  void merge(const Tally& other);
  friend bool operator==(const Tally&, const Tally&) = default;
};

// Why `t` cannot be the tally of `trials` trials of `job`, or "" when it
// can, by each kind's CountsLayout: each histogram sums to the trials, each
// position (slot) of a matrix sums to the trials and each item to at most
// that (to exactly that for a whole permutation). Sums are taken without wrapping, so no count near 2^64
// can cancel another. What a file read back (a checkpoint, a result to
// merge) must pass before it is used.
std::string tally_inconsistency(const Job& job, const Tally& t, std::uint64_t trials);

}  // namespace melange
