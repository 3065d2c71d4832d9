// The shelf shuffler's closed form against the machine as described, every
// draw sequence walked, and against the law of valleys counted by brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <numeric>
#include <vector>

#include "melange/bounded.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/job.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

int valleys_of(const std::vector<int>& p) {
  int v = 0;
  for (std::size_t i = 1; i + 1 < p.size(); ++i) v += p[i - 1] > p[i] && p[i] < p[i + 1];
  return v;
}

std::uint64_t factorial_of(int n) {
  std::uint64_t f = 1;
  for (int m = 2; m <= n; ++m) f *= static_cast<std::uint64_t>(m);
  return f;
}

// The machine as Diaconis, Fulman and Holmes describe it, written the
// plainest way (a deque a shelf), run on every sequence of (shelf, side)
// draws of every pass: the deck each gives, counted by rank.
std::map<std::uint64_t, std::uint64_t> decks_of_every_draw_sequence(int n, int shelves, int passes) {
  const int draws = n * passes;
  std::vector<int> choice(static_cast<std::size_t>(draws), 0);  // shelf * 2 + side, by dealing order
  std::map<std::uint64_t, std::uint64_t> count;
  for (;;) {
    std::vector<int> deck(static_cast<std::size_t>(n));
    std::iota(deck.begin(), deck.end(), 0);
    for (int pass = 0; pass < passes; ++pass) {
      std::vector<std::deque<int>> piles(static_cast<std::size_t>(shelves));
      for (int i = n - 1, d = pass * n; i >= 0; --i, ++d) {
        std::deque<int>& pile = piles[static_cast<std::size_t>(choice[d] / 2)];
        if (choice[d] % 2 == 0)
          pile.push_front(deck[i]);
        else
          pile.push_back(deck[i]);
      }
      deck.clear();
      for (const auto& pile : piles) deck.insert(deck.end(), pile.begin(), pile.end());
    }
    ++count[lehmer_rank(deck.data(), n)];
    int d = 0;
    while (d < draws && ++choice[d] == 2 * shelves) choice[d++] = 0;
    if (d == draws) return count;
  }
}

// Words of `bits` bits that a method maps to each value of a range s, by
// running the method's formula on every word: the draw's weights, with no
// use of the library's DrawLaw. Under rejection only accepted words count.
std::vector<std::uint64_t> words_to_each_value(std::uint64_t s, Method m, int bits) {
  const std::uint64_t span = std::uint64_t{1} << bits;
  std::vector<std::uint64_t> count(s, 0);
  for (std::uint64_t x = 0; x < span; ++x) {
    if (m == Method::modulo) ++count[x % s];
    if (m == Method::multiply) ++count[(x * s) >> bits];
    if (m == Method::rejection && x >= (span - s) % s) ++count[x % s];
  }
  return count;
}

// The machine above with each (shelf, side) sequence weighted by the words
// that give it: the law of the definition under a biased method.
std::map<std::uint64_t, Rational> machine_law(int n, int shelves, int passes, Method m, int bits) {
  const std::vector<std::uint64_t> shelf = words_to_each_value(static_cast<std::uint64_t>(shelves), m, bits);
  const std::vector<std::uint64_t> side = words_to_each_value(2, m, bits);
  const std::uint64_t shelf_total = std::accumulate(shelf.begin(), shelf.end(), std::uint64_t{0});
  const std::uint64_t side_total = std::accumulate(side.begin(), side.end(), std::uint64_t{0});
  const int draws = n * passes;
  std::vector<int> choice(static_cast<std::size_t>(draws), 0);
  std::map<std::uint64_t, Rational> law;
  for (;;) {
    std::vector<int> deck(static_cast<std::size_t>(n));
    std::iota(deck.begin(), deck.end(), 0);
    Rational weight = 1;
    for (int pass = 0; pass < passes; ++pass) {
      std::vector<std::deque<int>> piles(static_cast<std::size_t>(shelves));
      for (int i = n - 1, d = pass * n; i >= 0; --i, ++d) {
        const int on = choice[d] / 2, under = choice[d] % 2;
        weight *= Rational(shelf[static_cast<std::size_t>(on)]) / shelf_total;
        weight *= Rational(side[static_cast<std::size_t>(under)]) / side_total;
        std::deque<int>& pile = piles[static_cast<std::size_t>(on)];
        if (under == 0)
          pile.push_front(deck[i]);
        else
          pile.push_back(deck[i]);
      }
      deck.clear();
      for (const auto& pile : piles) deck.insert(deck.end(), pile.begin(), pile.end());
    }
    law[lehmer_rank(deck.data(), n)] += weight;
    int d = 0;
    while (d < draws && ++choice[d] == 2 * shelves) choice[d++] = 0;
    if (d == draws) return law;
  }
}

