// Calibration: every graded test, run on a few hundred fair audits with fixed
// seeds, must give p-values that look uniform (Kolmogorov-Smirnov), and WEAK
// rates in either tail within binomial bounds. Thresholds sit at p = 1e-6 so
// that a correct implementation never fails. Each old formula, planted here,
// is caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ks_support.hpp"
#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/exact.hpp"

namespace melange {
namespace {

constexpr int kAudits = 300;
constexpr double kNeverFlakes = 1e-6;

using testing::ks_p_uniform;

// The most p-values out of kAudits a fair test may put below 0.005 (or above
// 0.995) before that count itself is a 1e-6 event.
int tail_bound() {
  return static_cast<int>(boost::math::quantile(
      boost::math::complement(boost::math::binomial(kAudits, 0.005), kNeverFlakes)));
}

struct Calibration {
  double ks_p;
  int below, above;  // p < 0.005, p > 0.995
};

Calibration calibrate(const std::vector<double>& p) {
  Calibration c{ks_p_uniform(p), 0, 0};
  for (double v : p) {
    c.below += v < 0.005;
    c.above += v > 0.995;
  }
  return c;
}

bool calibrated(const Calibration& c) {
  return c.ks_p >= kNeverFlakes && c.below <= tail_bound() && c.above <= tail_bound();
}

std::string show(const char* what, const Calibration& c) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%s: KS p %.3g, %d below 0.005, %d above 0.995 (bound %d of %d)", what,
                c.ks_p, c.below, c.above, tail_bound(), kAudits);
  return buf;
}

// kAudits fair audits of `job` at seeds 1.., each handed to `p_of`.
std::vector<double> p_values(Job job, const std::function<double(const Tally&)>& p_of) {
  std::vector<double> p;
  RunOptions options;
  options.threads = 1;
  for (int seed = 1; seed <= kAudits; ++seed) {
    job.seed = static_cast<std::uint64_t>(seed);
    p.push_back(p_of(run(job, options).tally));
  }
  return p;
}

Job audit_job(Algorithm a, int n, std::uint64_t trials, bool ranks, bool positions) {
  Job job{.algorithm = a, .n = n, .trials = trials, .tallies = {}};
  job.tallies.set(TallyKind::ranks, ranks);
  job.tallies.set(TallyKind::positions, positions);
  return job;
}

// The old position statistic: Pearson's sum as if the cells were a
// multinomial table, on (n-1)^2 df.
double old_position_p(const PositionMatrix& m, const std::vector<double>& expected) {
  const int n = m.n();
  const double trials = static_cast<double>(m.trials());
  double x = 0;
  for (std::size_t i = 0; i < m.counts().size(); ++i) {
    const double e = trials * (expected.empty() ? 1.0 / n : expected[i]);
    if (e > 0) x += (m.counts()[i] - e) * (m.counts()[i] - e) / e;
  }
  return chi2_upper(x, static_cast<double>(n - 1) * (n - 1));
}

TEST(Calibration, RankTestAgainstUniform) {
  const auto p = p_values(audit_job(Algorithm::fisher_yates, 4, 2000, true, false),
                          [](const Tally& t) { return analyze(Job{}, t).rank->fit.p_value; });
  const auto g = p_values(audit_job(Algorithm::fisher_yates, 4, 2000, true, false),
                          [](const Tally& t) { return analyze(Job{}, t).rank->fit.g_p_value; });
  EXPECT_TRUE(calibrated(calibrate(p))) << show("rank chi2, n 4", calibrate(p));
  EXPECT_TRUE(calibrated(calibrate(g))) << show("rank G, n 4", calibrate(g));
  std::printf("%s\n%s\n", show("rank chi2, n 4", calibrate(p)).c_str(), show("rank G, n 4", calibrate(g)).c_str());
}

TEST(Calibration, RankTestAgainstAnExactModel) {
  const ExactDistribution model = exact_distribution(Algorithm::naive_swap, 4);
  AuditOptions o;
  o.model = &model;
  const auto p = p_values(audit_job(Algorithm::naive_swap, 4, 3000, true, false), [&](const Tally& t) {
    Job j;
    j.n = 4;
    return analyze(j, t, o).rank->fit.p_value;
  });
  EXPECT_TRUE(calibrated(calibrate(p))) << show("rank against naive-swap's law, n 4", calibrate(p));
}

