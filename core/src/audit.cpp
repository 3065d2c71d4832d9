#include "melange/audit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "audit_cells.hpp"
#include "audit_stream.hpp"
#include "melange/laws.hpp"

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/internal/grouped_digits.hpp"
#include "melange/number_text.hpp"
#include "melange/rank.hpp"

namespace melange {

namespace {

std::uint64_t outcomes(Shape s) { return s.whole() ? factorial(s.n) : deal_count(s.n, s.k); }

// "1/24", "1/3,628,800"
std::string one_in(std::uint64_t bins) { return "1/" + internal::grouped_digits(bins); }

// A chi-square over `bins` bins that one bin, e more likely than 1/bins,
// moves by e^2 / (bins - 1) a trial (detectable_chi2_effect).
void one_bin_effect(TestResult& t, std::string noun, std::uint64_t bins, bool model) {
  if (bins < 2) return;
  t.effect = std::move(noun) + " {effect} more frequent than " + (model ? "the model says" : one_in(bins));
  t.sensitivity = 1.0 / static_cast<double>(bins - 1);
  t.reads_cells = true;
}

// One cell of an n x k item x position (slot) matrix e more likely than
// 1/n, its row and column making up for it: the position statistic's
// noncentrality grows by e^2 k / (n (k - 1)) a trial (1 / (n - 1) for a
// whole permutation; a deal of one item has no cell contrast).
void one_cell_effect(TestResult& t, Shape s, bool model) {
  if (s.k < 2) return;
  t.effect = std::string("an item {effect} more often ") + (s.whole() ? "at one position" : "in one slot") +
             " than " + (model ? "the model says" : "1/" + std::to_string(s.n));
  t.sensitivity = static_cast<double>(s.k) / (static_cast<double>(s.n) * (s.k - 1));
  t.reads_cells = true;
}

// The smallest effect each test detects and, for a WEAK one, the trials
// that would settle it, all at the FAIL level shared by the tests.
void add_detectable(const std::vector<TestResult*>& tests, double fail, double trials) {
  const double level = fail / static_cast<double>(tests.size());
  for (TestResult* t : tests) {
    const bool z = t->statistic == "z";
    const double own_level = level / t->multiplicity;
    if (!t->effect.empty())
      t->detectable = z ? detectable_z_effect(t->sensitivity, trials, own_level, kPlainPower)
                        : detectable_chi2_effect(t->fit.df, t->sensitivity, trials, own_level, kPlainPower);
    if (t->verdict != Verdict::weak || t->too_uniform || t->statistic == "repeats") continue;
    // The effect as seen, if real, grows with the trials: a noncentrality
    // of statistic - df, a z of z * sqrt(more / trials).
    const double seen = z ? t->fit.statistic * t->fit.statistic : t->fit.statistic - t->fit.df;
    const double needed = z ? std::pow(z_to_detect(own_level, kPlainPower), 2)
                            : noncentrality_to_detect(t->fit.df, own_level, kPlainPower);
    if (seen > 0) t->trials_to_settle = std::ceil(trials * std::max(1.0, needed / seen));
  }
}

// A PASS promises that the records show no large bias: it needs, among
// the tests of cells or orders that ran, one that could see a cell or an
// order made twice as likely. Else there is no verdict, and a note gives
// the records a first one needs (each such test's detectable effect falls
// as one over the root of the records).
void withhold_a_blind_pass(AuditReport& report, const std::vector<TestResult*>& tests, double trials) {
  if (report.verdict != Verdict::pass) return;
  double needed = std::numeric_limits<double>::infinity();
  bool read_cells = false;
  for (const TestResult* t : tests) {
    if (!t->reads_cells || !std::isfinite(t->detectable)) continue;
    if (t->detectable <= 1) return;
    read_cells = true;
    needed = std::min(needed, std::ceil(trials * t->detectable * t->detectable));
  }
  if (!read_cells) return;
  report.verdict.reset();
  report.records_for_a_verdict = needed;
}

// The three bins of a test's table furthest from expectation.
template <class Residual>
std::vector<Departure> furthest_bins(TallyKind kind, const TallyCounts& counts, Residual residual) {
  std::vector<Departure> out;
  for (std::uint64_t b = 0; b < counts.bins(); ++b) {
    const auto [expected, r] = residual(b);
    if (!std::isfinite(r) || (out.size() == 3 && std::fabs(r) <= std::fabs(out.back().residual))) continue;
    Departure d{kind, b, counts.counts()[b], expected, r};
    out.insert(std::upper_bound(out.begin(), out.end(), d,
                                [](const Departure& a, const Departure& x) { return std::fabs(a.residual) > std::fabs(x.residual); }),
               d);
    if (out.size() > 3) out.pop_back();
  }
  return out;
}

// The departures of the rank or position test, whichever says more, when
// it found a bias (WEAK or FAIL on the upper tail).
std::vector<Departure> departures(const AuditReport& report, const Tally& tally, Shape shape,
                                  const ExactDistribution* model) {
  const TestResult* pick = nullptr;
  for (const std::optional<TestResult>* t : {&report.rank, &report.position})
    if (*t && (*t)->verdict != Verdict::pass && !(*t)->too_uniform &&
        (!pick || (*t)->log10_p_holm < pick->log10_p_holm))
      pick = &**t;
  if (!pick) return {};
  const double trials = static_cast<double>(tally.trials);
  if (pick == &*report.rank)
    return furthest_bins(TallyKind::ranks, tally[TallyKind::ranks], [&](std::uint64_t r) {
      const double e = trials * reference_probability(shape, model, r);
      return std::pair{e, e > 0 ? (static_cast<double>(tally[TallyKind::ranks].counts()[r]) - e) / std::sqrt(e)
                                : std::numeric_limits<double>::quiet_NaN()};
    });
  const std::vector<double> p = model ? model->position_law().p : std::vector<double>{};
  const std::vector<double> z = position_residuals(tally[TallyKind::positions], p);
  return furthest_bins(TallyKind::positions, tally[TallyKind::positions], [&](std::uint64_t cell) {
    return std::pair{trials * (p.empty() ? 1.0 / shape.n : p[cell]), z[cell]};
  });
}

}  // namespace

std::vector<double> reference_probabilities(Shape s, const ExactDistribution* model) {
  if (model) return model->probabilities();
  return std::vector<double>(outcomes(s), 1.0 / static_cast<double>(outcomes(s)));
}

double reference_probability(Shape s, const ExactDistribution* model, std::uint64_t rank) {
  return model ? model->probability_of(rank) : 1.0 / static_cast<double>(outcomes(s));
}

namespace {

// A tail that chi-square gave near the 5-per-bin guard, where it can be
// several times too small (kAsymptoticExpected): FAIL needs it
// kNearGuardMargin below the level. An exact tail needs no margin.
double fail_margin(const GoodnessOfFit& g, bool exact) {
  return g.min_expected < kAsymptoticExpected && !exact ? kNearGuardMargin : 1.0;
}

// The note of a FAIL that the margin turned into WEAK.
std::string near_guard_note(const TestResult& t, bool lower) {
  using internal::general_text;
  return t.name + " test: " + (lower ? "too uniform" : "biased") + " at p " + general_text(lower ? t.p_lower_holm : t.p_holm, 3) +
         ", a FAIL where bins expect 20 or more, but its smallest bin expects " + general_text(t.fit.min_expected, 3) +
         ": there the chi-square tail can be several times too small, the exact one is not computed for this table "
         "(too large, or not one multinomial), and FAIL needs p under the level / " +
         std::to_string(int(kNearGuardMargin)) + "; graded WEAK (more records settle it)";
}

}  // namespace

Verdict grade_tests(const std::vector<TestResult*>& tests, const Thresholds& thresholds,
                    std::vector<std::string>& notes) {
  Verdict worst = Verdict::pass;
  // Each tail is its own family: Holm over the upper-tail p-values ("too
  // biased") and over the lower-tail p-values ("too uniform"); FAIL is
  // graded on the same families with each near-guard margin applied.
  std::vector<double> log10_upper, lower, log10_upper_fail, lower_fail;
  for (auto* t : tests) {
    log10_upper.push_back(t->fit.log10_p);
    lower.push_back(t->fit.p_lower);
    log10_upper_fail.push_back(t->fit.log10_p + std::log10(fail_margin(t->fit, t->fit.exact_upper)));
    lower_fail.push_back(std::min(1.0, t->fit.p_lower * fail_margin(t->fit, t->fit.exact_lower)));
  }
  const std::vector<double> upper_holm = holm_adjust_log10(log10_upper);
  const std::vector<double> lower_holm = holm_adjust(lower);
  const std::vector<double> upper_fail_holm = holm_adjust_log10(log10_upper_fail);
  const std::vector<double> lower_fail_holm = holm_adjust(lower_fail);
  const double log10_fail = std::log10(thresholds.fail), log10_weak = std::log10(thresholds.weak);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    TestResult& t = *tests[i];
    t.log10_p_holm = upper_holm[i];
    t.p_holm = std::pow(10.0, upper_holm[i]);
    t.p_lower_holm = lower_holm[i];
    Verdict biased = grade_tail(t.p_holm, thresholds);
    if (biased == Verdict::fail && !(upper_fail_holm[i] < log10_fail)) {
      biased = Verdict::weak;
      notes.push_back(near_guard_note(t, false));
    }
    // A lower tail below the mass of the lattice's likeliest table is an
    // artefact of few trials: grade it only at levels the lattice can reach.
    Verdict uniform = grade_tail(t.p_lower_holm, thresholds);
    if (uniform == Verdict::fail && !(lower_fail_holm[i] < thresholds.fail)) {
      uniform = Verdict::weak;
      notes.push_back(near_guard_note(t, true));
    }
    if (uniform == Verdict::fail && !(t.fit.log10_mode < log10_fail)) uniform = Verdict::weak;
    if (uniform == Verdict::weak && !(t.fit.log10_mode < log10_weak)) uniform = Verdict::pass;
    t.lower_graded = t.fit.log10_mode < log10_weak;
    t.too_uniform = uniform > biased;
    t.verdict = std::max(biased, uniform);
    // One-sided tests (z, counts of rare events) have no lower tail to grade.
    const bool one_sided = t.statistic == "z" || t.statistic == "repeats";
    if (!t.lower_graded && !one_sided)
      notes.push_back(t.name + " test: too coarse a table to be called too uniform (its likeliest "
                             "table has probability 10^" + std::to_string(t.fit.log10_mode).substr(0, 6) + ")");
    worst = std::max(worst, t.verdict);
  }
  return worst;
}


