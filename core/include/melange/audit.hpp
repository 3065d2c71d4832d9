// From a tally to a verdict: which tests apply, their statistics, Holm's
// correction across them, and the graded verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "melange/exact.hpp"
#include "melange/job.hpp"
#include "melange/stats.hpp"

namespace melange {

// The rank test needs at least this many expected counts in every bin.
inline constexpr double kMinExpectedPerBin = 5.0;

struct AuditOptions {
  Thresholds thresholds{};
  double alpha = kDefaultAlpha;            // for the printed critical values
  const ExactDistribution* model = nullptr; // null: test against uniform
};

struct TestResult {
  std::string name;        // "rank" or "position"
  GoodnessOfFit fit;
  double p_holm = 1;       // after Holm's correction across this audit's tests
  double log10_p_holm = 0; // its log10, finite where p_holm underflows
  Verdict verdict = Verdict::pass;
};

struct AuditReport {
  std::string reference;                  // "uniform" or "exact model"
  double alpha = kDefaultAlpha;           // level of the critical values
  std::optional<RankSummary> summary;     // when a rank histogram was made
  std::optional<TestResult> rank;         // when made and the expected counts allow it
  std::optional<TestResult> position;     // when a position matrix was made
  std::optional<PositionTest> position_detail;
  std::vector<std::string> notes;         // e.g. why a test was skipped
  std::optional<Verdict> verdict;         // worst of the tests, if any ran
  double mean_words = 0;                  // stream words per trial (coins for the sorts)
};

AuditReport analyze(const Job& job, const Tally& tally, const AuditOptions& options = {});

// The probabilities a rank histogram is tested against: uniform 1/n!, or the model's.
std::vector<double> reference_probabilities(int n, const ExactDistribution* model);
// One of them, for a single order: no n!-entry vector.
double reference_probability(int n, const ExactDistribution* model, std::uint64_t rank);

}  // namespace melange
