#include "melange/audit.hpp"

#include <algorithm>
#include <cmath>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/rank.hpp"

namespace melange {

namespace {

std::uint64_t outcomes(Shape s) { return s.whole() ? factorial(s.n) : deal_count(s.n, s.k); }

}  // namespace

std::vector<double> reference_probabilities(Shape s, const ExactDistribution* model) {
  if (model) return model->probabilities();
  return std::vector<double>(outcomes(s), 1.0 / static_cast<double>(outcomes(s)));
}

double reference_probability(Shape s, const ExactDistribution* model, std::uint64_t rank) {
  return model ? model->probability_of(rank) : 1.0 / static_cast<double>(outcomes(s));
}

Verdict grade_tests(const std::vector<TestResult*>& tests, const Thresholds& thresholds,
                    std::vector<std::string>& notes) {
  Verdict worst = Verdict::pass;
  // Each tail is its own family: Holm over the upper-tail p-values ("too
  // biased") and over the lower-tail p-values ("too uniform").
  std::vector<double> log10_upper, lower;
  for (auto* t : tests) {
    log10_upper.push_back(t->fit.log10_p);
    lower.push_back(t->fit.p_lower);
  }
  const std::vector<double> upper_holm = holm_adjust_log10(log10_upper);
  const std::vector<double> lower_holm = holm_adjust(lower);
  const double log10_fail = std::log10(thresholds.fail), log10_weak = std::log10(thresholds.weak);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    TestResult& t = *tests[i];
    t.log10_p_holm = upper_holm[i];
    t.p_holm = std::pow(10.0, upper_holm[i]);
    t.p_lower_holm = lower_holm[i];
    const Verdict biased = grade_tail(t.p_holm, thresholds);
    // A lower tail below the mass of the lattice's likeliest table is an
    // artefact of few trials: grade it only at levels the lattice can reach.
    Verdict uniform = grade_tail(t.p_lower_holm, thresholds);
    if (uniform == Verdict::fail && !(t.fit.log10_mode < log10_fail)) uniform = Verdict::weak;
    if (uniform == Verdict::weak && !(t.fit.log10_mode < log10_weak)) uniform = Verdict::pass;
    t.lower_graded = t.fit.log10_mode < log10_weak;
    t.too_uniform = uniform > biased;
    t.verdict = std::max(biased, uniform);
    if (!t.lower_graded)
      notes.push_back(t.name + " test: too few trials to call the table too uniform (its likeliest "
                             "table has probability 10^" + std::to_string(t.fit.log10_mode).substr(0, 6) + ")");
    worst = std::max(worst, t.verdict);
  }
  return worst;
}

std::vector<double> fair_poker_probabilities() {
  std::vector<double> p;
  for (std::uint64_t hands : kPokerCategoryHands) p.push_back(static_cast<double>(hands) / 2'598'960.0);
  return p;
}

namespace {

// A test of a histogram with every expected count at least kMinExpectedPerBin,
// or the note that says why it was skipped. `p` empty: uniform.
std::optional<TestResult> histogram_test(const std::string& name, const std::vector<std::uint64_t>& counts,
                                         std::uint64_t trials, const std::vector<double>& p, double alpha,
                                         std::vector<std::string>& notes) {
  double min_p = p.empty() ? 1.0 / static_cast<double>(counts.size()) : 1;
  for (double q : p)
    if (q > 0) min_p = std::min(min_p, q);
  const double min_expected = static_cast<double>(trials) * min_p;
  if (min_expected < kMinExpectedPerBin) {
    notes.push_back(name + " test skipped: " + std::to_string(min_expected).substr(0, 8) + " expected per bin, below " +
                    std::to_string(int(kMinExpectedPerBin)) + " (needs about " +
                    std::to_string(static_cast<long long>(std::ceil(kMinExpectedPerBin / min_p))) + " trials)");
    return std::nullopt;
  }
  return TestResult{name, p.empty() ? chi_square_uniform(counts, alpha) : chi_square(counts, p, alpha)};
}

std::vector<double> as_doubles(const std::vector<Rational>& r) {
  std::vector<double> out(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) out[i] = static_cast<double>(r[i]);
  return out;
}

}  // namespace