namespace {

// A test of a histogram against its law (`p` empty: uniform): chi-square
// where every bin expects kMinExpectedPerBin, else its rare bins pooled
// (pooled_test), never dropped: a poker category test runs from a few
// dozen deals, its rare hands one group, where waiting for the royal flush
// to expect 5 took 3,248,700.
std::optional<TestResult> histogram_test(const std::string& name, const std::vector<std::uint64_t>& counts,
                                         std::uint64_t trials, const std::vector<double>& p, double alpha,
                                         std::vector<std::string>& notes, std::string_view trials_noun) {
  double min_p = p.empty() ? 1.0 / static_cast<double>(counts.size()) : 1;
  for (double q : p)
    if (q > 0) min_p = std::min(min_p, q);
  if (static_cast<double>(trials) * min_p >= kMinExpectedPerBin)
    return TestResult{name, p.empty() ? chi_square_uniform(counts, alpha) : chi_square(counts, p, alpha)};
  const std::vector<double> law = p.empty() ? std::vector<double>(counts.size(), min_p) : p;
  return pooled_test(name, counts, trials, law, alpha, notes, trials_noun);
}

std::string fixed_text(double x) {
  return number_text(x, std::chars_format::fixed, 3);
}

// A one-sided z test of a histogram's mean bin against its law's mean.
TestResult mean_test(const TallyKindRow& row, const std::vector<std::uint64_t>& counts, std::uint64_t trials,
                     const std::vector<double>& law) {
  const Moments law_moments = moments_of(law);
  double sum = 0;
  for (std::size_t b = 0; b < counts.size(); ++b) sum += static_cast<double>(b) * static_cast<double>(counts[b]);
  const double m = static_cast<double>(trials);
  const double z = (sum - m * law_moments.mean) / std::sqrt(m * law_moments.variance);
  const bool lower = row.mean_test == MeanTail::lower;
  const double observed = sum / m + row.first_value, expected = law_moments.mean + row.first_value;
  TestResult t{std::string(row.test_name) + " mean", z_test(z, lower ? Tail::lower : Tail::upper),
               std::string(row.test_name) + "_mean",
               std::string(row.test_title).insert(0, "mean ") + (lower ? " test (lower tail)" : " test (upper tail)"),
               "z", fixed_text(observed).insert(0, "mean ") + " against " + fixed_text(expected) + " expected"};
  t.effect = "a mean " + std::string(row.test_title) + " count {effect} " + (lower ? "below " : "above ") +
             fixed_text(expected);
  t.sensitivity = std::sqrt(law_moments.variance) / expected;
  return t;
}

// The count of a row's first tail_bins bins against Binomial(trials, their
// probability), both tails exactly.
TestResult tail_test(const TallyKindRow& row, const std::vector<std::uint64_t>& counts, std::uint64_t trials,
                     const std::vector<double>& law, std::string_view noun) {
  std::uint64_t count = 0;
  double p = 0;
  for (std::size_t b = 0; b < static_cast<std::size_t>(row.tail_bins); ++b) count += counts[b], p += law[b];
  const double m = static_cast<double>(trials), expected = m * p;
  const GoodnessOfFit fit =
      count_fit((static_cast<double>(count) - expected) / std::sqrt(expected * (1 - p)),
                log10_two_sided(log10_binomial_lower(count, trials, p), log10_binomial_upper(count, trials, p)),
                expected);
  const std::string name(row.tail_name), words(row.tail_words);
  std::string key = name;
  std::replace(key.begin(), key.end(), ' ', '_');
  TestResult t{name, fit, key,
               name + " test (" + words + ", both tails)", "z",
               internal::grouped_digits(count) + " " + std::string(noun) + " of " + words + " in " +
                   internal::grouped_digits(trials) + "; " + internal::general_text(expected, 4) + " expected"};
  t.effect = "{effect} more or fewer " + std::string(noun) + " of " + words;
  t.sensitivity = std::sqrt((1 - p) / p);
  return t;
}

// A row's fair law; empty (uniform) where it has none.
std::vector<double> kind_fair_law(const TallyKindRow& row, Shape s) {
  return row.fair_law ? row.fair_law(s) : std::vector<double>{};
}

}  // namespace

