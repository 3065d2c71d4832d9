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

// A riffle of n cards by the Gilbert-Shannon-Reeds model, in Bayer and
// Diaconis's exact form ("Trailing the dovetail shuffle to its lair", 1992):
// an a-shuffle (k riffles make one 2^k-shuffle) gives a permutation with R
// rising sequences (RiseTally) the probability C(a + n - R, n) / a^n, so R
// is all the law depends on. Every number exact, for 1 <= n <= 1024.
struct RiffleLaw {
  int n = 0;
  std::uint64_t a = 0;               // the a of the a-shuffle
  std::vector<Rational> rises;       // entry r: P(R = r + 1) = A(n, r) C(a + n - r - 1, n) / a^n
  std::vector<Rational> each;        // entry r: one permutation's probability when R = r + 1
  Rational total_variation;          // to the uniform law: half the sum over permutations of |P - 1/n!|
  Rational separation;               // 1 - n! min P: 1 until a >= n
  Rational mean_rises;               // E R
};
RiffleLaw riffle_law(int n, std::uint64_t a);
// k riffles: the 2^k-shuffle, 0 <= k <= 63.
RiffleLaw riffles_law(int n, int k);

// The correct guesses of any guesser who names an unseen card before each
// card of a uniform deck of n cards is turned (tallies.hpp's GuessTally):
// a sum of independent Bernoulli(1/j), j = 1..n, so mean H_n and variance
// the sum of (1/j)(1 - 1/j). Entry c: P(c correct), c = 0..n.
std::vector<double> correct_guesses_law(int n);

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