AuditReport analyze(const Job& job, const Tally& tally, const AuditOptions& options) {
  const Shape shape = shape_of(job);
  const bool deal = !shape.whole();
  if (options.model && (options.model->n != job.n || options.model->k != shape.k))
    throw UsageError("the model is for n = " + std::to_string(options.model->n) + ", k = " +
                     std::to_string(options.model->k) + ", the audit for n = " + std::to_string(job.n) +
                     ", k = " + std::to_string(shape.k));
  AuditReport report;
  report.reference = options.model ? "exact model" : "uniform";
  report.alpha = options.alpha;
  report.mean_words = tally.trials ? static_cast<double>(tally.words) / tally.trials : 0;
  report.mean_draws = tally.trials ? static_cast<double>(tally.draws) / tally.trials : 0;

  if (!tally.ranks.empty()) {
    report.summary = summarize(tally.ranks);
    // Uniform needs no n!-entry reference beside the tally.
    const double uniform_p = 1.0 / static_cast<double>(tally.ranks.bins());
    const std::vector<double> model_p = options.model ? options.model->probabilities() : std::vector<double>{};
    double min_p = options.model ? 1 : uniform_p;
    for (double p : model_p)
      if (p > 0) min_p = std::min(min_p, p);
    const double min_expected = static_cast<double>(tally.trials) * min_p;
    if (min_expected >= kMinExpectedPerBin) {
      report.rank = TestResult{
          deal ? "deal" : "rank", options.model ? chi_square(tally.ranks.counts(), model_p, options.alpha)
                                : chi_square_uniform(tally.ranks.counts(), options.alpha)};
    } else {
      const double needed = std::ceil(kMinExpectedPerBin / min_p);
      report.notes.push_back(std::string(deal ? "deal" : "rank") + " test skipped: " + std::to_string(min_expected).substr(0, 8) +
                             " expected per bin, below " + std::to_string(int(kMinExpectedPerBin)) +
                             " (needs about " + std::to_string(static_cast<long long>(needed)) +
                             " trials); " +
                             (tally.positions.empty() ? "add the position matrix for a verdict"
                                                      : "the position matrix carries the verdict"));
    }
  }
  if (!tally.positions.empty()) {
    const PositionLaw law = options.model ? options.model->position_law() : PositionLaw{};
    report.position_detail = position_test(tally.positions, options.model ? &law : nullptr, options.alpha);
    if (report.position_detail->fit.min_expected >= kMinExpectedPerBin) {
      report.position = TestResult{deal ? "slot" : "position", report.position_detail->fit};
    } else {
      const double min_p = report.position_detail->fit.min_expected / static_cast<double>(tally.trials);
      report.notes.push_back(std::string(deal ? "slot" : "position") + " test skipped: " +
                             std::to_string(report.position_detail->fit.min_expected).substr(0, 8) +
                             " expected per cell, below " + std::to_string(int(kMinExpectedPerBin)) +
                             " (needs about " +
                             std::to_string(static_cast<long long>(std::ceil(kMinExpectedPerBin / min_p))) +
                             " trials)");
    }
  }

  if (!tally.hands.empty())
    report.hand = histogram_test("hand", tally.hands, tally.trials,
                                 options.model ? as_doubles(options.model->hand_probabilities()) : std::vector<double>{},
                                 options.alpha, report.notes);
  if (!tally.categories.empty()) {
    // Against the fair law: under a biased method it is the shift from fair
    // that the test measures (melange exact gives the biased law itself).
    report.category = histogram_test("category", tally.categories, tally.trials, fair_poker_probabilities(),
                                     options.alpha, report.notes);
  }

  // With one order (n = 1) or one possible order under the model, there is
  // nothing to test: drop tests with no degrees of freedom.
  for (std::optional<TestResult>* t : {&report.rank, &report.position, &report.hand, &report.category})
    if (*t && (*t)->fit.df == 0) {
      report.notes.push_back((*t)->name + " test skipped: no degrees of freedom (a single possible outcome)");
      t->reset();
    }

  std::vector<TestResult*> tests;
  if (report.rank) tests.push_back(&*report.rank);
  if (report.position) tests.push_back(&*report.position);
  if (report.hand) tests.push_back(&*report.hand);
  if (report.category) tests.push_back(&*report.category);
  if (!tests.empty()) report.verdict = grade_tests(tests, options.thresholds, report.notes);
  return report;
}

}  // namespace melange