namespace {

// A card shuffle's job one step from `job` (ClosedFormRow::step: riffle's
// riffles, shelf's passes).
std::optional<Job> card_neighbour(const ClosedFormRow& row, const Job& job, int step) {
  Job near = job;
  near.*row.step += step;
  if (near.*row.step < 1 || near.*row.step > row.most_steps) return std::nullopt;
  return near;
}

std::string verdict_words(const std::optional<Verdict>& v) { return v ? std::string(verdict_name(*v)) : "no verdict"; }

}  // namespace

void add_neighbour_note(const Job& job, const Tally& tally, const AuditOptions& options, AuditReport& report) {
  const ClosedFormRow* row = closed_form(job.algorithm);
  if (!row) return;
  std::string note = "the same counts: " + verdict_words(report.verdict) + " against " + row->words(job);
  for (int step : {-1, 1}) {
    const std::optional<Job> near = card_neighbour(*row, job, step);
    if (!near) continue;
    const StatisticLaw law = closed_form_law(near->algorithm, shape_of(*near));
    AuditOptions against = options;
    against.statistic_model = &law;
    against.neighbours = false;
    note += ", " + verdict_words(analyze(*near, tally, against).verdict) + " against " + row->words(*near);
  }
  report.notes.push_back(note);
}

std::vector<double> histogram_law(const TallyKindRow& row, Shape s, const AuditOptions& options) {
  if (options.statistic_model && row.kind == options.statistic_model->kind) return options.statistic_model->law;
  if (options.model && row.model_law) return row.model_law(*options.model);
  return kind_fair_law(row, s);
}