void check_position_uniform(int n, std::uint64_t trials) {
  const Job job = audit_job(Algorithm::fisher_yates, n, trials, false, true);
  std::vector<double> now, g, old;
  RunOptions options;
  options.threads = 1;
  Job j = job;
  for (int seed = 1; seed <= kAudits; ++seed) {
    j.seed = static_cast<std::uint64_t>(seed);
    const Tally t = run(j, options).tally;
    const PositionTest test = position_test(t[TallyKind::positions]);
    now.push_back(test.fit.p_value);
    g.push_back(test.fit.g_p_value);
    old.push_back(old_position_p(t[TallyKind::positions], {}));
  }
  const std::string label = "position, uniform, n " + std::to_string(n);
  EXPECT_TRUE(calibrated(calibrate(now))) << show(label.c_str(), calibrate(now));
  EXPECT_TRUE(calibrated(calibrate(g))) << show((label + ", G").c_str(), calibrate(g));
  EXPECT_FALSE(calibrated(calibrate(old))) << "the old formula must be caught: "
                                           << show((label + ", old").c_str(), calibrate(old));
  std::printf("%s\n%s\n%s\n", show(label.c_str(), calibrate(now)).c_str(),
              show((label + ", G").c_str(), calibrate(g)).c_str(),
              show((label + ", old formula").c_str(), calibrate(old)).c_str());
}

