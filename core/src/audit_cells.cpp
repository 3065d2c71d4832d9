#include "audit_cells.hpp"

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
  GoodnessOfFit fit;
  fit.statistic = (count - m * p) / std::sqrt(m * p * (1 - p));
  fit.df = 1;
  fit.g_statistic = fit.g_p_value = std::numeric_limits<double>::quiet_NaN();
  fit.log10_p = std::min(0.0, best + std::log10(static_cast<double>(cells)));
  fit.p_value = std::pow(10.0, fit.log10_p);
  fit.p_lower = 1 - fit.p_value;
  fit.min_expected = m * p;
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
  GoodnessOfFit fit;
  fit.statistic = (static_cast<double>(fixed) - lambda) / std::sqrt(lambda);
  fit.df = 1;
  fit.g_statistic = fit.g_p_value = std::numeric_limits<double>::quiet_NaN();
  fit.log10_p = log10_two_sided(log10_poisson_lower(fixed, lambda), log10_poisson_upper(fixed, lambda));
  fit.p_value = std::pow(10.0, fit.log10_p);
  fit.p_lower = 1 - fit.p_value;
  fit.min_expected = lambda;
  const bool whole = s.whole();
  TestResult t{"fixed points", fit, "fixed_points",
               std::string("fixed-point test (item i ") + (whole ? "at position i" : "in slot i") + ", both tails)", "z"};
  t.plain = grouped_digits(fixed) + " fixed points in " + grouped_digits(trials) + " " + std::string(noun) + "; " +
            general_text(lambda, 4) + " expected";
  t.effect = "fixed points {effect} more or fewer than " + general_text(per_record, 3) + " a record";
  t.sensitivity = 1 / std::sqrt(per_record);
  return t;
}

}  // namespace melange::internal