// Under a biased method the closed form is not the law: the walk of the
// definition is, and closed_form_holds says which is which.
TEST(ShelfAlgorithm, UnderBiasedMethodsItsLawIsTheWalkNotTheClosedForm) {
  int uneven = 0;
  for (Method m : {Method::modulo, Method::multiply, Method::rejection})
    for (int bits : {2, 3})
      for (int n : {3, 4})
        for (int shelves : {2, 3})
          for (int passes : {1, 2}) {
            if (shelves > (1 << bits) || n * passes * std::log2(2.0 * shelves) > 16) continue;
            const Shape shape{n, n, nullptr, 0, shelves, passes};
            const BoundedSpec spec{m, bits};
            const ExactDistribution walked = exact_distribution(Algorithm::shelf, shape, spec);
            const auto machine = machine_law(n, shelves, passes, m, bits);
            const ShelfLaw closed = shelf_law(n, shelves, passes);
            bool closed_is_the_law = true;
            for (std::uint64_t rank = 0; rank < walked.probability.size(); ++rank) {
              const auto it = machine.find(rank);
              ASSERT_EQ(walked.probability[rank], it == machine.end() ? Rational(0) : it->second)
                  << method_name(m) << "/" << bits << " n " << n << " shelves " << shelves << " passes " << passes
                  << " rank " << rank;
              const int v = valleys_of(lehmer_unrank(rank, n));
              closed_is_the_law &= walked.probability[rank] == closed.each[static_cast<std::size_t>(v)];
            }
            EXPECT_EQ(closed_form_holds(Algorithm::shelf, shape, spec), closed_is_the_law)
                << method_name(m) << "/" << bits << " n " << n << " shelves " << shelves << " passes " << passes;
            uneven += !closed_is_the_law;
          }
  EXPECT_GE(uneven, 8) << "biased cases seen";
  // The riffle's ranges are powers of two: every method draws them evenly,
  // and its walk is its closed form's law under each.
  for (Method m : {Method::modulo, Method::multiply, Method::rejection}) {
    const Shape shape{4, 4, nullptr, 2, 0, 0};
    EXPECT_TRUE(closed_form_holds(Algorithm::riffle, shape, BoundedSpec{m, 3})) << method_name(m);
    EXPECT_EQ(exact_distribution(Algorithm::riffle, shape, BoundedSpec{m, 3}).probability,
              exact_distribution(Algorithm::riffle, shape).probability)
        << method_name(m);
  }
}

TEST(ValleyLaw, CountsEveryPermutationsValleys) {
  for (int n = 1; n <= 8; ++n) {
    std::vector<std::uint64_t> seen(static_cast<std::size_t>((n - 1) / 2 + 1), 0);
    for (std::uint64_t rank = 0; rank < factorial_of(n); ++rank) ++seen[valleys_of(lehmer_unrank(rank, n))];
    const std::vector<Rational> law = valley_law(n);
    ASSERT_EQ(law.size(), seen.size()) << "n " << n;
    for (std::size_t v = 0; v < seen.size(); ++v)
      EXPECT_EQ(law[v], Rational(seen[v]) / factorial_of(n)) << "n " << n << " v " << v;
  }
  for (int n : {3, 52, 1024}) {
    const std::vector<Rational> law = valley_law(n);
    Rational mean = 0;
    for (std::size_t v = 0; v < law.size(); ++v) mean += law[v] * static_cast<int>(v);
    EXPECT_EQ(mean * 3, Rational(n - 2)) << "n " << n;
  }
}

