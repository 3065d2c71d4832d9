#include "audit_cells.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "melange/internal/grouped_digits.hpp"

namespace melange::internal {
namespace {

std::string percent_text(double fraction) { return general_text(100 * fraction, 2) + "%"; }

// A count's two-sided log10 p against Binomial(trials, p).
double log10_cell_p(std::uint64_t count, std::uint64_t trials, double p) {
  return log10_two_sided(log10_binomial_lower(count, trials, p), log10_binomial_upper(count, trials, p));
}

}  // namespace

std::optional<TestResult> max_cell_test(const TallyCounts& positions, std::uint64_t trials, Shape s,
                                        const PositionLaw* law, std::string_view noun) {
  if (trials == 0 || s.n < 2) return std::nullopt;
  const std::vector<std::uint64_t>& counts = positions.counts();
  const auto k = static_cast<std::uint64_t>(s.k);
  double best = 0;  // log10 p of the furthest cell
  std::uint64_t best_cell = 0, cells = 0;
  for (std::uint64_t cell = 0; cell < counts.size(); ++cell) {
    const double p = law ? law->p[cell] : 1.0 / s.n;
    if (p <= 0 || p >= 1) continue;  // the chi-square sees a forbidden cell; a certain one says nothing
    ++cells;
    const double l = log10_cell_p(counts[cell], trials, p);
    if (l < best) best = l, best_cell = cell;
  }
  if (cells == 0) return std::nullopt;
  const double p = law ? law->p[best_cell] : 1.0 / s.n, m = static_cast<double>(trials);
  const double count = static_cast<double>(counts[best_cell]);
  const GoodnessOfFit fit = count_fit((count - m * p) / std::sqrt(m * p * (1 - p)),
                                      best + std::log10(static_cast<double>(cells)), m * p);
  const bool whole = s.whole();
  TestResult t{"max cell", fit, "max_cell",
               std::string("max-cell test (") + std::to_string(cells) + (whole ? " item x position" : " item x slot") +
                   " cells, each binomial, Bonferroni)",
               "z"};
  t.item = static_cast<int>(best_cell / k);
  t.plain = "{item} " + std::string(whole ? "at position " : "in slot ") + std::to_string(best_cell % k) + " in " +
            percent_text(count / m) + " of " + grouped_digits(trials) + " " + std::string(noun) + "; " +
            (law ? "the model expects " + percent_text(p) : "1 in " + std::to_string(s.n) + " expected");
  t.effect = std::string("one item {effect} more often ") + (whole ? "at one position" : "in one slot") + " than " +
             (law ? "the model says" : "1/" + std::to_string(s.n));
  t.sensitivity = std::sqrt((1 - p) / p);
  t.multiplicity = static_cast<double>(cells);
  t.reads_cells = true;
  return t;
}

std::optional<TestResult> fixed_point_test(const TallyCounts& positions, std::uint64_t trials, Shape s,
                                           std::string_view noun) {
  if (trials == 0 || s.n < 8) return std::nullopt;
  const auto k = static_cast<std::uint64_t>(s.k);
  std::uint64_t fixed = 0;
  for (std::uint64_t i = 0; i < k; ++i) fixed += positions.counts()[i * k + i];
  const double per_record = static_cast<double>(s.k) / s.n, lambda = static_cast<double>(trials) * per_record;
  const GoodnessOfFit fit =
      count_fit((static_cast<double>(fixed) - lambda) / std::sqrt(lambda),
                log10_two_sided(log10_poisson_lower(fixed, lambda), log10_poisson_upper(fixed, lambda)), lambda);
  const bool whole = s.whole();
  TestResult t{"fixed points", fit, "fixed_points",
               std::string("fixed-point test (item i ") + (whole ? "at position i" : "in slot i") + ", both tails)", "z"};
  t.plain = grouped_digits(fixed) + " fixed points in " + grouped_digits(trials) + " " + std::string(noun) + "; " +
            general_text(lambda, 4) + " expected";
  t.effect = "fixed points {effect} more or fewer than " + general_text(per_record, 3) + " a record";
  t.sensitivity = 1 / std::sqrt(per_record);
  return t;
}

std::vector<double> independent_relabeled_law(const TallyCounts& positions, std::uint64_t records, int n) {
  const auto un = static_cast<std::size_t>(n);
  std::vector<double> law(un * un, 1.0 / n);
  if (records < 2) return law;
  const double pairs = static_cast<double>(records) * static_cast<double>(records - 1);
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t to = 0; to < un; ++to) {
      double sum = 0;
      for (std::size_t i = 0; i < un; ++i) {
        const auto a = static_cast<double>(positions.counts()[i * un + j]);
        const auto b = static_cast<double>(positions.counts()[i * un + to]);
        sum += a * b - (j == to ? a : 0);
      }
      law[j * un + to] = std::max(0.0, sum / pairs);
    }
  return law;
}

PositionTest independent_position_test(const TallyCounts& relabeled, const std::vector<double>& law, double alpha) {
  PositionTest t = position_test(relabeled, nullptr, alpha);  // its lattice and largest residual, under uniform
  const int n = relabeled.n();
  const double m = static_cast<double>(relabeled.trials());
  GoodnessOfFit& g = t.fit;
  double x = 0, min_expected = std::numeric_limits<double>::infinity();
  for (std::size_t cell = 0; cell < law.size(); ++cell) {
    const double e = m * law[cell], o = static_cast<double>(relabeled.counts()[cell]);
    if (e <= 0) continue;
    x += (o - e) * (o - e) / e;
    min_expected = std::min(min_expected, e);
  }
  g.df = static_cast<double>(n - 1) * (n - 1);
  g.statistic = x * (n - 1) / n;
  g.p_value = chi2_upper(g.statistic, g.df);
  g.log10_p = log10_chi2_upper(g.statistic, g.df);
  g.p_lower = 1 - g.p_value;
  g.critical = boost::math::quantile(boost::math::complement(boost::math::chi_squared(g.df), alpha));
  g.g_statistic = g.g_p_value = std::numeric_limits<double>::quiet_NaN();
  g.min_expected = min_expected;
  g.exact_upper = g.exact_lower = false;
  return t;
}

}  // namespace melange::internal