std::optional<TestResult> pooled_test(const std::string& name, const std::vector<std::uint64_t>& counts,
                                      std::uint64_t trials, const std::vector<double>& p, double alpha,
                                      std::vector<std::string>& notes, std::string_view trials_noun) {
  const double m = static_cast<double>(trials);
  std::vector<std::uint64_t> pooled_counts;
  std::vector<double> pooled_p;
  double group_p = 0;
  std::uint64_t group_count = 0;
  std::size_t last_possible = 0;  // the last group the law gives any probability
  for (std::size_t b = 0; b < counts.size(); ++b) {
    if (p[b] <= 0 && counts[b] > 0) {
      // An outcome the law rules out stays a group of its own, so that the
      // chi-square sees it as impossible rather than pooled into a neighbour.
      pooled_p.push_back(0);
      pooled_counts.push_back(counts[b]);
      continue;
    }
    group_p += p[b];
    group_count += counts[b];
    if (m * group_p >= kMinExpectedPerBin) {
      pooled_p.push_back(group_p);
      pooled_counts.push_back(group_count);
      last_possible = pooled_p.size();
      group_p = 0;
      group_count = 0;
    }
  }
  if (last_possible > 0) {
    pooled_p[last_possible - 1] += group_p;
    pooled_counts[last_possible - 1] += group_count;
  } else if (group_p > 0) {
    // Too few records for two groups the law allows: with an impossible
    // outcome beside them the test still runs, and fails.
    pooled_p.push_back(group_p);
    pooled_counts.push_back(group_count);
  }
  if (pooled_p.size() < 2) {
    notes.push_back(name + " test skipped: too few " + std::string(trials_noun) +
                    " to pool its bins into two that each expect " +
                    std::to_string(int(kMinExpectedPerBin)));
    return std::nullopt;
  }
  TestResult t{name, chi_square(pooled_counts, pooled_p, alpha)};
  if (pooled_p.size() < counts.size())
    t.plain = std::to_string(counts.size()) + " bins pooled into " + std::to_string(pooled_p.size());
  return t;
}

