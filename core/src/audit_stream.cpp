#include "audit_stream.hpp"

#include "audit_cells.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "melange/deal.hpp"
#include "melange/internal/grouped_digits.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"

namespace melange::internal {
namespace {

constexpr double kLn2 = 0.69314718055994530942;
// Below this many records per possible record, repeats are rare events
// (Poisson); above, the count of distinct records is normal.
constexpr double kSparseRecords = 1e-4;
// Under the normal law, the count of distinct records needs this variance
// to tell a shuffler from a fair one: with fewer, nearly every possible
// record has been seen, whoever made them.
constexpr double kMinDistinctVariance = 25;
// Below that variance, with fewer records than outcomes, the exact law of
// the repeats: a chain over the records of this many steps at most.
constexpr double kMaxExactRepeatSteps = 2e8;



// "2^38"
std::string power_of_two(double log2_value) { return "2^" + std::to_string(static_cast<long long>(std::floor(log2_value))); }

TestResult named(TestResult t, std::string name, std::string key, std::string title) {
  t.name = std::move(name);
  t.key = std::move(key);
  t.title = std::move(title);
  return t;
}

// Whether the tests of one record, already in `report`, find the records
// biased each alone: one of them below the FAIL level over their number
// (Bonferroni). Then a test of earlier records graded against independent
// *uniform* records cannot tell that bias from dependence.
bool records_biased_alone(const AuditReport& report, const AuditOptions& options) {
  const std::vector<const TestResult*> tests = report.tests();
  if (tests.empty()) return false;
  double least = 0;
  for (const TestResult* t : tests) least = std::min(least, t->fit.log10_p);
  return least + std::log10(static_cast<double>(tests.size())) <= std::log10(options.thresholds.fail);
}

// The lag's relabeled records through the ordinary tests, and the fixed
// points (the transition matrix's trace). The transition matrix, its max
// cell and its trace are graded against independent records of the
// records' own law where it is known (whole permutations); the others
// against independent uniform records, which records biased each alone
// (`biased_alone`) are not: those are left ungraded, in a note.
void add_lag_tests(AuditReport& report, const LagTally& lag, const StreamView& stream, const AuditOptions& options,
                   bool biased_alone) {
  const std::string prefix = "lag " + std::to_string(lag.lag);
  const std::string key_prefix = "lag" + std::to_string(lag.lag) + "_";
  if (lag.tally.trials == 0) return;
  // Whole permutations whose own position law is known: the cells against
  // independent records of that law, so that records biased each alone
  // are not called dependent.
  const std::vector<double> independent =
      stream.positions ? independent_relabeled_law(*stream.positions, stream.records, stream.shape.n)
                       : std::vector<double>{};
  AuditOptions uniform = options;
  uniform.model = nullptr;
  uniform.stream = nullptr;
  uniform.independent_positions = independent.empty() ? nullptr : &independent;
  const AuditReport sub = analyze(lag.job, lag.tally, uniform);
  for (const std::string& note : sub.notes)
    if (note.find("too uniform") == std::string::npos) report.notes.push_back(prefix + " " + note);
  const Shape s = shape_of(lag.job);
  const std::string lag_words = "lag-" + std::to_string(lag.lag) + " relabeled ";
  std::vector<std::string> ungraded;
  // Graded unless it is against uniform and the records are biased alone.
  const auto graded = [&](bool against_independence, const std::string& title) {
    if (!biased_alone || against_independence) return true;
    ungraded.push_back(title);
    return false;
  };
  for (TallyKind kind : kAllTallyKinds) {
    const std::optional<TestResult>& t = sub.test(kind);
    if (!t) continue;
    const std::string title = kind == TallyKind::ranks       ? (s.whole() ? "rank" : "deal")
                              : kind == TallyKind::positions ? (s.whole() ? "position" : "slot")
                                                             : std::string(row_of(kind).test_title);
    if (graded(kind == TallyKind::positions && !independent.empty(), title))
      report.extra_tests.push_back(
          named(*t, prefix + " " + t->name, key_prefix + t->name, lag_words + title + " test"));
  }
  for (const TestResult& t : sub.extra_tests)
    if (t.key != "fixed_points" &&  // the lag's own, below, for every n
        graded(t.key == "max_cell" && !independent.empty(), t.name))
      report.extra_tests.push_back(named(t, prefix + " " + t.name, key_prefix + t.key, lag_words + t.title));
  if (!ungraded.empty()) {
    std::string list;
    for (const std::string& u : ungraded) {
      if (!list.empty()) list += ", ";
      list += u;
    }
    report.notes.push_back(prefix + " relabeled " + list + " tests not graded: the records are biased each alone, "
                           "and these tests compare them with independent uniform records" +
                           (independent.empty() ? std::string(" (no test of earlier records here knows their law)")
                                                : "; the transition matrix and its trace test dependence"));
  }
  // Fixed points: slots whose item is the one at that slot L records
  // before. Per record mean k/n and variance k/n - k/n^2 + k(k-1)/(n^2(n-1))
  // (1 and 1 for a whole permutation).
  const TallyCounts& c = lag.tally[TallyKind::positions];
  if (c.empty()) return;
  std::uint64_t fixed = 0;
  for (int p = 0; p < s.k; ++p) fixed += c.at(p, p);
  const double n = s.n, k = s.k, m = static_cast<double>(lag.tally.trials);
  double mean = k / n, variance = k / n - k / (n * n) + (n > 1 ? k * (k - 1) / (n * n * (n - 1)) : 0);
  if (!independent.empty()) {
    // Against independence: the chance an item keeps its position, sum
    // P_ij^2, the law's trace; its spread taken as Poisson's (exactly the
    // uniform law's, an approximation for others).
    mean = 0;
    for (int p = 0; p < s.n; ++p) mean += independent[static_cast<std::size_t>(p) * s.n + static_cast<std::size_t>(p)];
    variance = mean;
  }
  if (variance <= 0 || (biased_alone && independent.empty())) return;
  TestResult t{prefix + " fixed points", z_test((static_cast<double>(fixed) - m * mean) / std::sqrt(m * variance),
                                                Tail::both)};
  t.key = key_prefix + "fixed_points";
  t.title = "lag-" + std::to_string(lag.lag) + " fixed points (items at the slot they held " +
            std::to_string(lag.lag) + (lag.lag == 1 ? " record" : " records") + " before)";
  t.statistic = "z";
  t.plain = grouped_digits(fixed) + " against " + general_text(m * mean, 6) + " expected";
  t.effect = "fixed points {effect} more or fewer than the " + general_text(mean, 3) + " a record expected";
  t.sensitivity = std::sqrt(variance) / mean;
  report.extra_tests.push_back(std::move(t));
}

std::string record_noun(Shape s, bool plural) {
  return std::string(s.whole() ? "order" : "deal") + (plural ? "s" : "");
}

// Repeats: D = covered - distinct. Rare (Poisson with mean C(m,2)/N, or
// C(m,2) sum p^2 under a model) while records are few beside the possible
// ones; else the count of distinct records, normal with
// E = N(1 - a), Var = N^2(b - a^2) + N(a - b), a = (1 - 1/N)^m, b = (1 - 2/N)^m.
// The exact upper tail of the repeats among m uniform records of N. Too few
// repeats is not graded (the likeliest count is likely).
GoodnessOfFit exact_repeats_test(std::uint64_t m, double outcomes, std::uint64_t repeats) {
  GoodnessOfFit g;
  g.statistic = static_cast<double>(repeats);
  g.df = 1;
  g.g_statistic = g.g_p_value = std::numeric_limits<double>::quiet_NaN();
  g.min_expected = std::numeric_limits<double>::infinity();
  g.log10_mode = 0;
  g.p_value = repeats_at_least(m, outcomes, repeats);
  g.log10_p = std::log10(g.p_value);
  g.p_lower = 1 - g.p_value;
  return g;
}

void add_repeats_test(AuditReport& report, const StreamView& stream, const AuditOptions& options) {
  const RepeatCount& r = *stream.repeats;
  const Shape s = stream.shape;
  if (r.covered < 2) return;
  const double m = static_cast<double>(r.covered), d = static_cast<double>(r.repeats);
  // ln N: the possible records, or under a model the reciprocal of the
  // chance that two records agree.
  double log_n = r.log_outcomes;
  if (options.model) {
    double collide = 0;
    for (double p : options.model->probabilities()) collide += p * p;
    log_n = -std::log(collide);
  }
  const double log_pairs = std::log(m) + std::log(m - 1) - kLn2;
  const bool sparse = std::log(m) - log_n < std::log(kSparseRecords);
  const std::string noun = record_noun(s, true);
  double expected_repeats = 0;
  TestResult t;
  t.name = "repeats";
  t.key = "repeats";
  t.statistic = "repeats";
  if (sparse) {
    expected_repeats = std::exp(log_pairs - log_n);
    t.fit = poisson_test(r.repeats, log_pairs - log_n);
    t.title = "repeats (" + grouped_digits(r.repeats) + " among " + grouped_digits(r.covered) + " " + noun +
              ", Poisson mean " + general_text(std::exp(log_pairs - log_n)) + ")";
  } else if (options.model) {
    report.notes.push_back("repeats test not run: under a model it is made for records few beside the likely " +
                           noun + " (about " + general_text(std::exp(log_n)) + "), and " + grouped_digits(r.covered) +
                           " are not");
    return;
  } else {
    const double big_n = std::exp(log_n);
    // E = N(1 - a), Var = N^2 (b - a^2) + N (a - b), a = (1 - 1/N)^m,
    // b = (1 - 2/N)^m, written with b/a^2 = (1 - 1/(N-1)^2)^m and
    // b/a = (1 - 1/(N-1))^m: the plain form loses every digit to
    // cancellation when m is small beside N.
    const double a = std::exp(m * std::log1p(-1 / big_n));
    const double mean = -big_n * std::expm1(m * std::log1p(-1 / big_n));
    const double variance = big_n * big_n * a * a * std::expm1(m * std::log1p(-1 / ((big_n - 1) * (big_n - 1)))) -
                            big_n * a * std::expm1(m * std::log1p(-1 / (big_n - 1)));
    expected_repeats = m - mean;
    if (variance >= kMinDistinctVariance) {
      // Too few distinct records is too many repeats: the upper tail of D.
      t.fit = z_test((mean - (m - d)) / std::sqrt(variance), Tail::upper);
      t.fit.p_lower = 1 - t.fit.p_value;
      t.fit.log10_mode = -0.5 * std::log10(2 * M_PI * variance);  // the likeliest count's mass
      t.statistic = "z";
      t.title = "repeats (";
      t.title.append(grouped_digits(r.covered - r.repeats)).append(" distinct among ").append(grouped_digits(r.covered));
      t.title.append(" ").append(noun).append(", ").append(general_text(mean, 7)).append(" expected)");
    } else if (m < big_n && m * (d + 2) <= kMaxExactRepeatSteps) {
      // Repeats are few, but records not few beside N: the exact law.
      t.fit = exact_repeats_test(r.covered, big_n, r.repeats);
      t.title = "repeats (" + grouped_digits(r.repeats) + " among " + grouped_digits(r.covered) + " " + noun +
                ", " + general_text(expected_repeats) + " expected, exact law)";
    } else {
      report.notes.push_back("repeats test not run: " + grouped_digits(r.covered) + " records among " +
                             general_text(big_n) + " possible " + noun +
                             " see nearly every one, whoever made them");
      return;
    }
  }
  // What the audit rules out. A shuffler with S seeds repeats among m
  // records with probability 1 - exp(-C(m,2)/S), at least 99% once
  // S <= m^2 / (2 ln 100).
  const double log2_ruled_out = (2 * std::log(m) - std::log(2 * std::log(100.0))) / kLn2;
  if (r.repeats == 0) {
    t.plain = "no repeated " + record_noun(s, false) + " among " + grouped_digits(r.covered) +
              ": rules out a shuffler with " + power_of_two(log2_ruled_out) + " or fewer seeds (99%)";
  } else {
    const double log2_seeds = (log_pairs - std::log(d)) / kLn2;
    t.plain = grouped_digits(r.repeats) + " repeated " + record_noun(s, r.repeats != 1) + " among " +
              grouped_digits(r.covered) + "; a fair shuffler expects " +
              general_text(expected_repeats) +
              (log2_seeds < log_n / kLn2 - 1 ? "; the shuffler behaves as if it had about " + power_of_two(log2_seeds) +
                                                   " seeds"
                                             : "");
  }
  if (r.capped)
    report.notes.push_back("repeats test covers the first " + grouped_digits(r.covered) +
                           " records: the memory cap holds no more of their keys");
  report.extra_tests.push_back(std::move(t));
}

// Serial pairs, n <= 5: Good's nabla psi^2 = psi^2_2 - psi^2_1 over the
// cyclic overlapping pairs of consecutive ranks, chi-square on N^2 - N df,
// against the uniform law or the model's p_i p_j.
void add_serial_test(AuditReport& report, const StreamView& stream, const AuditOptions& options) {
  const SerialPairs* serial = stream.serial;
  if (!serial) return;
  std::uint64_t records = 0;
  for (std::uint64_t c : serial->pairs) records += c;
  records += stream.cyclic;  // the pair that closes the cycle
  if (records < 2) return;
  const std::uint64_t n_orders = serial->orders;
  const double m = static_cast<double>(records);
  // A pair's count; the cycle's closing pair (the last record, then the
  // first) where the stream closes it.
  const auto pair_count = [&](std::uint64_t a, std::uint64_t b) {
    return static_cast<double>(serial->pairs[a * n_orders + b]) +
           (stream.cyclic && a == serial->last && b == serial->first ? 1 : 0);
  };
  // Each record once: the pairs' second records (a cycle's first ones are
  // its second ones too).
  std::vector<double> singles(n_orders, 0);
  for (std::uint64_t a = 0; a < n_orders; ++a)
    for (std::uint64_t b = 0; b < n_orders; ++b) singles[b] += pair_count(a, b);
  // The law a record is held to: the model's; else, graded against
  // independence, the records' own (a contingency test of each record
  // against the one before: a biased shuffler whose records are
  // independent passes it); else uniform.
  std::vector<double> p(n_orders, 1.0 / static_cast<double>(n_orders));
  const bool observed = !options.model && stream.records > 0;
  if (options.model) p = options.model->probabilities();
  if (observed)
    for (std::uint64_t a = 0; a < n_orders; ++a) p[a] = singles[a] / m;
  // The guard reads the law the records are held to where it is known;
  // against their own margins, the uniform law's (the margins' noise would
  // move a guard on their smallest product from run to run).
  double min_expected = INFINITY, guard = observed ? m / (static_cast<double>(n_orders) * n_orders) : INFINITY;
  for (std::uint64_t a = 0; a < n_orders; ++a)
    for (std::uint64_t b = 0; b < n_orders; ++b)
      if (p[a] * p[b] > 0) min_expected = std::min(min_expected, m * p[a] * p[b]);
  if (!observed) guard = min_expected;
  if (guard < kMinExpectedPerBin) {
    report.notes.push_back("serial pair test skipped: " + general_text(guard, 4) +
                           " expected per pair of orders, below " + std::to_string(int(kMinExpectedPerBin)) +
                           " (needs about " + grouped_digits(static_cast<std::uint64_t>(std::ceil(m * kMinExpectedPerBin / guard))) +
                           " records)");
    return;
  }
  double psi2 = 0, psi1 = 0;
  std::uint64_t impossible = 0;
  for (std::uint64_t a = 0; a < n_orders; ++a) {
    const double e1 = m * p[a];
    if (e1 > 0) psi1 += (singles[a] - e1) * (singles[a] - e1) / e1;
    for (std::uint64_t b = 0; b < n_orders; ++b) {
      const double o = pair_count(a, b);
      const double e = m * p[a] * p[b];
      if (e > 0) psi2 += (o - e) * (o - e) / e;
      else impossible += o > 0;
    }
  }
  std::uint64_t possible = 0;
  for (double q : p) possible += q > 0;
  // Good's nabla psi^2 on N(N - 1) df against a known law; against the
  // records' own margins psi1 is 0 and psi2 the contingency chi-square, on
  // (N - 1)^2 df.
  const double df = observed ? static_cast<double>(possible - 1) * static_cast<double>(possible - 1)
                             : static_cast<double>(possible) * static_cast<double>(possible - 1);
  if (df <= 0) return;
  GoodnessOfFit g;
  g.statistic = impossible ? INFINITY : psi2 - psi1;
  g.df = df;
  g.p_value = chi2_upper(g.statistic, df);
  g.p_lower = chi2_lower(g.statistic, df);
  g.log10_p = log10_chi2_upper(g.statistic, df);
  g.critical = chi2_critical(df, options.alpha);
  g.g_statistic = g.g_p_value = NAN;
  g.min_expected = min_expected;
  g.log10_mode = -INFINITY;  // a sum over many cells: its lattice is fine
  TestResult t{"serial pairs", g};
  t.key = "serial_pairs";
  t.title = observed ? "serial pair test (each record against the one before, contingency chi-square, "
                     : "serial pair test (Good's nabla psi^2, ";
  t.title += grouped_digits(n_orders * n_orders);
  t.title += " pairs of orders)";
  t.statistic = "chi2";
  report.extra_tests.push_back(std::move(t));
}

// Gaps between the identity's occurrences against Geometric(1/N), bins
// pooled until each expects kMinExpectedPerBin.
void add_gap_test(AuditReport& report, const StreamView& stream, const AuditOptions& options) {
  const GapCounts* gaps = stream.gaps;
  if (!gaps) return;
  if (options.model) {
    report.notes.push_back("gap test n/a under a model: its law is the uniform one's");
    return;
  }
  std::uint64_t total = 0;
  for (std::uint64_t c : gaps->bins) total += c;
  if (total == 0) return;
  // Independent records of any law space a record's occurrences
  // geometrically, at its own frequency: the identity's, as the records
  // show it (uniform's 1/N where the records are not counted).
  const double p = stream.records > 0 ? static_cast<double>(total + 1) / static_cast<double>(stream.records)
                                      : 1.0 / static_cast<double>(gaps->orders);
  std::vector<double> law(gaps->bins.size());
  double stay = 1;  // (1 - p)^(g - 1)
  for (std::size_t g = 0; g + 1 < law.size(); ++g) {
    law[g] = p * stay;
    stay *= 1 - p;
  }
  law.back() = stay;  // at least bins.size()
  std::optional<TestResult> t = pooled_test("gaps", gaps->bins, total, law, options.alpha, report.notes,
                                                    options.records ? "records" : "trials");
  if (!t) return;
  if (stream.records > 0 && t->fit.df > 1) {
    // The frequency was read off the same records: one degree of freedom fewer.
    GoodnessOfFit& g = t->fit;
    g.df -= 1;
    g.p_value = chi2_upper(g.statistic, g.df);
    g.p_lower = chi2_lower(g.statistic, g.df);
    g.log10_p = log10_chi2_upper(g.statistic, g.df);
    g.critical = chi2_critical(g.df, options.alpha);
    g.g_p_value = std::isnan(g.g_statistic) ? g.g_statistic : chi2_upper(g.g_statistic, g.df);
  }
  t->key = "gaps";
  t->title = "gap test (" + grouped_digits(total) + " gaps between the identity's occurrences, Geometric(";
  t->title += stream.records > 0 ? "its frequency, " + general_text(p, 3) : "1/" + grouped_digits(gaps->orders);
  t->title += "))";
  t->statistic = "chi2";
  report.extra_tests.push_back(std::move(*t));
}

}  // namespace

StreamView stream_view(const StreamTally& stream) {
  StreamView v;
  v.shape = stream.shape();
  for (const LagTally& l : stream.lags()) v.lags.push_back(&l);
  if (stream.has_repeats()) v.repeats = &stream.repeats();
  v.serial = stream.serial_pairs();
  v.gaps = stream.gaps();
  return v;
}

StreamView serial_view(const Job& job, const Tally& tally, const RepeatCount* fingerprinted, SerialViewParts& parts) {
  LagTally& lag = parts.lag;
  SerialPairs& serial = parts.serial;
  StreamView v;
  v.shape = shape_of(job);
  v.cyclic = false;
  lag.lag = 1;
  lag.job = job;
  lag.job.tallies = {};
  constexpr std::pair<TallyKind, TallyKind> kOf[] = {{TallyKind::lag_ranks, TallyKind::ranks},
                                                     {TallyKind::lag_positions, TallyKind::positions},
                                                     {TallyKind::lag_rises, TallyKind::rises},
                                                     {TallyKind::lag_overlaps, TallyKind::overlaps}};
  for (auto [serial_kind, kind] : kOf)
    if (job.tallies.has(serial_kind)) lag.job.tallies.set(kind);
  if (!lag.job.tallies.empty()) {
    lag.tally = Tally::for_job(lag.job);
    for (auto [serial_kind, kind] : kOf)
      if (job.tallies.has(serial_kind)) lag.tally[kind].counts() = tally[serial_kind].counts();
    lag.tally.trials = tally.trials;
    lag.job.trials = tally.trials;
    v.lags.push_back(&lag);
  }
  if (job.tallies.has(TallyKind::serial_pairs)) {
    serial.orders = factorial(v.shape.n);
    serial.pairs = tally[TallyKind::serial_pairs].counts();
    v.serial = &serial;
  }
  // Every possible record has its bin: a deal's ordered deal if it can,
  // else its hand.
  const bool ranks = job.tallies.has(TallyKind::ranks), hands = !ranks && job.tallies.has(TallyKind::hands);
  if (ranks || hands) {
    parts.repeats = repeats_in_histogram(v.shape, hands, tally[ranks ? TallyKind::ranks : TallyKind::hands].counts(),
                                         tally.trials);
    v.repeats = &parts.repeats;
  } else if (fingerprinted) {
    v.repeats = fingerprinted;
  }
  return v;
}

// The stream tests, each kind in turn (add_stream_tests marks their fault).
void add_stream_test_family(AuditReport& report, const StreamView& stream, const AuditOptions& options);

void add_stream_tests(AuditReport& report, const StreamView& stream, const AuditOptions& options) {
  if (stream.shape.n < 2) return;  // one item: every record is the same, and there is nothing to test
  const std::size_t first = report.extra_tests.size();
  add_stream_test_family(report, stream, options);
  for (std::size_t i = first; i < report.extra_tests.size(); ++i) {
    TestResult& t = report.extra_tests[i];
    t.fault = t.key == "repeats" ? FaultKind::few_distinct_records : FaultKind::dependent_records;
  }
}

void add_stream_test_family(AuditReport& report, const StreamView& stream, const AuditOptions& options) {
  const bool biased_alone = records_biased_alone(report, options);  // the tests of one record, before these
  if (stream.repeats) add_repeats_test(report, stream, options);
  add_serial_test(report, stream, options);
  add_gap_test(report, stream, options);
  for (const LagTally* lag_tally : stream.lags) {
    const LagTally& lag = *lag_tally;
    if (options.model) {
      report.notes.push_back("lag " + std::to_string(lag.lag) +
                             " tests n/a under a model: their law needs consecutive records independent and "
                             "uniform, which a model of one record does not give");
      continue;
    }
    add_lag_tests(report, lag, stream, options, biased_alone);
  }
}

}  // namespace melange::internal
