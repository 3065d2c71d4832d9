// The exact tail of Pearson's statistic near the 5-per-bin guard, against
// every table of small multinomials enumerated one by one.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <vector>

#include "melange/audit.hpp"
#include "melange/stats.hpp"

namespace melange {
namespace {

double pearson(const std::vector<std::uint64_t>& c, const std::vector<double>& p, double m) {
  double x = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double e = m * p[i];
    x += (static_cast<double>(c[i]) - e) * (static_cast<double>(c[i]) - e) / e;
  }
  return x;
}

// Every table of m records over p's cells: its probability and statistic.
void each_table(std::uint64_t m, const std::vector<double>& p,
                const std::function<void(const std::vector<std::uint64_t>&, double)>& visit) {
  std::vector<std::uint64_t> c(p.size(), 0);
  std::function<void(std::size_t, std::uint64_t)> fill = [&](std::size_t i, std::uint64_t left) {
    if (i + 1 == p.size()) {
      c[i] = left;
      double lp = std::lgamma(static_cast<double>(m) + 1);
      for (std::size_t j = 0; j < p.size(); ++j)
        lp += static_cast<double>(c[j]) * std::log(p[j]) - std::lgamma(static_cast<double>(c[j]) + 1);
      visit(c, std::exp(lp));
      return;
    }
    for (std::uint64_t k = 0; k <= left; ++k) {
      c[i] = k;
      fill(i + 1, left - k);
    }
  };
  fill(0, m);
}

// P(X2 >= x) (upper) or P(X2 <= x), every table summed.
double enumerated_tail(std::uint64_t m, const std::vector<double>& p, double x, Tail side) {
  double tail = 0;
  each_table(m, p, [&](const std::vector<std::uint64_t>& c, double prob) {
    const double s = pearson(c, p, static_cast<double>(m));
    if (side == Tail::upper ? s >= x - 1e-9 : s <= x + 1e-9) tail += prob;
  });
  return tail;
}

TEST(PearsonTail, EqualCellsAreExactForEveryObservedTable) {
  for (const auto& [cells, m] : std::vector<std::pair<int, std::uint64_t>>{{2, 9}, {3, 12}, {4, 10}, {6, 8}}) {
    const std::vector<double> p(cells, 1.0 / cells);
    int checked = 0;
    each_table(m, p, [&](const std::vector<std::uint64_t>& c, double) {
      const double x = pearson(c, p, static_cast<double>(m));
      for (Tail side : {Tail::upper, Tail::lower}) {
        const std::optional<double> exact = multinomial_pearson_tail(c, {}, side);
        ASSERT_TRUE(exact.has_value());
        const double want = enumerated_tail(m, p, x, side);
        EXPECT_NEAR(*exact, want, 1e-12 + 1e-9 * want) << cells << " cells, " << m << " records, X2 " << x;
      }
      ++checked;
    });
    EXPECT_GT(checked, 8);
  }
}

TEST(PearsonTail, UnequalCellsBoundTheTailWithinTheirGrid) {
  const std::vector<std::vector<double>> laws{{0.5, 0.3, 0.2}, {0.1, 0.2, 0.3, 0.4}, {0.05, 0.15, 0.8}};
  for (const std::vector<double>& p : laws) {
    const std::uint64_t m = 11;
    const double cells = static_cast<double>(p.size());
    // The grid's step, and how far out the bound may reach: the cells'
    // rounding and two more steps (see multinomial_pearson_tail).
    const double reach = (cells + 2) * std::sqrt(2 * (cells - 1)) / (32 * cells);
    each_table(m, p, [&](const std::vector<std::uint64_t>& c, double) {
      const double x = pearson(c, p, static_cast<double>(m));
      const std::optional<double> upper = multinomial_pearson_tail(c, p, Tail::upper);
      const std::optional<double> lower = multinomial_pearson_tail(c, p, Tail::lower);
      ASSERT_TRUE(upper && lower);
      EXPECT_GE(*upper, enumerated_tail(m, p, x, Tail::upper) - 1e-12) << "X2 " << x;
      EXPECT_LE(*upper, enumerated_tail(m, p, x - reach, Tail::upper) + 1e-12) << "X2 " << x;
      EXPECT_GE(*lower, enumerated_tail(m, p, x, Tail::lower) - 1e-12) << "X2 " << x;
      EXPECT_LE(*lower, enumerated_tail(m, p, x + reach, Tail::lower) + 1e-12) << "X2 " << x;
    });
  }
}

// A table of 24 equal bins, 5 records each expected, at chi-square's 1e-7
// point: the exact tail is several times larger, so that chi-square alone
// would FAIL fair tables several times too often there.
double chi2_tail_of(const std::vector<std::uint64_t>& c) {
  return chi2_upper(chi_square_uniform(c).statistic, static_cast<double>(c.size() - 1));
}

// 24 equal bins of 5 records, records moved from bin to bin into the first
// until chi-square's tail is just under 1e-7.
std::vector<std::uint64_t> table_at_chi2_level() {
  std::vector<std::uint64_t> c(24, 5);
  std::size_t from = 1;
  while (chi2_tail_of(c) > 1e-7) {
    if (c[from] == 0) ++from;
    --c[from];
    ++c[0];
  }
  return c;
}

TEST(PearsonTail, ChiSquareUnderstatesTheTailNearTheGuard) {
  const std::vector<std::uint64_t> c = table_at_chi2_level();
  const auto chi2_tail = [&] { return chi2_tail_of(c); };
  const std::optional<double> exact = multinomial_pearson_tail(c, {}, Tail::upper);
  ASSERT_TRUE(exact.has_value());
  EXPECT_GT(*exact, 3 * chi2_tail()) << "chi-square " << chi2_tail() << ", exact " << *exact;
  // chi_square reports the exact tail there, and says so.
  const GoodnessOfFit g = chi_square_uniform(c);
  EXPECT_TRUE(g.exact_upper);
  EXPECT_DOUBLE_EQ(g.p_value, *exact);
  // Not where every bin expects 20 or more: chi-square is good there.
  std::vector<std::uint64_t> many(c);
  for (auto& x : many) x *= 4;
  EXPECT_FALSE(chi_square_uniform(many).exact_upper);
}

TEST(PearsonTail, ATableTooLargeForTheBudgetHasNone) {
  std::vector<std::uint64_t> c(720, 6);
  for (std::size_t i = 0; i < c.size(); i += 2) c[i] += 2, c[i + 1] -= 2;
  EXPECT_FALSE(multinomial_pearson_tail(c, {}, Tail::upper, 1'000'000).has_value());
}

// A table of many records and a near-guard bin (an audit of 2e7 riffled
// decks against a neighbouring law) would take gigabytes of layers: none.
TEST(PearsonTail, ATableOfTooManyRecordsHasNone) {
  const std::uint64_t m = kExactTailRecords + 1;
  const std::vector<std::uint64_t> c{m - 3, 3};
  const std::vector<double> p{1 - 1e-6, 1e-6};
  EXPECT_FALSE(multinomial_pearson_tail(c, p, Tail::upper).has_value());
  EXPECT_TRUE(multinomial_pearson_tail({m / 4 - 3, 3}, p, Tail::upper).has_value())
      << "a quarter of the records: within both limits";
}

// Unequal cells keep a row of weights a cell: 2,000 cells of a 200,000-
// record table would be 3.2 GB of rows (within the step budget), and a
// failing stream of a few MB once took that. Run in a child, whose peak
// resident size the parent reads: under a quarter of a GB, and no tail.
TEST(PearsonTail, UnequalCellsKeepTheirWeightRowsUnderTheirBound) {
  const std::size_t cells = 2000;
  const std::uint64_t m = 200'000;
  std::vector<std::uint64_t> c(cells, m / cells);
  c[0] += 7, c[1] -= 7;
  std::vector<double> p(cells);
  for (std::size_t i = 0; i < cells; ++i) p[i] = (1.0 + static_cast<double>(i % 7)) / 4.0;
  const double sum = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& q : p) q /= sum;
  ASSERT_LE(cells * (m + 1), kExactTailBudget) << "the step budget alone would allow it";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(multinomial_pearson_tail(c, p, Tail::upper).has_value() ? 1 : 0);
  int status = 0;
  struct rusage usage {};
  ASSERT_EQ(::wait4(child, &status, 0, &usage), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a tail came back, or the child failed: " << status;
  EXPECT_LT(usage.ru_maxrss, 256 * 1024) << "peak resident KiB";
}

// One test graded alone (Holm over one is the test itself).
Verdict graded(GoodnessOfFit fit, const Thresholds& thresholds, std::vector<std::string>& notes) {
  TestResult t{"rank", fit};
  return grade_tests({&t}, thresholds, notes);
}

GoodnessOfFit fit_with(double p_upper, double p_lower, double min_expected) {
  GoodnessOfFit g;
  g.df = 23;
  g.p_value = p_upper;
  g.log10_p = std::log10(p_upper);
  g.p_lower = p_lower;
  g.min_expected = min_expected;
  g.log10_mode = -40;  // a fine lattice: the lower tail is graded
  return g;
}

TEST(NearGuard, TheExactTailDecidesTheVerdict) {
  const std::vector<std::uint64_t> c = table_at_chi2_level();
  const auto chi2_tail = [&] { return chi2_tail_of(c); };
  const GoodnessOfFit exact = chi_square_uniform(c);
  ASSERT_TRUE(exact.exact_upper);
  // A FAIL level between chi-square's tail and the exact one.
  const Thresholds between{0.005, std::sqrt(chi2_tail() * exact.p_value)};
  std::vector<std::string> notes;
  EXPECT_EQ(graded(exact, between, notes), Verdict::weak) << "exact p " << exact.p_value;
  // The same p from chi-square where bins expect 20 or more FAILs.
  EXPECT_EQ(graded(fit_with(chi2_tail(), 1, 25), between, notes), Verdict::fail);
  EXPECT_TRUE(notes.empty());
}

TEST(NearGuard, WithoutTheExactTailFailNeedsTheMargin) {
  const Thresholds levels{0.005, 1e-6};
  for (bool lower : {false, true}) {
    auto fit = [&](double p, double min_expected) {
      return lower ? fit_with(0.5, p, min_expected) : fit_with(p, 0.5, min_expected);
    };
    std::vector<std::string> notes;
    EXPECT_EQ(graded(fit(5e-7, 25), levels, notes), Verdict::fail) << lower;
    EXPECT_TRUE(notes.empty());
    EXPECT_EQ(graded(fit(5e-7, 8), levels, notes), Verdict::weak) << lower;
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("graded WEAK"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find(lower ? "too uniform" : "biased"), std::string::npos) << notes[0];
    notes.clear();
    EXPECT_EQ(graded(fit(5e-8, 8), levels, notes), Verdict::fail) << lower;
    EXPECT_TRUE(notes.empty());
  }
}

}  // namespace
}  // namespace melange