std::optional<TestResult>& AuditReport::test(TallyKind kind) {
  if (kind == TallyKind::ranks) return rank;
  if (kind == TallyKind::positions) return position;
  return histogram_tests[static_cast<std::size_t>(kind)];
}

const std::optional<TestResult>& AuditReport::test(TallyKind kind) const {
  return const_cast<AuditReport&>(*this).test(kind);
}

std::vector<const TestResult*> AuditReport::tests() const {
  std::vector<const TestResult*> out;
  for (TallyKind kind : kAllTallyKinds)
    if (const std::optional<TestResult>& t = test(kind)) out.push_back(&*t);
  for (const TestResult& t : extra_tests) out.push_back(&t);
  return out;
}

namespace {

// The rank (deal) test where every bin expects kMinExpectedPerBin, else the
// note that says what it needs and what carries the verdict instead.
void add_rank_test(AuditReport& report, const TallyCounts& ranks, std::uint64_t trials, Shape shape,
                   const AuditOptions& options, std::string_view noun, bool have_positions) {
  const bool deal = !shape.whole();
  report.summary = summarize(ranks);
  // Uniform needs no n!-entry reference beside the tally.
  const double uniform_p = 1.0 / static_cast<double>(ranks.bins());
  const std::vector<double> model_p = options.model ? options.model->probabilities() : std::vector<double>{};
  double min_p = options.model ? 1 : uniform_p;
  for (double p : model_p)
    if (p > 0) min_p = std::min(min_p, p);
  const double min_expected = static_cast<double>(trials) * min_p;
  if (min_expected >= kMinExpectedPerBin) {
    report.rank = TestResult{deal ? "deal" : "rank", options.model ? chi_square(ranks.counts(), model_p, options.alpha)
                                                                   : chi_square_uniform(ranks.counts(), options.alpha)};
    one_bin_effect(*report.rank, deal ? "a deal" : "an order", ranks.bins(), options.model);
    return;
  }
  const double needed = std::ceil(kMinExpectedPerBin / min_p);
  report.notes.push_back(std::string(deal ? "deal" : "rank") + " test skipped: " + std::to_string(min_expected).substr(0, 8) +
                         " expected per bin, below " + std::to_string(int(kMinExpectedPerBin)) + " (needs about " +
                         std::to_string(static_cast<long long>(needed)) + " " + std::string(noun) + "); " +
                         (have_positions ? "the position matrix carries the verdict" : "add the position matrix for a verdict"));
}

// The matrix's exact tests, which run at any number of records: the
// max-cell test, and (against uniform) the fixed points.
void add_exact_cell_tests(AuditReport& report, const TallyCounts& positions, std::uint64_t trials, Shape shape,
                          const PositionLaw* law, const AuditOptions& options, std::string_view noun) {
  if (std::optional<TestResult> t = internal::max_cell_test(positions, trials, shape, law, noun))
    report.extra_tests.push_back(std::move(*t));
  if (!options.model && !options.statistic_model && !options.independent_positions)
    if (std::optional<TestResult> t = internal::fixed_point_test(positions, trials, shape, noun))
      report.extra_tests.push_back(std::move(*t));
}

// Whether the rank (deal) test could see one order made twice as likely:
// that adds about a bin's expected count to its noncentrality, which must
// reach what the FAIL level detects with the plain words' power.
bool rank_test_sees_a_doubled_order(const TestResult& rank, double trials, std::uint64_t bins, double fail) {
  if (bins < 2) return true;
  return trials / static_cast<double>(bins - 1) >= noncentrality_to_detect(rank.fit.df, fail, kPlainPower);
}

// The item x position matrix's test. Tallied without being asked, the
// matrix is tested where the rank test could not run, or could not see an
// order made twice as likely (many orders, few records a bin: a doubled
// cell of the matrix shows long before), and a note says so.
void add_position_test(AuditReport& report, const Tally& tally, const Shape& shape, const AuditOptions& options,
                       std::string_view noun) {
  const bool deal = !shape.whole();
  const TallyCounts& ranks = tally[TallyKind::ranks];
  const TallyCounts& positions = tally[TallyKind::positions];
  const bool rank_sees = report.rank && rank_test_sees_a_doubled_order(*report.rank, static_cast<double>(tally.trials),
                                                                      ranks.bins(), options.thresholds.fail);
  const bool test_positions = !positions.empty() && !(options.position_on_demand && rank_sees);
  if (test_positions && options.position_on_demand)
    report.notes.push_back(std::string(deal ? "slot" : "position") + " test run without being asked: the " +
                           (deal ? "deal" : "rank") + " test " +
                           (report.rank ? "could not see one " + std::string(deal ? "deal" : "order") +
                                              " made twice as likely (too few " + std::string(noun) + " a bin)"
                            : "could not run (" + (ranks.empty() ? std::string("too many orders for a histogram")
                                                                 : "too few " + std::string(noun) + " a bin") + ")"));
  if (test_positions) {
    // Against the model, or (a stream's lag tests) against independent
    // records of the stream's own law, else uniform.
    const bool independent = !options.model && options.independent_positions && shape.whole();
    const PositionLaw law = options.model ? options.model->position_law()
                            : independent ? PositionLaw{shape.n, shape.k, *options.independent_positions, {}}
                                          : PositionLaw{};
    const PositionLaw* reference = options.model || independent ? &law : nullptr;
    report.position_detail = independent ? internal::independent_position_test(positions, law.p, options.alpha)
                                         : position_test(positions, reference, options.alpha);
    add_exact_cell_tests(report, positions, tally.trials, shape, reference, options, noun);
    if (report.position_detail->fit.min_expected >= kMinExpectedPerBin) {
      report.position = TestResult{deal ? "slot" : "position", report.position_detail->fit};
      one_cell_effect(*report.position, shape, options.model);
    } else {
      const double min_p = report.position_detail->fit.min_expected / static_cast<double>(tally.trials);
      report.notes.push_back(std::string(deal ? "slot" : "position") + " test skipped: " +
                             std::to_string(report.position_detail->fit.min_expected).substr(0, 8) +
                             " expected per cell, below " + std::to_string(int(kMinExpectedPerBin)) +
                             " (needs about " +
                             std::to_string(static_cast<long long>(std::ceil(kMinExpectedPerBin / min_p))) + " " +
                             std::string(noun) + ")");
    }
  }

}

// Each kind whose row has a histogram test (hands, categories, the
// statistics), against its law.
void add_histogram_tests(AuditReport& report, const Tally& tally, const Shape& shape, const AuditOptions& options,
                         std::string_view noun) {
  for (const TallyKindRow& row : kTallyKindRows) {
    const TallyCounts& counts = tally[row.kind];
    if (!row.histogram_test || counts.empty()) continue;
    // Without a model law (the poker categories) against the fair law:
    // under a biased method it is the shift from fair that the test
    // measures (melange exact gives the biased law itself).
    const std::vector<double> law = histogram_law(row, shape, options);
    report.test(row.kind) =
        row.pooled ? pooled_test(std::string(row.test_name), counts.counts(), tally.trials, law, options.alpha,
                                 report.notes, noun)
                   : histogram_test(std::string(row.test_name), counts.counts(), tally.trials, law, options.alpha,
                                    report.notes, noun);
    // A kind of uniform law (the hands) reads as one bin made likelier.
    if (std::optional<TestResult>& t = report.test(row.kind); t && t->plain.empty() && law.empty())  // not pooled
      one_bin_effect(*t, "a " + std::string(row.test_title), counts.bins(), false);
    if (row.mean_test != MeanTail::none && tally.trials > 0 && report.test(row.kind))
      report.extra_tests.push_back(mean_test(row, counts.counts(), tally.trials, law));
    if (row.tail_bins > 0 && tally.trials > 0 && !law.empty())
      report.extra_tests.push_back(tail_test(row, counts.counts(), tally.trials, law, noun));
  }
}

}  // namespace

