// From a tally to a verdict: which tests apply, their statistics, Holm's
// correction across them, and the graded verdict.
#pragma once

#include <array>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "melange/exact.hpp"
#include "melange/job.hpp"
#include "melange/predict/check.hpp"
#include "melange/stats.hpp"
#include "melange/stream_tests.hpp"

namespace melange {

struct StatisticLaw;

// The rank test needs at least this many expected counts in every bin.
inline constexpr double kMinExpectedPerBin = 5.0;

struct AuditOptions {
  Thresholds thresholds{};
  double alpha = kDefaultAlpha;            // for the printed critical values
  const ExactDistribution* model = nullptr; // null: test against uniform
  // A model's law of one statistic, where the model has no law of every
  // order to give (the card shuffles' closed forms, laws.hpp): that kind's
  // tests take it in place of the fair law; null: none.
  const StatisticLaw* statistic_model = nullptr;
  // With a statistic model: grade the same counts against the card shuffle's
  // laws one step either side too (riffle: one riffle fewer and one more;
  // shelf: one pass fewer and one more), in a note, so that a log reads as
  // "consistent with 7 riffles, not 6".
  bool neighbours = true;
  const StreamTally* stream = nullptr;      // the records as a stream: its tests join the audit's
  // A --serial job's repeats where it keeps no histogram of every possible
  // record (the engine's serial_repeats); null: none.
  const RepeatCount* serial_repeats = nullptr;
  bool records = false;                     // the trials are records read from outside: the notes say "records"
  // A stream's lag tests (audit_stream.cpp): the relabeled records' item x
  // position cells against what independent records of the stream's own
  // position law give (n x n probabilities, row j: where the item at j of
  // record t - L lands in record t), in place of uniform. Null: uniform.
  const std::vector<double>* independent_positions = nullptr;
  // The position matrix was tallied without being asked: its test runs
  // only where the rank (deal) test cannot, and a note says so.
  bool position_on_demand = false;
};

// The kind of fault a test reads, for the plain words' "which fault": a
// test of the records one at a time (each record biased), of records
// against earlier ones (dependent: lags, serial pairs, gaps, graded
// against independent records of the records' own law where melange can
// give it), or of their repeats, which do not depend on the order (too
// few distinct records: few seeds, a short period).
enum class FaultKind : std::uint8_t { biased_records, dependent_records, few_distinct_records };

// Each test is graded on both tails, each tail corrected by Holm's method
// across the audit's tests on its own: "too biased" on the upper-tail p
// (p_holm), "too uniform" on the lower-tail p (p_lower_holm). A lower tail is
// graded only where the statistic's lattice is fine enough to reach it: the
// single most likely table must be rarer than the threshold.
struct TestResult {
  std::string name;        // "rank", "position"; for deals "deal", "slot"; a histogram test's row's test_name
  GoodnessOfFit fit;       // a z or count test (the extra tests) has df 1 and no G
  // The extra tests (AuditReport::extra_tests) say what they are: the
  // key of their statistics in the documents ("repeats", "lag1_position"),
  // their line's title and statistic, and a line in plain words.
  std::string key{};
  std::string title{};
  std::string statistic{};  // "z", "repeats", "chi2"; empty: the kind tests' chi2 line
  std::string plain{};
  double p_holm = 1;       // upper tail, after Holm's correction across this audit's tests
  double log10_p_holm = 0; // its log10, finite where p_holm underflows
  double p_lower_holm = 1; // lower tail, after Holm's correction
  bool lower_graded = true;  // false: too few trials to call a table too uniform
  bool too_uniform = false;  // the verdict comes from the lower tail
  Verdict verdict = Verdict::pass;
  // What the test can see, for the plain-words lines. `effect` says a bias
  // of relative size e in words, "{effect}" standing for e: "an order
  // {effect} more frequent than 1/24". A chi-square's noncentrality per
  // trial grows by sensitivity * e^2 (detectable_chi2_effect); a z test's
  // quantity has relative standard deviation `sensitivity` per trial
  // (detectable_z_effect). Empty: no single reading (a pooled law).
  std::string effect{};
  double sensitivity = 0;
  // The test's own comparisons, for the level its detectable effect is
  // read at (the max-cell test's cells, Bonferroni).
  double multiplicity = 1;
  // Its effect is one cell, order or hand made likelier: a PASS needs one
  // such test that could see a doubling (AuditReport::records_for_a_verdict).
  bool reads_cells = false;
  FaultKind fault = FaultKind::biased_records;
  // The item its plain words name as "{item}", which the printers write as
  // the records name it (their labels); -1: none.
  int item = -1;
  // Set by analyze: the smallest e this test detects with power
  // kPlainPower at the FAIL level shared by the audit's tests (fail over
  // their number, Holm's first step); NaN where it has no effect reading.
  double detectable = std::numeric_limits<double>::quiet_NaN();
  // For a WEAK test, set by analyze: the trials (records) in all after
  // which the effect it saw, if real, FAILs it with power kPlainPower.
  double trials_to_settle = std::numeric_limits<double>::quiet_NaN();
};

// A bin far from its expectation: an order (a deal), or a cell of the
// item x position matrix (bin = item * k + slot), for "the cells furthest
// from expectation" in words.
struct Departure {
  TallyKind kind = TallyKind::ranks;
  std::uint64_t bin = 0;
  std::uint64_t count = 0;
  double expected = 0;
  double residual = 0;  // (count - expected) / its standard deviation
};

struct AuditReport {
  std::string reference;                  // "uniform", "exact model" or "exact law of the rising sequences"
  // The law's source as the caller named it, for documents that must name
  // it again (`merge` re-applies it): "" for uniform, "exact",
  // "plackett-luce", or a model file's path. Set by the front end.
  std::string model{};
  // The front end's command that gives this result again, every option
  // that changed it spelled out ("" : none). Set by the front end.
  std::string reproduce{};
  double alpha = kDefaultAlpha;           // level of the critical values
  Thresholds thresholds{};                // the levels the tests were graded at
  std::optional<RankSummary> summary;     // when a rank histogram was made
  std::optional<TestResult> rank;         // when made and the expected counts allow it
  std::optional<TestResult> position;     // when a position matrix was made (a deal's: item x slot)
  std::optional<PositionTest> position_detail;
  // The tests of the kinds with a histogram test (TallyKindRow::
  // histogram_test: a deal's hands, its poker categories), by kind: when
  // tallied and the expected counts allow it.
  std::array<std::optional<TestResult>, kTallyKinds> histogram_tests;
  // Tests beyond one a kind: a kind's mean (TallyKindRow::mean_test) and
  // the stream tests (stream_tests.hpp), in the order they were made.
  std::vector<TestResult> extra_tests;
  // The bins furthest from expectation (by |residual|, three at most) of
  // the rank or position test with the smaller p, when it is WEAK or FAIL.
  std::vector<Departure> departures;
  std::vector<std::string> notes;         // e.g. why a test was skipped
  // Records' predictability pass, where one ran (add_predictability): a
  // seed that deals the records makes the verdict FAIL.
  std::optional<predict::PredictabilityCheck> predictability;
  std::optional<Verdict> verdict;         // worst of the tests, if any ran
  // No verdict although tests ran: none of those that read cells or orders
  // could see even a doubling of one, so a PASS would promise nothing. The
  // records (trials) a first verdict needs; 0 where a verdict was given.
  double records_for_a_verdict = 0;
  double mean_words = 0;                  // stream words per trial, rejected ones included
  double mean_draws = 0;                  // bounded draws or comparator calls per trial

