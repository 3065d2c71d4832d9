// Exact laws of the statistics the stream tests count, as rationals
// (Boost.Multiprecision), for any size melange tallies: the tallies'
// fair laws and the tests' means and variances are read off them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "melange/exact.hpp"
#include "melange/job.hpp"
#include "melange/tallies.hpp"

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

// The valleys V of a uniform permutation p of n items (1 <= n <= 1024):
// the positions 0 < i < n-1 with p[i-1] > p[i] < p[i+1] (ValleyTally).
// Entry v: P(V = v), v = 0..(n-1)/2; mean (n - 2) / 3 for n >= 2.
std::vector<Rational> valley_law(int n);
// The same as doubles, each exact ratio rounded once.
std::vector<double> valley_probabilities(int n);

// The casino shelf shuffler (the shelf algorithm: m shelves, a card on top
// of its shelf's pile or under it by a fair coin), in the closed form this
// library derives from the definition and checks against the exact walk:
// a pass makes each shelf's pile unimodal (its cards rise, then fall), so
// the deck is the piles stacked, and a permutation with V valleys comes
// from (2m)^n equally likely draw sequences in
//   N(V) = sum_s 2^(s+1) C(m, s+1) [x^s] x^V (2 + x)^V (1 + x)^(n-1-2V)
// ways: s of the n - 1 gaps between cards part two piles (a valley needs a
// part on one side of it or both), the s + 1 piles lie on s + 1 of the m
// shelves in order, and each pile's first card may land on either side.
// P = N(V) / (2m)^n depends on V alone
// (Diaconis, Fulman and Holmes 2013 find the same). p passes of m shelves
// are one pass of (2m)^p / 2 shelves: two passes of 10 are one of 200.
// Every number exact, for 1 <= n <= 1024.
struct ShelfLaw {
  int n = 0;
  int shelves = 0;                   // the machine's shelves
  int passes = 0;                    // its passes
  Rational one_pass_shelves;         // (2 shelves)^passes / 2: the one pass the passes make
  std::vector<Rational> valleys;     // entry v: P(V = v)
  std::vector<Rational> each;        // entry v: one permutation's probability when V = v
  Rational total_variation;          // to the uniform law
  Rational separation;               // 1 - n! min P
  Rational mean_valleys;             // E V
};
// `stop`, polled between valleys, ends the work early (Cancelled).
ShelfLaw shelf_law(int n, int shelves, int passes, const std::function<bool()>& stop = {});
// The exact law's cost grows as n^3 log2(2 shelves)^passes (about n^2 steps
// on numbers of n log2 of that bits): past kMaxShelfLawWork, about half a
// minute on one core, validate_closed_form refuses the machine.
inline constexpr double kMaxShelfLawWork = 3e10;
double shelf_law_work(int n, int shelves, int passes);

// The guessing test (ShelfGuessTally) against that law, exactly: the mean
// correct guesses of its rule, and the most any guesser who sees each card
// after naming it can expect. A shelf law weighs a deck by its valleys
// alone, so after a prefix the rest of the deck's law depends on four
// numbers: the cards left, how many of them lie below the last card, the
// step that reached it and the valleys so far. A dynamic programme over
// them gives both means in O(n^2 V^2) integer products (V: the valleys a
// deck can have), for laws of 1 <= n <= kShelfGuessingItems cards. Under one pass of 10
// shelves the rule is the best guesser there is (9.2966 cards of 52).
inline constexpr int kShelfGuessingItems = 64;
struct ShelfGuessing {
  Rational mean;       // of ShelfGuessTally's rule
  Rational best_mean;  // of the best guesser
};
ShelfGuessing shelf_guessing(const ShelfLaw& law);

// The card shuffles' closed forms depend on one statistic of a permutation:
// riffle's on its rising sequences, shelf's on its valleys. An audit against
// such a law tests that statistic alone (you cannot store 52! bins, and need
// not): the kind that counts it, and its law by bin.
struct StatisticLaw {
  TallyKind kind;
  std::vector<double> law;
};
// A card shuffle's row (kClosedForms in laws.cpp): what the rest of
// melange asks of it beyond its definition. A new card shuffle with a
// closed form is its definition (algorithms.hpp) and one row here.
struct ClosedFormRow {
  Algorithm algorithm;
  TallyKind statistic;                   // the one statistic the law depends on
  const char* statistic_words;           // "the rising sequences"
  std::vector<double> (*law)(Shape);     // the statistic's law by bin, for a valid shape
  double (*log2_draw_sequences)(Shape);  // of one trial: the size of the exact walk
  // What one step either side changes (the neighbour note): riffle's
  // riffles, shelf's passes, 1 to most_steps.
  int Job::*step;
  int most_steps;
  std::string (*words)(const Job&);      // "7 riffles", "2 passes of 10 shelves"
  // The ranges its draws take: the law assumes each draw exactly uniform.
  std::vector<std::uint64_t> (*ranges)(Shape);
};
// The algorithm's row; null where its exact law is the walk's (every
// algorithm but the card shuffles).
const ClosedFormRow* closed_form(Algorithm a);
// The statistic an algorithm's closed form depends on; nullopt where its
// exact law is the walk's (every other algorithm).
std::optional<TallyKind> closed_form_statistic(Algorithm a);
// True when the closed form is the job's law: every range the algorithm
// draws is exactly uniform under `spec`. Elsewhere (the shelf machine's 3
// shelves under modulo) only the exact walk gives the law.
bool closed_form_holds(Algorithm a, Shape s, BoundedSpec spec);
// Throws UsageError ({n}, {riffles}, {shelves}, {passes}) unless `s` is a
// shape the algorithm's closed form covers: 1 <= n <= 1024 and its
// parameters in range.
void validate_closed_form(Algorithm a, Shape s);
// Its law for a shape of that algorithm (s.riffles; s.shelves and s.passes).
StatisticLaw closed_form_law(Algorithm a, Shape s);

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