AuditReport analyze(const Job& job, const Tally& tally, const AuditOptions& options) {
  const Shape shape = shape_of(job);
  const std::string_view noun = options.records ? "records" : "trials";
  if (options.model && (options.model->n != job.n || options.model->k != shape.k))
    throw UsageError("the model is for n = " + std::to_string(options.model->n) + ", k = " +
                     std::to_string(options.model->k) + ", the audit for n = " + std::to_string(job.n) +
                     ", k = " + std::to_string(shape.k));
  AuditReport report;
  report.reference = options.model             ? "exact model"
                     : options.statistic_model ? "exact law of the " + std::string(row_of(options.statistic_model->kind).title)
                                               : "uniform";
  report.alpha = options.alpha;
  report.thresholds = options.thresholds;
  report.mean_words = tally.trials ? static_cast<double>(tally.words) / tally.trials : 0;
  report.mean_draws = tally.trials ? static_cast<double>(tally.draws) / tally.trials : 0;

  const TallyCounts& ranks = tally[TallyKind::ranks];
  const TallyCounts& positions = tally[TallyKind::positions];
  if (!ranks.empty()) add_rank_test(report, ranks, tally.trials, shape, options, noun, !positions.empty());
  add_position_test(report, tally, shape, options, noun);
  add_histogram_tests(report, tally, shape, options, noun);
  if (options.stream) {
    internal::StreamView view = internal::stream_view(*options.stream);
    view.records = tally.trials;
    if (!positions.empty() && shape.whole()) view.positions = &positions;
    internal::add_stream_tests(report, view, options);
  }
  if (has_serial_kinds(job.tallies) && tally.trials > 0) {
    internal::SerialViewParts parts;
    internal::add_stream_tests(report, internal::serial_view(job, tally, options.serial_repeats, parts), options);
  }

  // With one order (n = 1) or one possible order under the model, there is
  // nothing to test: drop tests with no degrees of freedom.
  std::vector<TestResult*> tests;
  for (TallyKind kind : kAllTallyKinds) {
    std::optional<TestResult>& t = report.test(kind);
    if (t && t->fit.df == 0) {
      report.notes.push_back(t->name + " test skipped: no degrees of freedom (a single possible outcome)");
      t.reset();
    }
    if (t) tests.push_back(&*t);
  }
  for (TestResult& t : report.extra_tests) tests.push_back(&t);
  if (tests.empty()) return report;
  report.verdict = grade_tests(tests, options.thresholds, report.notes);
  add_detectable(tests, options.thresholds.fail, static_cast<double>(tally.trials));
  withhold_a_blind_pass(report, tests, static_cast<double>(tally.trials));
  report.departures = departures(report, tally, shape, options.model);
  if (options.statistic_model && options.neighbours) add_neighbour_note(job, tally, options, report);
  return report;
}

}  // namespace melange