  // The test of a kind: rank, position, or a histogram test.
  std::optional<TestResult>& test(TallyKind kind);
  const std::optional<TestResult>& test(TallyKind kind) const;
  // Every test that ran, in kind order, then the extra tests.
  std::vector<const TestResult*> tests() const;
};

AuditReport analyze(const Job& job, const Tally& tally, const AuditOptions& options = {});
// The law a histogram kind's test holds its counts to, a probability a bin:
// the options' statistic model for its kind, else the exact model's law of
// the kind, else the kind's fair law (empty: uniform over the bins).
std::vector<double> histogram_law(const TallyKindRow& row, Shape s, const AuditOptions& options);
// The note AuditOptions::neighbours asks for: `report`'s verdict beside the
// verdicts of the same counts against the laws one step either side.
void add_neighbour_note(const Job& job, const Tally& tally, const AuditOptions& options, AuditReport& report);

// Grades a family of tests (TestResult above): Holm on each tail, the lower
// tail only where the lattice reaches it; adds a note per test it could not
// grade as too uniform. Returns the worst verdict.
Verdict grade_tests(const std::vector<TestResult*>& tests, const Thresholds& thresholds,
                    std::vector<std::string>& notes);


// Pearson's chi-square of `counts` (of `trials` outcomes) against the law
// `p`, its adjacent bins pooled, in bin order, until each group expects
// kMinExpectedPerBin; a last group short of it joins the one before. For a
// law whose rare bins lie at its ends (Eulerian, hypergeometric,
// geometric). Without two such groups, a note and no test.
std::optional<TestResult> pooled_test(const std::string& name, const std::vector<std::uint64_t>& counts,
                                      std::uint64_t trials, const std::vector<double>& p, double alpha,
                                      std::vector<std::string>& notes,
                                      std::string_view trials_noun = "trials");

// The probabilities a rank histogram is tested against: uniform (1/n!, or
// one over a deal's n!/(n-k)! ranks), or the model's.
std::vector<double> reference_probabilities(Shape s, const ExactDistribution* model);
// One of them, for a single order: no n!-entry vector.
double reference_probability(Shape s, const ExactDistribution* model, std::uint64_t rank);
inline std::vector<double> reference_probabilities(int n, const ExactDistribution* model) {
  return reference_probabilities(Shape{n, n}, model);
}

}  // namespace melange