TEST(Calibration, PositionTestAgainstUniformN4) { check_position_uniform(4, 10'000); }
TEST(Calibration, PositionTestAgainstUniformN13) { check_position_uniform(13, 10'000); }
TEST(Calibration, PositionTestAgainstUniformN52) { check_position_uniform(52, 2'000); }

TEST(Calibration, PositionTestAgainstAnExactModel) {
  // Sattolo: cyclic permutations only, so the diagonal is empty and the
  // cells covary otherwise than under uniform.
  const ExactDistribution model = exact_distribution(Algorithm::sattolo, 4);
  const PositionLaw law = model.position_law();
  const std::vector<double> expected = model.position_probabilities();
  std::vector<double> now, old;
  RunOptions options;
  options.threads = 1;
  Job j = audit_job(Algorithm::sattolo, 4, 10'000, false, true);
  for (int seed = 1; seed <= kAudits; ++seed) {
    j.seed = static_cast<std::uint64_t>(seed);
    const Tally t = run(j, options).tally;
    const PositionTest test = position_test(t[TallyKind::positions], &law);

    now.push_back(test.fit.p_value);
    old.push_back(old_position_p(t[TallyKind::positions], expected));
  }
  EXPECT_TRUE(calibrated(calibrate(now))) << show("position, sattolo's law, n 4", calibrate(now));
  EXPECT_FALSE(calibrated(calibrate(old))) << show("position, sattolo's law, old formula", calibrate(old));
  std::printf("%s\n%s\n", show("position, sattolo's law, n 4", calibrate(now)).c_str(),
              show("position, sattolo's law, old formula", calibrate(old)).c_str());
}

// Grading: Holm on each tail apart, and never a Holm p against 1 - threshold.
TEST(Calibration, TailsAreGradedApart) {
  auto test = [](double p_upper) {
    TestResult t;
    t.fit.p_value = p_upper;
    t.fit.log10_p = std::log10(p_upper);
    t.fit.p_lower = 1 - p_upper;
    t.fit.log10_mode = -50;
    return t;
  };
  TestResult a = test(0.498), b = test(0.7);
  std::vector<std::string> notes;
  EXPECT_EQ(grade_tests({&a, &b}, Thresholds{}, notes), Verdict::pass)
      << "Holm p 0.996 of a raw 0.498 is not 'too uniform'";
  // The old rule graded Holm's upper-tail p on both tails: WEAK here.
  EXPECT_EQ(grade(std::min(1.0, 2 * 0.498)), Verdict::weak) << "the old rule, planted";
  TestResult u = test(1 - 1e-9), v = test(0.3);
  EXPECT_EQ(grade_tests({&u, &v}, Thresholds{}, notes), Verdict::fail);
  EXPECT_TRUE(u.too_uniform);
  EXPECT_NEAR(u.p_lower_holm, 2e-9, 1e-12) << "the lower tail has its own Holm correction";
}

// Few trials: the lattice is coarse, so "too uniform" is not called where its
// likeliest table alone is more probable than the threshold, and a test whose
// cells expect fewer than 5 is skipped with a note.
TEST(Calibration, SmallSamplesAreNotCalledTooUniform) {
  Job job = audit_job(Algorithm::fisher_yates, 3, 30, true, true);
  Tally t = Tally::for_job(job);
  t.trials = 30;
  t[TallyKind::ranks].counts() = {5, 5, 5, 5, 5, 5};  // chi2 = 0: P = 4e-4 for a fair shuffle
  for (int item = 0; item < 3; ++item)
    for (int pos = 0; pos < 3; ++pos) t[TallyKind::positions].counts()[item * 3 + pos] = 10;
  const AuditReport r = analyze(job, t);
  ASSERT_TRUE(r.rank);
  EXPECT_NE(r.rank->verdict, Verdict::fail) << "a 4e-4 event is not a FAIL";
  Job tiny = audit_job(Algorithm::fisher_yates, 3, 3, false, true);
  Tally three = Tally::for_job(tiny);
  three.trials = 3;
  for (int i = 0; i < 3; ++i) three[TallyKind::positions].counts()[i * 3 + i] = 3;
  const AuditReport small = analyze(tiny, three);
  EXPECT_FALSE(small.position) << "1 expected per cell: skipped";
  EXPECT_FALSE(small.verdict);
  ASSERT_FALSE(small.notes.empty());
  EXPECT_NE(small.notes[0].find("position test skipped"), std::string::npos) << small.notes[0];
}

// The exact tests that run at any size (max cell, fixed points, strong
// hands) on fair audits, few records and many, whole decks and 5-card
// deals: Bonferroni's max and the discrete tails make them conservative, so
// their p-values are not uniform; what must hold is no p under the FAIL
// level and no more under 0.005 than a nominal test gives, and the audits'
// verdicts WEAK no more often than one audit's thresholds allow (0.5% a
// tail).
TEST(Calibration, TheExactCellTestsAreNoBolderThanNominalOnFairAudits) {
  struct Shape_ {
    int n, k;
    std::uint64_t trials;
  };
  const Shape_ shapes[] = {{4, 4, 64}, {4, 4, 4096}, {8, 8, 64}, {8, 8, 4096},
                           {52, 52, 64}, {52, 52, 8192}, {52, 5, 256}, {52, 5, 32768}};
  RunOptions options;
  options.threads = 1;
  for (const Shape_& s : shapes) {
    Job job = audit_job(s.k < s.n ? Algorithm::partial : Algorithm::fisher_yates, s.n, s.trials, false, true);
    job.k = s.k < s.n ? s.k : 0;
    if (s.n == 52 && s.k == 5) job.tallies.set(TallyKind::poker, true);
    std::vector<std::string> names;
    std::vector<int> below, ran;
    int weak = 0, fail = 0, none = 0;
    for (int seed = 1; seed <= kAudits; ++seed) {
      job.seed = static_cast<std::uint64_t>(seed);
      const AuditReport r = analyze(job, run(job, options).tally);
      weak += r.verdict == Verdict::weak;
      fail += r.verdict == Verdict::fail;
      none += !r.verdict;
      for (const TestResult& t : r.extra_tests) {
        if (t.key != "max_cell" && t.key != "fixed_points" && t.key != "strong_hands") continue;
        const auto at = std::find(names.begin(), names.end(), t.key) - names.begin();
        if (at == static_cast<long>(names.size())) names.push_back(t.key), below.push_back(0), ran.push_back(0);
        ++ran[static_cast<std::size_t>(at)];
        below[static_cast<std::size_t>(at)] += t.fit.p_value < 0.005;
        EXPECT_GE(t.fit.p_value, kDefaultFail) << t.key << " n " << s.n << " k " << s.k << " seed " << seed;
      }
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::printf("n %2d k %2d, %6llu trials: %-12s %d of %d audits below 0.005 (bound %d)\n", s.n, s.k,
                  static_cast<unsigned long long>(s.trials), names[i].c_str(), below[i], ran[i], tail_bound());
      EXPECT_LE(below[i], tail_bound()) << names[i] << " n " << s.n << " k " << s.k;
    }
    std::printf("n %2d k %2d, %6llu trials: verdicts WEAK %d, FAIL %d, none %d of %d\n", s.n, s.k,
                static_cast<unsigned long long>(s.trials), weak, fail, none, kAudits);
    EXPECT_EQ(fail, 0) << "n " << s.n << " k " << s.k;
    EXPECT_LE(weak, 2 * tail_bound()) << "n " << s.n << " k " << s.k;
    EXPECT_FALSE(names.empty());
  }
}

}  // namespace
}  // namespace melange
