// Goodness-of-fit statistics for shuffle tallies (Boost.Math distributions).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "melange/histogram.hpp"
#include "melange/limits.hpp"

namespace melange {

// Graded as dieharder does: a p-value in either extreme tail is suspicious.
enum class Verdict : std::uint8_t { pass, weak, fail };
std::string_view verdict_name(Verdict v);

struct Thresholds {
  double weak = kDefaultWeak;  // p < weak (or p > 1 - weak): WEAK
  double fail = kDefaultFail;  // p < fail (or p > 1 - fail, "too uniform"): FAIL
};
// Grades both tails of one test: p < weak or p > 1 - weak is WEAK, and so
// on. Kept for single tests; an audit grades each tail after Holm's
// correction across its tests with grade_tail.
Verdict grade(double p_upper, const Thresholds& t = {});
// One tail: p < fail is FAIL, p < weak is WEAK.
Verdict grade_tail(double p, const Thresholds& t = {});

// Upper tail of the chi-square distribution and its logarithm, which stays
// finite when the tail itself underflows a double.
double chi2_upper(double x, double df);
double chi2_lower(double x, double df);
double log10_chi2_upper(double x, double df);
double chi2_critical(double df, double alpha);

struct GoodnessOfFit {
  double statistic = 0;   // Pearson chi-square
  double df = 0;
  double p_value = 1;     // upper tail
  double p_lower = 0;     // lower tail; near 1 means "too uniform"
  double log10_p = 0;     // log10 of the upper tail, finite when p underflows
  double critical = 0;    // critical value at the requested alpha
  double g_statistic = 0; // G-test (likelihood ratio)
  double g_p_value = 1;
  double min_expected = 0;
  std::uint64_t impossible = 0;  // observations in bins of zero expected probability
  // log10 of the probability of the single most likely table under the
  // reference: how coarse the lattice of the statistic is. A lower-tail p
  // ("too uniform") below this cannot be told from the lattice's own mass.
  double log10_mode = 0;
  // Near the 5-per-bin guard (min_expected under kAsymptoticExpected): the
  // tail that is the multinomial's exact one, not chi-square's.
  bool exact_upper = false;
  bool exact_lower = false;
};

// An exact test of one count, read as a z: `z` the count standardized,
// `log10_p` its exact two-sided p (or a minimum over cells, corrected), the
// count `expected`; no G-test. The tails the max-cell, fixed-point and
// category-tail tests give their grading.
GoodnessOfFit count_fit(double z, double log10_p, double expected);

// Pearson chi-square and G-test of counts against probabilities (which need
// not sum exactly to one; they are normalised). Bins of zero probability are
// left out of df; any observation there makes the statistic infinite.
GoodnessOfFit chi_square(const std::vector<std::uint64_t>& observed,
                         const std::vector<double>& probabilities, double alpha = kDefaultAlpha);
GoodnessOfFit chi_square_uniform(const std::vector<std::uint64_t>& observed, double alpha = kDefaultAlpha);

// Which tail of a statistic counts against the reference.
enum class Tail : std::uint8_t { lower, upper, both };
// A standard normal statistic: p = P(Z >= z) (upper), P(Z <= z) (lower) or
// P(|Z| >= |z|) (both), with its log10 finite far into the tail. The
// other tail is not a sign of "too uniform" and is never graded
// (log10_mode 0); df is 1.
GoodnessOfFit z_test(double z, Tail tail);
// P(X >= x) for X ~ Poisson(lambda), lambda given by its natural log so
// that it may lie below a double's range (two records of 1024 items are
// alike with probability 1/1024!): the fit of a count of rare events, on
// the upper tail alone, as z_test.
GoodnessOfFit poisson_test(std::uint64_t x, double log_lambda);
// log10 of P(X <= x) and P(X >= x), finite far into the tails: X ~
// Binomial(trials, p), 0 < p < 1 (the exact incomplete beta; where it
// underflows, the Chernoff bound exp(-trials D(x/trials || p)), which
// lies above the tail); X ~ Poisson(lambda), lambda > 0.
double log10_binomial_lower(std::uint64_t x, std::uint64_t trials, double p);
double log10_binomial_upper(std::uint64_t x, std::uint64_t trials, double p);
double log10_poisson_lower(std::uint64_t x, double lambda);
double log10_poisson_upper(std::uint64_t x, double lambda);
// Both tails of a count: log10 of min(1, 2 min(P(X <= x), P(X >= x))).
inline double log10_two_sided(double log10_lower, double log10_upper) {
  return std::min(0.0, std::log10(2.0) + std::min(log10_lower, log10_upper));
}

// Pearson's chi-square tail is trusted where every bin expects at least
// kAsymptoticExpected. Below it (tests run down to kMinExpectedPerBin) the
// tail runs small: at 5 a bin, where chi-square says 1e-7 the multinomial's
// exact tail is 6.7x that for 6 equal bins, 6.5x for 24, 4.0x for 52 and
// 2.3x for 120 (multinomial_pearson_tail); the item x position statistic
// at n = 3, every table enumerated, 1.9x. There a table's tail below
// kExactTailBelow is computed exactly, within kExactTailBudget steps;
// where that is too large (many bins, or a table that is not one
// multinomial: the position matrix), FAIL needs the chi-square tail times
// kNearGuardMargin below the FAIL level (grade_tests).
inline constexpr double kAsymptoticExpected = 20;
inline constexpr double kExactTailBelow = 0.01;
inline constexpr std::uint64_t kExactTailBudget = 500'000'000;  // about half a second
// The programme keeps, for each count of records placed, its open states:
// about 100 bytes a record of the table, whatever the states. Tables of
// more records get no exact tail (a near-guard bin in a table that large
// holds a tiny share of it, and the margin rule decides).
inline constexpr std::uint64_t kExactTailRecords = std::uint64_t{1} << 20;
// Unequal cells keep a row of lattice weights a cell (8 bytes for each
// count of records): tables whose rows pass this many bytes get no exact
// tail, so that the programme's memory stays a bounded share of any
// --memory-cap's analysis reserve (rows, 100 bytes a record, two layers).
inline constexpr std::uint64_t kExactTailRowBytes = std::uint64_t{64} << 20;
inline constexpr double kNearGuardMargin = 10;

// P(X2 >= observed X2) (Tail::upper) or P(X2 <= observed X2) (lower) for
// Pearson's X2 of a multinomial table of the observed total over cells of
// the given probabilities (empty: equal; every one positive). Exact for
// equal cells; otherwise each cell's term is put on a grid a 32nd of the
// statistic's spread over the cells, and the tail returned contains the
// true one and lies within that distance of it (conservative). nullopt
// where the programme would take more than `budget` steps, or the table
// holds more than kExactTailRecords records.
std::optional<double> multinomial_pearson_tail(const std::vector<std::uint64_t>& observed,
                                               const std::vector<double>& probabilities, Tail side,
                                               std::uint64_t budget = kExactTailBudget);

// Summary of a rank histogram: extremes and the identity order.
struct RankSummary {
  double max_min_ratio = 0;  // largest count over smallest (infinite if a bin is empty)
  std::uint64_t identity_count = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> most, least;  // (rank, count)
};
RankSummary summarize(const RankHistogram& h, int extremes = 5);

// The law of the item x position matrix under a model: the cell
// probabilities and, for one trial, the joint probabilities of pairs of
// cells (a trial puts a whole permutation matrix in, so cells covary).
struct PositionLaw {
  int n = 0;
  int k = 0;                 // columns: n positions, or a deal's k slots
  std::vector<double> p;     // n x k, row = item
  std::vector<double> pair;  // nk x nk: P(cell a and cell b), pair[a][a] = p[a]
};

struct PositionTest {
  GoodnessOfFit fit;        // against the expected matrix, see position_test
  double max_residual = 0;  // largest |standardized residual| of one cell
  int max_item = 0, max_position = 0;
};
// The item x position test. Each trial adds a permutation matrix, so the n^2
// cells are not a multinomial table: per trial Cov(X_ij, X_kl) =
// (d_ik - 1/n)(d_jl - 1/n)/(n - 1) under uniform, and Pearson's sum is
// (n/(n-1)) chi2((n-1)^2). Under uniform the statistic is that sum (and G)
// times (n-1)/n, on (n-1)^2 df. Under a model it is the quadratic form
// (O-E)' (T Sigma)^+ (O-E) with Sigma from the law's pairs, on rank(Sigma)
// df; G is not defined there (NaN).
//
// A uniform deal of k < n items (n x k, item x slot): per trial the cell
// covariance has eigenvalue 1/(n-1) on the (n-1)(k-1) contrasts between
// slots and (n-k)/(n(n-1)) on the n-1 contrasts of the items' row sums.
// Pearson's sum splits along them into X_slots ~ (n/(n-1)) chi2((n-1)(k-1))
// and X_rows ~ ((n-k)/(n-1)) chi2(n-1); the statistic rescales each part,
// (n-1)/n X_slots + (n-1)/(n-k) X_rows, on (n-1)k df.
PositionTest position_test(const PositionMatrix& m, const PositionLaw* law = nullptr,
                           double alpha = kDefaultAlpha);
// Standardized residual of one cell, (O - E) / sqrt(T p (1 - p)): its own
// binomial spread, for the heatmap. `expected` is n x n, empty for uniform.
std::vector<double> position_residuals(const PositionMatrix& m,
                                       const std::vector<double>& expected = {});

// Holm's step-down adjustment of a family of p-values (same order as given).
std::vector<double> holm_adjust(const std::vector<double>& p);
// The same on log10 p-values, exact where the p-values underflow a double.
std::vector<double> holm_adjust_log10(const std::vector<double>& log10_p);

// Power analysis against a model: with per-bin true probabilities `truth`
// and hypothesised `null`, the noncentrality per trial is
// delta = sum (truth - null)^2 / null.
double noncentrality_per_trial(const std::vector<double>& truth, const std::vector<double>& null);
// Expected Pearson statistic after `trials` (df + trials * delta).
double expected_chi2(double df, double delta, double trials);
// Trials needed for the test at level alpha to reject with probability
// `power`; infinity when delta is zero.
double trials_to_detect(double df, double delta, double alpha = kDetectAlpha, double power = kDetectPower);

// The smallest relative effect e a test detects with `power` at level
// `alpha` after `trials`. A chi-square on df whose noncentrality per trial
// is sensitivity * e^2 (one bin of probability p0 made e more likely, the
// others less in proportion: sensitivity = p0 / (1 - p0)):
// e = sqrt(lambda / (trials * sensitivity)), lambda the noncentrality that
// puts `power` past the critical value. A two-sided z test whose
// quantity has standard deviation `sensitivity` per trial relative to its
// expectation: e = (z_{alpha/2} + z_{power}) * sensitivity / sqrt(trials).
double detectable_chi2_effect(double df, double sensitivity, double trials, double alpha, double power);
double detectable_z_effect(double sensitivity, double trials, double alpha, double power);
// The noncentrality a chi-square on df needs to pass its critical value at
// `alpha` with probability `power`.
double noncentrality_to_detect(double df, double alpha, double power);
// The z a statistic's mean needs to pass the two-sided critical value at
// `alpha` with probability `power`.
double z_to_detect(double alpha, double power);

}  // namespace melange
