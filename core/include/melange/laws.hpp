// Exact laws of the statistics the stream tests count, as rationals
// (Boost.Multiprecision), for any size melange tallies: the tallies'
// fair laws and the tests' means and variances are read off them.
#pragma once

#include <cstdint>
#include <vector>

#include "melange/exact.hpp"

namespace melange {

// The rising sequences R of a uniform permutation of n items (1 <= n <=
// 1024): entry r is P(R = r + 1) = A(n, r) / n!, A the Eulerian numbers
// (permutations with r descents), mean (n + 1) / 2, variance (n + 1) / 12
// for n >= 2.
std::vector<Rational> eulerian_law(int n);
// The same as doubles, each the exact ratio A(n, r) / n! rounded once
// (without the rationals' reduction, which costs more than the numbers).
std::vector<double> eulerian_probabilities(int n);

// The items two independent uniform k-subsets of n items share:
// Hypergeometric(n, k, k), entry x is C(k, x) C(n - k, k - x) / C(n, k).
std::vector<Rational> hand_overlap_law(int n, int k);

// Repeats among m independent uniform draws from N outcomes (draws equal
// to an earlier one: m minus the distinct outcomes): P(repeats >= d),
// exactly as a chain over the draws (draw t + 1 repeats with probability
// (t - repeats so far) / N), in O(m d) steps; d = 0 gives 1. For the range
// where neither the Poisson nor the normal law is close: repeats few, but
// records not few beside N.
double repeats_at_least(std::uint64_t m, double outcomes, std::uint64_t d);

// A law's mean and variance over its entries 0, 1, ...
struct Moments {
  double mean = 0, variance = 0;
};
Moments moments_of(const std::vector<double>& law);

std::vector<double> to_doubles(const std::vector<Rational>& law);

}  // namespace melange
