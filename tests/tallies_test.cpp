// The tally kinds as one table (tallies.hpp): every row is reachable by its
// names, and every kind, whatever it counts, keeps the promises the rest of
// melange relies on without knowing the kind: its counts have the row's
// bins, add up by its layout, merge over any split of the trials, do not
// depend on the other kinds beside it, and come back whole through an
// audit's JSON and `merge`. A new kind gets these checks by having a row.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>

#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/merge.hpp"

namespace melange {
namespace {

// The bin a one-bin-a-record kind's Definition counts one deck in.
template <class Definition>
std::uint64_t bin_of(const std::vector<int>& deck) {
  std::uint64_t bin = ~std::uint64_t{0};
  struct {
    std::uint64_t* bin;
    void add(TallyKind, std::uint64_t b) { *bin = b; }
  } counter{&bin};
  const int n = static_cast<int>(deck.size());
  Definition::count(deck, Shape{n, n}, counter);
  return bin;
}
// The correct guesses of GuessTally's guesser on one deck.
std::uint64_t guesses_on(const std::vector<int>& deck) { return bin_of<GuessTally>(deck); }

TEST(GuessingTest, TheGuesserBetsOnTheOriginalOrder) {
  EXPECT_EQ(guesses_on({0, 1, 2, 3, 4}), 5u) << "a new deck: every guess right";
  EXPECT_EQ(guesses_on({3, 2, 1, 0}), 1u) << "reversed: only the last card, the one left";
  EXPECT_EQ(guesses_on({2, 3, 0, 1}), 3u) << "a cut: 3 follows 2, 0 is the lowest left, 1 follows 0";
  std::vector<int> big(300);
  for (int i = 0; i < 300; ++i) big[i] = (i + 70) % 300;  // a cut past the first 64-bit word
  EXPECT_EQ(guesses_on(big), 299u);
}

// Under a uniform deck the score is a sum of independent Bernoulli(1/j)
// whatever the strategy: over all 7! decks the guesser's scores are the
// law's counts exactly, and the law's moments are H_n and the sum of
// (1/j)(1 - 1/j).
TEST(GuessingTest, EveryDeckOfSevenGivesTheNullLawExactly) {
  const int n = 7;
  std::vector<std::uint64_t> scores(n + 1, 0);
  for (std::uint64_t r = 0; r < factorial(n); ++r) ++scores[guesses_on(lehmer_unrank(r, n))];
  const std::vector<double> law = correct_guesses_law(n);
  for (int c = 0; c <= n; ++c)
    EXPECT_NEAR(static_cast<double>(scores[c]), law[c] * 5040, 1e-9) << c << " correct";
  const std::vector<double> deck = correct_guesses_law(52);
  double mean = 0, variance = 0, h = 0, v = 0;
  for (std::size_t c = 0; c < deck.size(); ++c) mean += static_cast<double>(c) * deck[c];
  for (std::size_t c = 0; c < deck.size(); ++c) variance += (static_cast<double>(c) - mean) * (static_cast<double>(c) - mean) * deck[c];
  for (int j = 1; j <= 52; ++j) h += 1.0 / j, v += (1.0 / j) * (1 - 1.0 / j);
  EXPECT_NEAR(mean, h, 1e-12);
  EXPECT_NEAR(mean, 4.5380, 1e-4) << "H_52";
  EXPECT_NEAR(variance, v, 1e-12);
  EXPECT_EQ(deck[0], 0) << "the last card is always named right";
}

// Three riffles of 52 cards: the guesser beats a fair deck's 4.54 by far;
// Fisher-Yates does not.
TEST(GuessingTest, ItSeesFewRifflesAndPassesAFairShuffle) {
  for (const Algorithm a : {Algorithm::riffle, Algorithm::fisher_yates}) {
    Job job;
    job.algorithm = a;
    job.n = 52;
    job.riffles = a == Algorithm::riffle ? 3 : 0;
    job.trials = 2000;
    job.tallies = TallySet{TallyKind::guesses};
    const RunResult r = run(job);
    const AuditReport report = analyze(job, r.tally, AuditOptions{});
    ASSERT_TRUE(report.test(TallyKind::guesses).has_value());
    const std::vector<std::uint64_t>& scores = r.tally[TallyKind::guesses].counts();
    double mean = 0;
    for (std::size_t c = 0; c < scores.size(); ++c) mean += static_cast<double>(c * scores[c]) / 2000;
    if (a == Algorithm::riffle) {
      EXPECT_EQ(report.verdict, Verdict::fail) << "mean " << mean;
      EXPECT_GT(mean, 9) << "three riffles leave long rising sequences";
    } else {
      EXPECT_NE(report.verdict, Verdict::fail) << "guesses p " << report.test(TallyKind::guesses)->fit.p_value;
    }
  }
}

// The shelf guesser follows the direction of the last two cards: up at the
// start, down after a fall, the other way where none is left.
TEST(GuessingTest, TheShelfGuesserFollowsEachPileUpThenDown) {
  EXPECT_EQ(bin_of<ShelfGuessTally>({0, 1, 2, 3, 4}), 5u) << "a new deck: every guess right";
  // One pile rising to its top card, then falling: 1 (0 guessed), 2, 4 (3
  // guessed), then falling: 3, 0 (the highest unseen below 3 is 0).
  EXPECT_EQ(bin_of<ShelfGuessTally>({1, 2, 4, 3, 0}), 3u);
  // Reversed: the first guess (0) misses; nothing is left above 4, so the
  // guesser turns down and names 3, 2, 1, 0.
  EXPECT_EQ(bin_of<ShelfGuessTally>({4, 3, 2, 1, 0}), 4u);
  // Two piles, (0 2 5 1) and (3 4): 0 right; 1 named for 2, 3 for 5, and 4
  // for 1 (nothing above 5: down); below 1 nothing is left, so up: 3, 4.
  EXPECT_EQ(bin_of<ShelfGuessTally>({0, 2, 5, 1, 3, 4}), 3u);
  std::vector<int> big(300);
  for (int i = 0; i < 300; ++i) big[i] = 299 - i;  // past the first 64-bit word, falling
  EXPECT_EQ(bin_of<ShelfGuessTally>(big), 299u) << "all but the first card, named on the way down";
}

// Whatever the strategy, the null law holds over all 7! decks.
TEST(GuessingTest, TheShelfGuessersScoreOnEveryDeckOfSevenIsTheNullLaw) {
  const int n = 7;
  std::vector<std::uint64_t> scores(n + 1, 0);
  for (std::uint64_t r = 0; r < factorial(n); ++r) ++scores[bin_of<ShelfGuessTally>(lehmer_unrank(r, n))];
  const std::vector<double> law = correct_guesses_law(n);
  for (int c = 0; c <= n; ++c) EXPECT_NEAR(static_cast<double>(scores[c]), law[c] * 5040, 1e-9) << c << " correct";
}

TEST(ValleyTest, CountsTheCardsBelowBothNeighbours) {
  EXPECT_EQ(bin_of<ValleyTally>({0, 1, 2, 3}), 0u);
  EXPECT_EQ(bin_of<ValleyTally>({3, 0, 2, 1, 4}), 2u) << "0 and 1";
  EXPECT_EQ(bin_of<ValleyTally>({1, 0}), 0u) << "an end is no valley";
  EXPECT_EQ(bin_of<ValleyTally>({2, 0, 1}), 1u);
}

// One pass of 10 shelves leaves at most 9 valleys and a guesser who follows
// the piles names about 9.3 cards; two passes are far nearer uniform.
TEST(ShelfAudit, OnePassFailsTheValleyAndGuessingTestsAndTwoPassesFitTheirLaw) {
  Job job;
  job.algorithm = Algorithm::shelf;
  job.shelves = 10;
  job.passes = 1;
  job.n = 52;
  job.trials = 2000;
  job.tallies = TallySet{TallyKind::valleys, TallyKind::shelf_guesses};
  const RunResult one = run(job);
  const AuditReport report = analyze(job, one.tally, AuditOptions{});
  ASSERT_TRUE(report.test(TallyKind::valleys) && report.test(TallyKind::shelf_guesses));
  EXPECT_EQ(report.test(TallyKind::valleys)->verdict, Verdict::fail);
  EXPECT_EQ(report.test(TallyKind::shelf_guesses)->verdict, Verdict::fail);
  const std::vector<std::uint64_t>& v = one.tally[TallyKind::valleys].counts();
  for (std::size_t b = 10; b < v.size(); ++b) EXPECT_EQ(v[b], 0u) << b << " valleys after 10 shelves";
  const StatisticLaw law = closed_form_law(Algorithm::shelf, shape_of(job));
  AuditOptions against;
  against.statistic_model = &law;
  const AuditReport fit = analyze(job, one.tally, against);
  EXPECT_NE(fit.test(TallyKind::valleys)->verdict, Verdict::fail) << "p " << fit.test(TallyKind::valleys)->fit.p_value;
  // One deck with more valleys than 10 shelves can leave, among them: the
  // law rules it out, and the pooled test must not hide it in a neighbour.
  Tally mixed = one.tally;
  mixed[TallyKind::valleys].add(12);
  ++mixed.trials;
  const AuditReport odd = analyze(job, mixed, against);
  ASSERT_TRUE(odd.test(TallyKind::valleys).has_value());
  EXPECT_EQ(odd.test(TallyKind::valleys)->fit.impossible, 1u);
  EXPECT_EQ(odd.verdict, Verdict::fail);
  job.passes = 2;
  const StatisticLaw two = closed_form_law(Algorithm::shelf, shape_of(job));
  against.statistic_model = &two;
  EXPECT_EQ(analyze(job, one.tally, against).verdict, Verdict::fail) << "one pass is not two";
}

TEST(TallyKinds, EveryRowIsFoundByItsNames) {
  std::set<std::string_view> names, keys;
  for (const TallyKindRow& row : kTallyKindRows) {
    EXPECT_EQ(tally_kind_named(row.name), row.kind) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << "two rows named " << row.name;
    EXPECT_TRUE(keys.insert(row.json_key).second) << "two rows under the JSON key " << row.json_key;
  }
  EXPECT_FALSE(tally_kind_named("none").has_value());
  EXPECT_FALSE(tally_kind_named("rank").has_value());
}

TEST(TallyKinds, EverySetOfKindsReadsBackFromItsNames) {
  for (unsigned bits = 0; bits < (1u << kTallyKinds); ++bits) {
    TallySet set;
    for (TallyKind k : kAllTallyKinds) set.set(k, (bits >> static_cast<unsigned>(k)) & 1u);
    EXPECT_EQ(parse_tally_names(tally_names(set)), set) << tally_names(set);
  }
  EXPECT_EQ(tally_names(TallySet{}), "none");
  EXPECT_EQ(tally_names(TallySet{TallyKind::ranks, TallyKind::poker}), "ranks categories");
  EXPECT_FALSE(parse_tally_names("ranks cards").has_value());
}

// A shape each kind can tally, from a few candidates: the first whose row's
// check passes.
Job job_for(TallyKind kind, std::uint64_t trials) {
  for (auto [n, k] : {std::pair{5, 0}, std::pair{7, 3}, std::pair{52, 5}}) {
    Job job;
    job.algorithm = k ? Algorithm::partial : Algorithm::fisher_yates;
    job.n = n;
    job.k = k;
    job.seed = 1234;
    job.trials = trials;
    job.tallies = TallySet{kind};
    try {
      validate(job);
      return job;
    } catch (const UsageError&) {
    }
  }
  ADD_FAILURE() << row_of(kind).name << " fits none of the shapes tried";
  return Job{};
}

RunResult run_on(const Job& job, const std::string& backend = "scalar", int threads = 1) {
  RunOptions o;
  o.backend = backend;
  o.threads = threads;
  return run(job, o);
}

TEST(TallyKinds, EachKindCountsItsBinsAndAddsUp) {
  for (const TallyKindRow& row : kTallyKindRows) {
    const Job job = job_for(row.kind, 3000);
    const Tally t = run_on(job).tally;
    const TallyCounts& c = t[row.kind];
    EXPECT_EQ(c.bins(), row.bins(shape_of(job))) << row.name;
    EXPECT_EQ(tally_bytes(job), 8 * c.bins()) << row.name;
    EXPECT_EQ(tally_inconsistency(job, t, job.trials), "") << row.name;
    const std::uint64_t per_trial = row.layout == CountsLayout::matrix ? static_cast<std::uint64_t>(shape_of(job).k) : 1;
    EXPECT_EQ(c.total(), job.trials * per_trial) << row.name;
    for (TallyKind other : kAllTallyKinds) {
      if (other != row.kind) {
        EXPECT_TRUE(t[other].empty()) << row.name << " made counts of another kind";
      }
    }

    // One count moved to the wrong total is seen.
    Tally broken = t;
    ++broken[row.kind].counts()[0];
    EXPECT_NE(tally_inconsistency(job, broken, job.trials), "") << row.name;
  }
}

TEST(TallyKinds, KindsCountAloneAsTheyDoTogether) {
  Job together = job_for(TallyKind::poker, 4000);
  for (TallyKind k : kAllTallyKinds) {
    Job with = together;
    with.tallies.set(k);
    try {
      validate(with);
    } catch (const UsageError&) {
      continue;
    }
    if (tally_bytes(with) <= (std::uint64_t{64} << 20)) together = with;
  }
  const Tally all = run_on(together).tally;
  for (TallyKind k : kAllTallyKinds) {
    if (!together.tallies.has(k)) continue;
    Job alone = together;
    alone.tallies = TallySet{k};
    EXPECT_EQ(run_on(alone).tally[k], all[k]) << row_of(k).name;
  }
}

TEST(TallyKinds, EachKindMergesOverAnySplit) {
  for (const TallyKindRow& row : kTallyKindRows) {
    const Job job = job_for(row.kind, 2500);
    const Tally whole = run_on(job).tally;
    Job first = job, second = job;
    first.trials = 777;
    second.first = 777;
    second.trials = job.trials - 777;
    Tally merged = run_on(first).tally;
    merged.merge(run_on(second).tally);
    EXPECT_EQ(merged, whole) << row.name;
    EXPECT_EQ(run_on(job, "auto", 2).tally[row.kind], whole[row.kind]) << row.name << " on two threads";
  }
}

// Each kind through the documents: an audit's JSON of two halves, merged by
// the library, is the tally of one run over both.
TEST(TallyKinds, EachKindComesBackWholeThroughJsonAndMerge) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "melange_tallies_test";
  std::filesystem::create_directories(dir);
  for (const TallyKindRow& row : kTallyKindRows) {
    const Job job = job_for(row.kind, 2000);
    std::vector<std::string> paths;
    for (auto [first, trials] : {std::pair<std::uint64_t, std::uint64_t>{1000, 1000}, {0, 1000}}) {
      Job half = job;
      half.first = first;
      half.trials = trials;
      const RunResult r = run_on(half);
      const AuditReport audit = analyze(half, r.tally);
      paths.push_back((dir / (std::string(row.name) + std::to_string(first) + ".json")).string());
      std::ofstream out(paths.back());
      report::write_audit_json(out, half, r, audit);
    }
    const report::MergedResult m = report::merge_results(paths, std::uint64_t{1} << 30);
    EXPECT_EQ(m.job.trials, job.trials) << row.name;
    EXPECT_EQ(m.run.tally, run_on(job).tally) << row.name;
  }
  std::filesystem::remove_all(dir);
}

TEST(TallyKinds, AHistogramTestRunsForEachKindThatHasOne) {
  for (const TallyKindRow& row : kTallyKindRows) {
    if (!row.histogram_test) continue;
    // Enough trials for 5 expected in the rarest bin (4 royal flushes in
    // 2,598,960 hands: 3.2 million deals).
    const Job job = job_for(row.kind, 4'000'000);
    const AuditReport r = analyze(job, run_on(job, "auto", 2).tally);
    ASSERT_TRUE(r.test(row.kind).has_value()) << row.name;
    EXPECT_EQ(r.test(row.kind)->name, row.test_name);
    EXPECT_GE(r.test(row.kind)->p_holm, 1e-6) << row.name << " of a fair shuffle";
    // Its own test, its mean's and its tail's where the row has them.
    EXPECT_EQ(r.tests().size(), 1u + (row.mean_test != MeanTail::none) + (row.tail_bins > 0)) << row.name;
    for (const TestResult* t : r.tests()) EXPECT_GE(t->p_holm, 1e-6) << t->name << " of a fair shuffle";
  }
}

}  // namespace
}  // namespace melange
