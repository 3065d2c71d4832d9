#include "melange/audit.hpp"

#include <algorithm>
#include <cmath>

#include "melange/error.hpp"
#include "melange/rank.hpp"

namespace melange {

std::vector<double> reference_probabilities(int n, const ExactDistribution* model) {
  if (model) return model->probabilities();
  return std::vector<double>(factorial(n), 1.0 / static_cast<double>(factorial(n)));
}

double reference_probability(int n, const ExactDistribution* model, std::uint64_t rank) {
  return model ? model->probability_of(rank) : 1.0 / static_cast<double>(factorial(n));
}

AuditReport analyze(const Job& job, const Tally& tally, const AuditOptions& options) {
  if (options.model && options.model->n != job.n)
    throw UsageError("the model is for n = " + std::to_string(options.model->n) +
                     ", the audit for n = " + std::to_string(job.n));
  AuditReport report;
  report.reference = options.model ? "exact model" : "uniform";
  report.alpha = options.alpha;
  report.mean_words = tally.trials ? static_cast<double>(tally.words) / tally.trials : 0;

  if (!tally.ranks.empty()) {
    report.summary = summarize(tally.ranks);
    // Uniform needs no n!-entry reference beside the tally.
    const double uniform_p = 1.0 / static_cast<double>(tally.ranks.bins());
    double min_p = 1;
    if (options.model) {
      for (double p : options.model->probabilities())
        if (p > 0) min_p = std::min(min_p, p);
    } else {
      min_p = uniform_p;
    }
    const double min_expected = static_cast<double>(tally.trials) * min_p;
    if (min_expected >= kMinExpectedPerBin) {
      report.rank = TestResult{
          "rank", options.model
                      ? chi_square(tally.ranks.counts(), options.model->probabilities(), options.alpha)
                      : chi_square_uniform(tally.ranks.counts(), options.alpha)};
    } else {
      const double needed = std::ceil(kMinExpectedPerBin / min_p);
      report.notes.push_back("rank test skipped: " + std::to_string(min_expected).substr(0, 8) +
                             " expected per bin, below " + std::to_string(int(kMinExpectedPerBin)) +
                             " (needs about " + std::to_string(static_cast<long long>(needed)) +
                             " trials); " +
                             (tally.positions.empty() ? "add --position for a verdict"
                                                      : "the position matrix carries the verdict"));
    }
  }
  if (!tally.positions.empty()) {
    const std::vector<double> expected =
        options.model ? options.model->position_probabilities() : std::vector<double>{};
    report.position_detail = position_test(tally.positions, expected, options.alpha);
    report.position = TestResult{"position", report.position_detail->fit};
  }

  // With one order (n = 1) or one possible order under the model, there is
  // nothing to test: drop tests with no degrees of freedom.
  for (std::optional<TestResult>* t : {&report.rank, &report.position})
    if (*t && (*t)->fit.df == 0) {
      report.notes.push_back((*t)->name + " test skipped: no degrees of freedom (a single possible outcome)");
      t->reset();
    }

  std::vector<TestResult*> tests;
  if (report.rank) tests.push_back(&*report.rank);
  if (report.position) tests.push_back(&*report.position);
  std::vector<double> log10_p;
  for (auto* t : tests) log10_p.push_back(t->fit.log10_p);
  const std::vector<double> adjusted = holm_adjust_log10(log10_p);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    TestResult& t = *tests[i];
    t.log10_p_holm = adjusted[i];
    t.p_holm = std::pow(10.0, adjusted[i]);
    // Holm guards the small tail; a "too uniform" p near 1 is graded as it is.
    t.verdict = grade(t.fit.p_value > 0.5 ? t.fit.p_value : t.p_holm, options.thresholds);
    if (!report.verdict || t.verdict > *report.verdict) report.verdict = t.verdict;
  }
  return report;
}

}  // namespace melange