// The algorithm (algorithms.hpp), walked over every draw sequence by the
// exact enumerator, gives each permutation the machine's probability and
// the closed form's.
TEST(ShelfAlgorithm, ItsExactWalkIsTheMachineAndTheClosedForm) {
  int checked = 0;
  for (int n = 2; n <= 6; ++n)
    for (int shelves : {2, 3, 4})
      for (int passes : {1, 2}) {
        if (n * passes * std::log2(2.0 * shelves) > 20) continue;  // 2^20 draw sequences
        const ExactDistribution walked = exact_distribution(Algorithm::shelf, Shape{n, n, nullptr, 0, shelves, passes});
        const auto machine = decks_of_every_draw_sequence(n, shelves, passes);
        const ShelfLaw law = shelf_law(n, shelves, passes);
        const double outcomes = std::pow(2.0 * shelves, n * passes);
        ASSERT_EQ(walked.shape.shelves, shelves);
        for (std::uint64_t rank = 0; rank < walked.probability.size(); ++rank) {
          const auto it = machine.find(rank);
          const Rational by_machine = Rational(it == machine.end() ? 0 : it->second) / static_cast<std::uint64_t>(outcomes);
          const int v = valleys_of(lehmer_unrank(rank, n));
          ASSERT_EQ(walked.probability[rank], by_machine) << "n " << n << " shelves " << shelves << " rank " << rank;
          ASSERT_EQ(walked.probability[rank], law.each[static_cast<std::size_t>(v)])
              << "n " << n << " shelves " << shelves << " passes " << passes << " rank " << rank << " V " << v;
        }
        ++checked;
      }
  EXPECT_GE(checked, 20);
  EXPECT_THROW(exact_distribution(Algorithm::shelf, Shape{9, 9, nullptr, 0, 10, 1}), UsageError) << "20^9 sequences";
}

TEST(ShelfLaw, FiftyTwoCards) {
  const ShelfLaw one = shelf_law(52, 10, 1);
  EXPECT_EQ(std::accumulate(one.valleys.begin(), one.valleys.end(), Rational(0)), Rational(1));
  // A pass leaves 10 unimodal piles: at most 9 valleys, where a uniform deck
  // has 16.7 on average; so it is nearly as far from uniform as can be.
  for (std::size_t v = 10; v < one.valleys.size(); ++v) EXPECT_EQ(one.valleys[v], Rational(0)) << v;
  EXPECT_GT(static_cast<double>(one.total_variation), 0.99999);
  EXPECT_EQ(one.separation, Rational(1));
  // Two passes of 10 shelves are one pass of 200: far nearer.
  const ShelfLaw two = shelf_law(52, 10, 2);
  EXPECT_EQ(two.one_pass_shelves, Rational(200));
  EXPECT_EQ(two.each, shelf_law(52, 200, 1).each);
  EXPECT_NEAR(static_cast<double>(two.total_variation), 0.0103, 0.0001);
  EXPECT_LT(static_cast<double>(two.mean_valleys), 52.0 / 3 - 2.0 / 3);
  for (int n : {1, 2, 1024}) {
    const ShelfLaw law = shelf_law(n, 10, 2);
    EXPECT_EQ(std::accumulate(law.valleys.begin(), law.valleys.end(), Rational(0)), Rational(1)) << n;
  }
}

