// The exact distribution of a shuffle algorithm, found by walking every random
// outcome: every value of every bounded draw with its exact weight under the
// method and source width, and both sides of every comparator coin. The walk
// runs the same algorithm definitions as the sampler (algorithms.hpp).
#pragma once

#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/stats.hpp"

namespace melange {

using Rational = boost::multiprecision::cpp_rational;

struct ExactDistribution {
  Algorithm algorithm;
  BoundedSpec spec;
  int n;
  int k;                                 // items dealt (partial); n for whole permutations
  std::vector<Rational> probability;     // by Lehmer rank (n! entries) or deal rank; sums to 1
  std::vector<std::uint64_t> rank_paths; // leaves of the walk that end at each rank
  std::uint64_t paths = 0;               // leaves of the walk
  bool equally_likely = false;           // every leaf has the same probability
  Rational mean_draws;                   // bounded draws plus coins per trial
  double mean_words = 0;                 // source words per trial, rejected ones included
  Shape shape{0, 0};                     // the shape walked, a card shuffle's parameters with it (no weights)

  double probability_of(std::uint64_t rank) const;
  std::vector<double> probabilities() const;  // as doubles, by rank
  // Exact probability that `item` ends at `position` (a deal's slot), as
  // doubles: n x k, row = item.
  std::vector<double> position_probabilities() const;
  // The law of the item x position matrix, pairs of cells included.
  PositionLaw position_law() const;
  // A deal's hands (k < n): by colex rank, C(n, k) entries, summed over the
  // deals of each hand.
  std::vector<Rational> hand_probabilities() const;
};

// Throws UsageError unless melange can give `a`'s exact law: every
// algorithm has one but weighted-int-power, whose keys come from 63-bit
// words (the law it claims, Plackett-Luce's, is `weighted`'s). The one rule
// every front end applies before an exact model or `exact`.
void check_exact_law(Algorithm a);

// Largest n the walk accepts: n! bins and the number of leaves stay small.
int max_exact_items(Algorithm a);
// The card shuffles: the most draw sequences (riffle: 2^(riffles n); shelf:
// (2 shelves)^(passes n)) the walk accepts, as many as naive-swap's walk at
// n = 9 (9^9); past it the closed forms (riffle_law, shelf_law in laws.hpp)
// give every permutation's probability.
inline constexpr std::uint64_t kMaxExactCardPaths = 387'420'489;
// Partial deals: the most deal ranks (n!/(n-k)! bins) the walk accepts.
inline constexpr std::uint64_t kMaxExactDeals = std::uint64_t{1} << 21;

// Throws UsageError when n is above max_exact_items(a) or the method is invalid.
// `progress(done, total)` is called, from one thread at a time, as the
// subtrees below the first draw's outcomes are finished, and again with
// the same counts every 65,536 paths within one; an exception it throws
// ends the walk and reaches the caller.
ExactDistribution exact_distribution(
    Algorithm a, int n, BoundedSpec spec = {}, int threads = 1,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});
// The Plackett-Luce law of the weighted order (contract §3): the
// order sigma has probability prod_j w_sigma_j / (w_sigma_j + .. + w_sigma_n-1),
// exactly, for n <= max_exact_items(Algorithm::weighted). It is `weighted`'s
// exact law, and the law `weighted-int-power` claims to follow.
ExactDistribution plackett_luce_distribution(Algorithm a, const std::vector<Rational>& weights);
// A weight written as a decimal ("2.5", "1e-3", "40") as an exact rational;
// UsageError when it is not one, or not above 0.
Rational decimal_rational(const std::string& text);

// The same for a deal of s.k of s.n items (partial), or a card shuffle's
// parameters (s.riffles; s.shelves and s.passes);
// with s.k = s.n the above. Deals: at most kMaxExactDeals ranks.
ExactDistribution exact_distribution(
    Algorithm a, Shape s, BoundedSpec spec = {}, int threads = 1,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress = {});

}  // namespace melange