TEST(ShelfJob, AsksForItsShelvesAndPasses) {
  Job job;
  job.algorithm = Algorithm::shelf;
  job.n = 52;
  job.trials = 1;
  job.tallies = TallySet{TallyKind::positions};
  EXPECT_THROW(validate(job), UsageError) << "no shelves";
  job.shelves = 10;
  EXPECT_THROW(validate(job), UsageError) << "no passes";
  job.passes = 1;
  EXPECT_NO_THROW(validate(job));
  job.shelves = 1;
  EXPECT_THROW(validate(job), UsageError) << "one shelf";
  job.shelves = 10;
  job.passes = kMaxPasses + 1;
  EXPECT_THROW(validate(job), UsageError);
  Job fy;
  fy.trials = 1;
  fy.shelves = 10;
  EXPECT_THROW(validate(fy), UsageError) << "fisher-yates takes no shelves";
}

// The last value a tally counts.
struct LastCount {
  std::uint64_t value = 0;
  void add(TallyKind, std::uint64_t v) { value = v; }
};

// Every deck of n cards weighed by the law: the rule's mean, counted by the
// tally itself, and the best guesser's, the sum over every prefix of the
// most likely next card's weight.
ShelfGuessing guessing_over_every_deck(int n, int shelves, int passes) {
  const ShelfLaw law = shelf_law(n, shelves, passes);
  ShelfGuessing means{0, 0};
  std::map<std::vector<int>, std::map<int, Rational>> next;  // prefix -> next card -> weight
  for (std::uint64_t rank = 0; rank < factorial_of(n); ++rank) {
    const std::vector<int> deck = lehmer_unrank(rank, n);
    const Rational& p = law.each[valleys_of(deck)];
    LastCount correct;
    ShelfGuessTally::count(deck, Shape{n, n}, correct);
    means.mean += p * correct.value;
    for (int t = 0; t < n; ++t) next[std::vector<int>(deck.begin(), deck.begin() + t)][deck[t]] += p;
  }
  for (const auto& [prefix, cards] : next) {
    Rational most = 0;
    for (const auto& [card, p] : cards) most = std::max(most, p);
    means.best_mean += most;
  }
  return means;
}

TEST(ShelfGuessing, TheMeansAreTheRulesAndTheBestGuessersOverEveryDeck) {
  const std::pair<int, int> machines[] = {{1, 1}, {2, 1}, {3, 1}, {10, 1}, {2, 2}};
  for (int n = 1; n <= 7; ++n)
    for (const auto& [shelves, passes] : machines) {
      const ShelfGuessing walked = guessing_over_every_deck(n, shelves, passes);
      const ShelfGuessing g = shelf_guessing(shelf_law(n, shelves, passes));
      EXPECT_EQ(g.mean, walked.mean) << "n " << n << ", " << shelves << " shelves, " << passes << " passes";
      EXPECT_EQ(g.best_mean, walked.best_mean) << "n " << n << ", " << shelves << " shelves, " << passes << " passes";
    }
  // One shelf: the best guesser names 3n/4 cards (Kuba 2026).
  EXPECT_EQ(shelf_guessing(shelf_law(7, 1, 1)).best_mean, Rational(21, 4));
}

TEST(ShelfGuessing, TheRuleIsTheBestGuesserAfterOnePassOf10Shelves) {
  const ShelfGuessing one = shelf_guessing(shelf_law(52, 10, 1));
  EXPECT_EQ(one.mean, one.best_mean);
  EXPECT_NEAR(static_cast<double>(one.mean), 9.29660, 5e-6) << one.mean.str();
  const ShelfGuessing two = shelf_guessing(shelf_law(52, 10, 2));
  EXPECT_LE(two.mean, two.best_mean);
  EXPECT_GT(static_cast<double>(two.best_mean), 4.5378);  // a fair deck: H_52
  EXPECT_LT(static_cast<double>(two.best_mean), 5);
  EXPECT_THROW(shelf_guessing(shelf_law(kShelfGuessingItems + 1, 10, 1)), Error);
}

}  // namespace
}  // namespace melange
