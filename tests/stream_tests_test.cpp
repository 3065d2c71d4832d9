// The stream tests (stream_tests.hpp): the exact laws they test against,
// what they count on streams whose answer is known by construction, that
// the count does not depend on how the records are cut into batches, and
// their calibration on fair streams (p-values uniform, Kolmogorov-Smirnov
// at 1e-6, as calibration_test does for the one-record tests).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "ks_support.hpp"
#include "melange/audit.hpp"
#include "melange/audit_plan.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"
#include "melange/serve.hpp"
#include "melange/stream_tests.hpp"
#include "record_audit_support.hpp"

namespace melange {
namespace {

constexpr double kNeverFlakes = 1e-6;

// ---- Laws ------------------------------------------------------------------

TEST(StreamLaws, EulerianNumbersOfFourItems) {
  const std::vector<Rational> law = eulerian_law(4);
  ASSERT_EQ(law.size(), 4u);
  EXPECT_EQ(law[0], Rational(1, 24));
  EXPECT_EQ(law[1], Rational(11, 24));
  EXPECT_EQ(law[2], Rational(11, 24));
  EXPECT_EQ(law[3], Rational(1, 24));
}

TEST(StreamLaws, EulerianLawSumsToOneWithItsMoments) {
  for (int n : {2, 3, 7, 52, 200}) {
    const std::vector<Rational> law = eulerian_law(n);
    Rational total = 0, mean = 0, square = 0;
    for (std::size_t r = 0; r < law.size(); ++r) {
      total += law[r];
      mean += law[r] * static_cast<long long>(r);
      square += law[r] * static_cast<long long>(r * r);
    }
    EXPECT_EQ(total, 1) << n;
    // R - 1 has mean (n - 1)/2 and variance (n + 1)/12.
    EXPECT_EQ(mean, Rational(n - 1, 2)) << n;
    EXPECT_EQ(square - mean * mean, Rational(n + 1, 12)) << n;
  }
}

TEST(StreamLaws, EulerianProbabilitiesAreTheRationalsRounded) {
  for (int n : {4, 52, 171, 300}) {
    const std::vector<Rational> exact = eulerian_law(n);
    const std::vector<double> p = eulerian_probabilities(n);
    for (std::size_t r = 0; r < p.size(); ++r)
      EXPECT_NEAR(p[r], static_cast<double>(exact[r]), 1e-15 * static_cast<double>(exact[r]) + 1e-300) << n << " " << r;
  }
  const Moments m = moments_of(eulerian_probabilities(1024));
  EXPECT_NEAR(m.mean, 1023.0 / 2, 1e-9);
  EXPECT_NEAR(m.variance, 1025.0 / 12, 1e-9);
}

TEST(StreamLaws, HandOverlapIsHypergeometric) {
  for (auto [n, k] : {std::pair{52, 5}, std::pair{7, 3}, std::pair{10, 9}}) {
    const std::vector<Rational> law = hand_overlap_law(n, k);
    Rational total = 0, mean = 0, square = 0;
    for (std::size_t x = 0; x < law.size(); ++x) {
      total += law[x];
      mean += law[x] * static_cast<long long>(x);
      square += law[x] * static_cast<long long>(x * x);
    }
    EXPECT_EQ(total, 1);
    EXPECT_EQ(mean, Rational(k * k, n));
    EXPECT_EQ(square - mean * mean, Rational(k * k * (n - k) * (n - k), n * n * (n - 1)));
  }
}

// R by its definition: 1 + the items c whose successor lies to their left.
std::uint64_t rising_sequences(const std::vector<std::uint16_t>& p) {
  std::vector<int> where(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) where[p[i]] = static_cast<int>(i);
  std::uint64_t r = 1;
  for (std::size_t c = 0; c + 1 < p.size(); ++c) r += where[c + 1] < where[c];
  return r;
}

struct BinCounter {
  std::uint64_t bin = 0;
  void add(TallyKind, std::uint64_t b) { bin = b; }
};

TEST(StreamLaws, RiseTallyCountsRisingSequences) {
  std::mt19937_64 rng(7);
  for (int n : {1, 2, 5, 63, 64, 65, 300, 1024}) {
    std::vector<std::uint16_t> p(static_cast<std::size_t>(n));
    for (int trial = 0; trial < 20; ++trial) {
      std::iota(p.begin(), p.end(), std::uint16_t{0});
      std::shuffle(p.begin(), p.end(), rng);
      BinCounter c;
      RiseTally::count(p, Shape{n, n}, c);
      EXPECT_EQ(c.bin + 1, rising_sequences(p)) << "n " << n;
    }
  }
  // Every order of 5: the histogram of R is the Eulerian numbers.
  std::vector<std::uint64_t> h(5, 0);
  for (std::uint64_t r = 0; r < 120; ++r) {
    const std::vector<int> q = lehmer_unrank(r, 5);
    BinCounter c;
    RiseTally::count(q, Shape{5, 5}, c);
    ++h[c.bin];
  }
  EXPECT_EQ(h, (std::vector<std::uint64_t>{1, 26, 66, 26, 1}));
}

// Every sequence of m draws from N outcomes, counted by its repeats.
TEST(StreamLaws, RepeatsLawIsTheCountOverEverySequence) {
  for (auto [m, big_n] : {std::pair{6, 5}, std::pair{4, 9}, std::pair{7, 3}}) {
    std::vector<double> with(static_cast<std::size_t>(m) + 1, 0.0);
    std::vector<int> draw(static_cast<std::size_t>(m), 0);
    double sequences = 0;
    for (;;) {
      std::set<int> seen(draw.begin(), draw.end());
      with[static_cast<std::size_t>(m) - seen.size()] += 1;
      sequences += 1;
      int i = 0;
      while (i < m && ++draw[static_cast<std::size_t>(i)] == big_n) draw[static_cast<std::size_t>(i++)] = 0;
      if (i == m) break;
    }
    double at_least = 0;
    for (int d = m; d >= 0; --d) {
      at_least += with[static_cast<std::size_t>(d)] / sequences;
      EXPECT_NEAR(repeats_at_least(static_cast<std::uint64_t>(m), big_n, static_cast<std::uint64_t>(d)), at_least,
                  1e-12)
          << "m " << m << ", N " << big_n << ", d " << d;
    }
  }
  // The birthday problem: P(some repeat) = 1 - prod (1 - t/N).
  double none = 1;
  for (int t = 0; t < 23; ++t) none *= 1 - t / 365.0;
  EXPECT_NEAR(repeats_at_least(23, 365, 1), 1 - none, 1e-12);
}

// ---- What a stream counts ----------------------------------------------------

std::vector<std::uint16_t> fair_records(int n, int k, std::uint64_t records, std::uint64_t seed) {
  Job job;
  job.algorithm = k < n ? Algorithm::partial : Algorithm::fisher_yates;
  job.n = n;
  job.k = k < n ? k : 0;
  job.seed = seed;
  job.trials = records;
  std::vector<std::uint16_t> out(records * static_cast<std::uint64_t>(k));
  fill_records(job, out);
  return out;
}

StreamTestOptions with_repeats(std::vector<int> lags = {1}) {
  StreamTestOptions o;
  o.lags = std::move(lags);
  o.repeat_bytes = std::uint64_t{1} << 26;
  return o;
}

TEST(StreamTally, TheSameRecordAgainIsTheIdentityRelabeled) {
  StreamTally s(Shape{6, 6}, with_repeats());
  const std::vector<std::uint16_t> r{3, 1, 4, 0, 5, 2};
  for (int t = 0; t < 10; ++t) s.add(r.data());
  s.flush();
  const LagTally& lag = s.lags()[0];
  EXPECT_EQ(lag.tally.trials, 9u);
  for (int p = 0; p < 6; ++p) EXPECT_EQ(lag.tally[TallyKind::positions].at(p, p), 9u);
  EXPECT_EQ(lag.tally[TallyKind::ranks].counts()[0], 9u);  // the identity
  EXPECT_EQ(s.repeats().covered, 10u);
  EXPECT_EQ(s.repeats().repeats, 9u);
  EXPECT_TRUE(s.repeats().exact);
}

TEST(StreamTally, RelabelingReadsRecordTAgainstRecordTMinusLag) {
  // sigma_{t-1} = (2 0 1), sigma_t = (0 1 2): the items at positions 0, 1,
  // 2 of the record before are now at positions 2, 0, 1.
  StreamTally s(Shape{3, 3}, StreamTestOptions{{1}, 0, false});
  const std::vector<std::uint16_t> a{2, 0, 1}, b{0, 1, 2};
  s.add(a.data());
  s.add(b.data());
  s.flush();
  const TallyCounts& c = s.lags()[0].tally[TallyKind::positions];
  EXPECT_EQ(c.at(0, 2), 1u);
  EXPECT_EQ(c.at(1, 0), 1u);
  EXPECT_EQ(c.at(2, 1), 1u);
}

TEST(StreamTally, DealsRelabelTheHandBeforeAsTheFirstItems) {
  // Deal (5 2) then (2 9) of 10: the deal before labels 5 as 0 and 2 as 1,
  // the items it left as 2.. in item order (0 1 3 4 6 7 8 9), so item 9 is
  // label 9 and the second deal reads (1 9): one card shared.
  StreamTally s(Shape{10, 2}, StreamTestOptions{{1}, 0, false});
  const std::vector<std::uint16_t> a{5, 2}, b{2, 9};
  s.add(a.data());
  s.add(b.data());
  s.flush();
  const Tally& t = s.lags()[0].tally;
  EXPECT_EQ(t[TallyKind::positions].at(1, 0), 1u);  // label 1 (item 2) at slot 0
  EXPECT_EQ(t[TallyKind::positions].at(9, 1), 1u);  // item 9: the 8th undealt item, label 2 + 7
  EXPECT_EQ(t[TallyKind::overlaps].counts()[1], 1u);  // one card shared
}

TEST(StreamTally, RepeatsByEveryKindOfKey) {
  // n 6 and 12: a bitmap of ranks; n 13: ranks in a table (13! is past
  // the bitmap); n 30: fingerprints; 52/5 as hands: colex ranks of sorted hands.
  for (int n : {6, 12, 13, 30}) {
    const std::vector<std::uint16_t> fair = fair_records(n, n, 300, 11);
    StreamTally s(Shape{n, n}, with_repeats());
    for (int t = 0; t < 300; ++t) s.add(fair.data() + t * n);
    for (int t = 0; t < 50; ++t) s.add(fair.data() + (t * 7 % 300) * n);  // 50 records seen before
    s.flush();
    std::set<std::vector<std::uint16_t>> distinct;
    for (int t = 0; t < 300; ++t) distinct.emplace(fair.begin() + t * n, fair.begin() + (t + 1) * n);
    const RepeatCount& r = s.repeats();
    EXPECT_EQ(r.covered, 350u) << n;
    EXPECT_EQ(r.repeats, 350u - distinct.size()) << n;
    EXPECT_EQ(r.exact, n <= 20) << n;
  }
  StreamTestOptions hands = with_repeats();
  hands.hands = true;
  StreamTally s(Shape{52, 5}, hands);
  const std::vector<std::uint16_t> a{1, 2, 3, 4, 5}, b{5, 4, 3, 2, 1}, c{5, 4, 3, 2, 0};
  s.add(a.data());
  s.add(b.data());
  s.add(c.data());
  s.flush();
  EXPECT_EQ(s.repeats().repeats, 1u);
}

TEST(StreamTally, RepeatsPastTheBudgetCoverTheFirstRecords) {
  StreamTestOptions o;
  o.lags = {};
  o.repeat_bytes = 16 * 8192;  // a table of 8,192 keys, half of them used before it must grow
  const std::vector<std::uint16_t> fair = fair_records(30, 30, 10000, 3);
  StreamTally s(Shape{30, 30}, o);
  for (int t = 0; t < 10000; ++t) s.add(fair.data() + t * 30);
  s.flush();
  EXPECT_TRUE(s.repeats().capped);
  EXPECT_EQ(s.repeats().covered, 4096u);
  EXPECT_EQ(s.repeats().repeats, 0u);
}

// Everything a stream tally counted, for comparing two of them.
void expect_same_stream(StreamTally& a, StreamTally& b, const std::string& where) {
  a.flush();
  b.flush();
  ASSERT_EQ(a.records(), b.records()) << where;
  for (std::size_t i = 0; i < a.lags().size(); ++i) {
    EXPECT_EQ(a.lags()[i].job.trials, b.lags()[i].job.trials) << where << " lag " << a.lags()[i].lag;
    EXPECT_TRUE(a.lags()[i].tally == b.lags()[i].tally) << where << " lag " << a.lags()[i].lag;
  }
  ASSERT_EQ(a.has_repeats(), b.has_repeats());
  if (a.has_repeats()) {
    EXPECT_EQ(a.repeats().covered, b.repeats().covered) << where;
    EXPECT_EQ(a.repeats().repeats, b.repeats().repeats) << where;
    EXPECT_EQ(a.repeats().capped, b.repeats().capped) << where;
  }
  ASSERT_EQ(a.serial_pairs() != nullptr, b.serial_pairs() != nullptr);
  if (a.serial_pairs()) {
    EXPECT_EQ(a.serial_pairs()->pairs, b.serial_pairs()->pairs) << where;
    EXPECT_EQ(a.serial_pairs()->first, b.serial_pairs()->first) << where;
    EXPECT_EQ(a.serial_pairs()->last, b.serial_pairs()->last) << where;
    EXPECT_EQ(a.gaps()->bins, b.gaps()->bins) << where;
    EXPECT_EQ(a.gaps()->first, b.gaps()->first) << where;
    EXPECT_EQ(a.gaps()->last, b.gaps()->last) << where;
  }
}

TEST(StreamTally, PiecesAppendedAreTheWholeStream) {
  // Ranked (4 and 6 items), by items (7 and 52), deals; lags longer than
  // some pieces; repeats in a bitmap, a table of ranks and fingerprints.
  struct Case {
    int n, k;
    std::vector<int> lags;
  };
  for (const Case& c : {Case{4, 4, {1, 3}}, Case{6, 6, {2, 5}}, Case{7, 7, {1, 9}}, Case{52, 52, {1, 4}},
                        Case{52, 5, {1, 2}}, Case{13, 13, {1}}}) {
    const int records = 3000;
    std::vector<std::uint16_t> items = fair_records(c.n, c.k, records, 17);
    for (int t = 100; t < records; t += 97)  // records seen before, for the repeats
      std::copy_n(items.begin() + (t - 50) * c.k, c.k, items.begin() + t * c.k);
    StreamTestOptions o = with_repeats();
    o.lags = c.lags;
    StreamTally whole(Shape{c.n, c.k}, o);
    for (int t = 0; t < records; ++t) whole.add(items.data() + t * c.k);
    // Cuts of every kind: an empty piece, single records, pieces shorter
    // than the longest lag, long ones.
    const std::vector<int> cuts{0, 0, 1, 2, 5, 6, 900, 903, 1800, records};
    StreamTally joined(Shape{c.n, c.k}, o);
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
      StreamTally piece(Shape{c.n, c.k}, o);
      for (int t = cuts[p]; t < cuts[p + 1]; ++t) piece.add(items.data() + t * c.k);
      // Every other piece goes through its saved words, as a file or a rank sends it.
      if (p % 2 == 1) {
        StreamTally restored(Shape{c.n, c.k}, o);
        restored.restore(piece.save());
        joined.append(restored);
      } else {
        joined.append(piece);
      }
    }
    const std::string where = "n " + std::to_string(c.n) + " k " + std::to_string(c.k);
    expect_same_stream(joined, whole, where);
    // And a state saved and restored goes on as the stream it was.
    StreamTally head(Shape{c.n, c.k}, o), resumed(Shape{c.n, c.k}, o);
    for (int t = 0; t < 1000; ++t) head.add(items.data() + t * c.k);
    resumed.restore(head.save());
    for (int t = 1000; t < records; ++t) resumed.add(items.data() + t * c.k);
    expect_same_stream(resumed, whole, where + " resumed");
  }
}

TEST(RecordAuditor, AnAuditInPiecesIsTheAuditOfTheWhole) {
  for (const auto& [n, k] : {std::pair{5, 5}, std::pair{8, 8}, std::pair{52, 52}, std::pair{52, 5}}) {
    AuditRequest request;
    request.job.n = n;
    request.job.k = k < n ? k : 0;
    request.records = true;
    request.position = n > 8;
    const AuditPlan plan = plan_audit(request);
    const int records = 4000;
    const std::vector<std::uint16_t> items = fair_records(n, k, records, 5);
    RecordOptions o;
    o.n = n;
    o.k = request.job.k;
    const auto read = [&](RecordAuditor& a, int begin, int end) {
      a.read(RecordArray{items.data() + static_cast<std::size_t>(begin) * k, static_cast<std::uint64_t>(end - begin), k,
                         2, false},
             o);
    };
    RecordAuditor whole(plan.job, AuditOptions{}, RecordLooks{}, plan.stream);
    read(whole, 0, records);
    RecordAuditor joined(plan.job, AuditOptions{}, RecordLooks{}, plan.stream);
    read(joined, 0, 7);
    const std::vector<int> cuts{7, 1500, 1501, records};
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
      RecordAuditor piece(plan.job, AuditOptions{}, RecordLooks{}, plan.stream);
      read(piece, cuts[p], cuts[p + 1]);
      RecordAuditor restored(plan.job, AuditOptions{}, RecordLooks{}, plan.stream);
      restored.restore(piece.save());
      joined.append(restored);
    }
    EXPECT_EQ(joined.counted(), whole.counted());
    EXPECT_TRUE(joined.result().tally == whole.result().tally) << n << " " << k;
    EXPECT_EQ(joined.head(), whole.head());
    AuditOptions audit;
    const auto a = joined.stream(), b = whole.stream();
    audit.stream = a.get();
    const AuditReport x = analyze(joined.job(), joined.result().tally, audit);
    audit.stream = b.get();
    const AuditReport y = analyze(whole.job(), whole.result().tally, audit);
    ASSERT_EQ(x.extra_tests.size(), y.extra_tests.size());
    for (std::size_t i = 0; i < x.extra_tests.size(); ++i)
      EXPECT_EQ(x.extra_tests[i].fit.statistic, y.extra_tests[i].fit.statistic) << x.extra_tests[i].name;
  }
}

TEST(StreamTally, ASavedStateOfOtherOptionsOrCutShortIsRefused) {
  StreamTestOptions o = with_repeats();
  StreamTally a(Shape{5, 5}, o);
  const std::vector<std::uint16_t> items = fair_records(5, 5, 10, 2);
  for (int t = 0; t < 10; ++t) a.add(items.data() + t * 5);
  std::vector<std::uint64_t> words = a.save();
  StreamTestOptions other = o;
  other.lags = {2};
  StreamTally b(Shape{5, 5}, other);
  EXPECT_THROW(b.restore(words), Error);
  StreamTally c(Shape{6, 6}, o);
  EXPECT_THROW(c.restore(words), Error);
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, words.size() / 2, words.size() - 1}) {
    StreamTally d(Shape{5, 5}, o);
    EXPECT_THROW(d.restore(std::span<const std::uint64_t>(words).first(cut)), Error) << cut;
  }
  words.push_back(0);
  StreamTally e(Shape{5, 5}, o);
  EXPECT_THROW(e.restore(words), Error);
}

TEST(StreamTally, LagsAreChecked) {
  for (const std::vector<int>& lags : {std::vector<int>{0}, std::vector<int>{1, 1}, std::vector<int>{kMaxLag + 1},
                                       std::vector<int>(kMaxLags + 1, 1)}) {
    try {
      StreamTally s(Shape{4, 4}, StreamTestOptions{lags, 0, false});
      ADD_FAILURE() << "lags accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(e.param(), Param::lags) << e.what();
    }
  }
}

AuditReport audit_records_of(const std::vector<std::uint16_t>& items, int n, int k, std::size_t block_bytes) {
  return testing::audit_record_array(items, n, k, {}, block_bytes);
}

TEST(StreamTally, BatchesDoNotChangeWhatIsCounted) {
  const std::vector<std::uint16_t> items = fair_records(5, 5, 5000, 9);
  const AuditReport whole = audit_records_of(items, 5, 5, std::size_t{1} << 20);
  for (std::size_t block : {std::size_t{10}, std::size_t{64}, std::size_t{999}}) {
    const AuditReport cut = audit_records_of(items, 5, 5, block);
    ASSERT_EQ(cut.extra_tests.size(), whole.extra_tests.size());
    for (std::size_t i = 0; i < cut.extra_tests.size(); ++i) {
      EXPECT_EQ(cut.extra_tests[i].name, whole.extra_tests[i].name);
      EXPECT_EQ(cut.extra_tests[i].fit.statistic, whole.extra_tests[i].fit.statistic) << cut.extra_tests[i].name;
    }
  }
}

TEST(StreamTally, AFairStreamPassesEveryStreamTest) {
  const std::vector<std::uint16_t> items = fair_records(5, 5, 100000, 1);
  const AuditReport r = audit_records_of(items, 5, 5, std::size_t{1} << 20);
  std::vector<std::string> names;
  for (const TestResult& t : r.extra_tests) names.push_back(t.name);
  for (const char* expected : {"rises mean", "serial pairs", "gaps", "lag 1 rank", "lag 1 position", "lag 1 rises",
                               "lag 1 rises mean", "lag 1 fixed points"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  for (const TestResult* t : r.tests())
    EXPECT_EQ(t->verdict, Verdict::pass) << t->name << ": statistic " << t->fit.statistic << ", p " << t->fit.p_value
                                         << ", Holm p " << t->p_holm;
}

// Each record is the one before with a uniform odd permutation applied:
// tau_t is uniform on the odd orders. The records alternate in parity, so
// over the stream every order is as frequent as the others; the odd orders
// move any two items to any two places, so the transition matrix is flat;
// but half the orders never come as tau, which the lag's rank test sees,
// here at n = 9 (5 expected in each of 9! bins).
bool odd(const std::vector<std::uint16_t>& p) {
  // (n - cycles) transpositions make p.
  std::vector<bool> seen(p.size());
  std::size_t cycles = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (seen[i]) continue;
    ++cycles;
    for (std::size_t j = i; !seen[j]; j = p[j]) seen[j] = true;
  }
  return (p.size() - cycles) % 2 == 1;
}

TEST(StreamTally, TheLagRankTestSeesRelabeledRecordsOfOneParity) {
  const int n = 9;
  const std::uint64_t records = 5 * factorial(n) + 1;
  std::vector<std::uint16_t> items(records * n);
  std::mt19937_64 rng(2026);
  std::vector<std::uint16_t> pi(n);
  std::iota(items.begin(), items.begin() + n, 0);
  std::shuffle(items.begin(), items.begin() + n, rng);
  for (std::uint64_t t = 1; t < records; ++t) {
    std::iota(pi.begin(), pi.end(), 0);
    std::shuffle(pi.begin(), pi.end(), rng);
    if (!odd(pi)) std::swap(pi[0], pi[1]);
    const std::uint16_t* before = items.data() + (t - 1) * n;
    for (int q = 0; q < n; ++q) items[t * n + q] = before[pi[q]];  // record t at q: the item at pi[q] of record t - 1
  }
  const AuditReport r = audit_records_of(items, n, n, std::size_t{1} << 20);
  bool ranked = false;
  for (const TestResult* t : r.tests()) {
    if (t->name == "lag 1 position" || t->name == "rank" || t->name == "position" || t->name == "repeats") {
      EXPECT_EQ(t->verdict, Verdict::pass) << t->name << ": p " << t->fit.p_value;
    }
    if (t->name != "lag 1 rank") continue;
    ranked = true;
    EXPECT_EQ(t->verdict, Verdict::fail) << "statistic " << t->fit.statistic << ", p " << t->fit.p_value;
  }
  EXPECT_TRUE(ranked) << "no lag 1 rank test at n = " << n;
  EXPECT_EQ(r.verdict, Verdict::fail);
}

// A built-in job's serial kinds pair trial t with trial t - 1: the stream
// of trials first - 1 .. first + m - 1 read as records gives the same
// relabeled tallies, its first record serving only as the one before.
TEST(SerialKinds, AreTheStreamOfTheTrialsBeforeAndIn) {
  for (auto [n, k, first] : {std::tuple{5, 5, std::uint64_t{0}}, std::tuple{9, 9, std::uint64_t{77}},
                             std::tuple{10, 10, std::uint64_t{3}}, std::tuple{12, 4, std::uint64_t{5}}}) {
    Job job;
    job.algorithm = k < n ? Algorithm::partial : Algorithm::fisher_yates;
    job.n = n;
    job.k = k < n ? k : 0;
    job.seed = 99;
    job.first = first;
    job.trials = 3000;
    job.tallies = TallySet{TallyKind::ranks};
    if (k < n) job.tallies = TallySet{TallyKind::positions};
    for (TallyKind kind : AllSerialDefinitions::kinds) {
      try {
        row_of(kind).check(shape_of(job));
        job.tallies.set(kind);
      } catch (const UsageError&) {
      }
    }
    RunOptions o;
    o.threads = 2;
    const Tally serial = run(job, o).tally;

    // The trial before the first (wrapping below 0), then the job's own.
    Job before = job;
    before.first = first - 1;
    before.trials = 1;
    const auto width = static_cast<std::uint64_t>(k);
    std::vector<std::uint16_t> items((job.trials + 1) * width);
    fill_records(before, std::span(items).first(width));
    fill_records(job, std::span(items).subspan(width));
    Job records = job;
    records.trials = job.trials + 1;
    StreamTally stream(Shape{n, k}, StreamTestOptions{{1}, 0, false});
    for (std::uint64_t t = 0; t < records.trials; ++t) stream.add(items.data() + t * static_cast<std::uint64_t>(k));
    stream.flush();
    const Tally& lag = stream.lags()[0].tally;
    EXPECT_EQ(serial[TallyKind::lag_positions].counts(), lag[TallyKind::positions].counts()) << n;
    if (k == n) {
      EXPECT_EQ(serial[TallyKind::lag_rises].counts(), lag[TallyKind::rises].counts()) << n;
    } else {
      EXPECT_EQ(serial[TallyKind::lag_overlaps].counts(), lag[TallyKind::overlaps].counts()) << n;
    }
    if (job.tallies.has(TallyKind::lag_ranks)) {
      EXPECT_EQ(serial[TallyKind::lag_ranks].counts(), lag[TallyKind::ranks].counts()) << n;
    }
    if (job.tallies.has(TallyKind::serial_pairs)) {
      EXPECT_EQ(serial[TallyKind::serial_pairs].counts(), stream.serial_pairs()->pairs) << n;
    }
  }
}

// The SIMD lanes count a serial job of n <= 5 from their ranks in trial
// order: the same tally as the reference loop, bit for bit, rejected lanes
// (redone by the reference) and ranges that start anywhere included.
TEST(SerialKinds, LanesCountWhatTheReferenceLoopCounts) {
  for (auto [n, method, bits] : {std::tuple{4, Method::batched, 32}, std::tuple{5, Method::lemire, 4},
                                 std::tuple{3, Method::modulo, 32}, std::tuple{5, Method::rejection, 3}}) {
    AuditRequest r;
    r.job.n = n;
    r.job.spec = BoundedSpec{method, bits};
    r.job.first = 1'000'003;
    r.job.trials = 200'001;
    r.serial = true;
    const Job job = plan_audit(r).job;
    RunOptions scalar;
    scalar.backend = "scalar";
    const RunResult reference = run(job, scalar);
    for (int threads : {1, 2}) {
      RunOptions lanes;
      lanes.backend = "simd";
      lanes.threads = threads;
      const RunResult simd = run(job, lanes);
      EXPECT_EQ(simd.backend, "simd") << simd.note;
      EXPECT_EQ(simd.tally, reference.tally) << "n " << n << " " << method_name(method) << ", " << threads << " threads";
    }
  }
}

TEST(SerialKinds, MelangesOwnStreamPasses) {
  // melange's own trials t and t + 1 differ in one counter word: as a
  // stream they must pass, on every split.
  AuditRequest r;
  r.job.n = 4;
  r.job.trials = 2'000'000;
  r.serial = true;
  const AuditPlan plan = plan_audit(r);
  const AuditReport a = analyze(plan.job, run(plan.job, RunOptions{}).tally);
  for (const TestResult* t : a.tests()) EXPECT_EQ(t->verdict, Verdict::pass) << t->name << " p " << t->fit.p_value;
  std::vector<std::string> names;
  for (const TestResult& t : a.extra_tests) names.push_back(t.name);
  for (const char* expected : {"serial pairs", "lag 1 position", "lag 1 fixed points", "lag 1 rank"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

// 2,000 records of 9 items: repeats are few (5.5 expected) but the records
// are not few beside 9! (the Poisson law's range ends at 36): the exact
// law grades them. A shuffler with 4,096 seeds repeats about 490 times.
TEST(StreamTally, FewRepeatsAmongManyOutcomesGetTheExactLaw) {
  const std::vector<std::uint16_t> fair = fair_records(9, 9, 2000, 4);
  std::vector<std::uint16_t> seeded(fair.size());
  const std::vector<std::uint16_t> decks = fair_records(9, 9, 4096, 5);
  std::mt19937_64 rng(6);
  for (std::size_t t = 0; t < 2000; ++t) {
    const std::size_t deck = rng() % 4096;
    std::copy_n(decks.begin() + static_cast<std::ptrdiff_t>(deck * 9), 9, seeded.begin() + static_cast<std::ptrdiff_t>(t * 9));
  }
  for (const bool flawed : {false, true}) {
    const AuditReport r = audit_records_of(flawed ? seeded : fair, 9, 9, std::size_t{1} << 20);
    const TestResult* repeats = nullptr;
    for (const TestResult& t : r.extra_tests)
      if (t.name == "repeats") repeats = &t;
    ASSERT_NE(repeats, nullptr) << "flawed " << flawed;
    EXPECT_NE(repeats->title.find("exact law"), std::string::npos) << repeats->title;
    EXPECT_EQ(repeats->verdict, flawed ? Verdict::fail : Verdict::pass) << repeats->title << ", p " << repeats->fit.p_value;
  }
}

// Under --serial the repeats come from the rank (deal rank) histogram:
// the count a StreamTally makes of the same trials read as records, on
// every split of the run.
TEST(SerialKinds, RepeatsAreTheStreamsRepeats) {
  for (auto [n, k, trials] : {std::tuple{6, 6, std::uint64_t{600}}, std::tuple{7, 7, std::uint64_t{3000}},
                              std::tuple{12, 3, std::uint64_t{900}}}) {
    AuditRequest r;
    r.job.algorithm = k < n ? Algorithm::partial : Algorithm::fisher_yates;
    r.job.n = n;
    r.job.k = k < n ? k : 0;
    r.job.seed = 5;
    r.job.first = 1000;
    r.job.trials = trials;
    r.serial = true;
    const AuditPlan plan = plan_audit(r);
    std::vector<std::uint16_t> items(trials * static_cast<std::uint64_t>(k));
    fill_records(plan.job, items);
    StreamTally stream(Shape{n, k}, with_repeats());
    for (std::uint64_t t = 0; t < trials; ++t) stream.add(items.data() + t * static_cast<std::uint64_t>(k));
    stream.flush();
    ASSERT_TRUE(stream.repeats().exact);
    for (int threads : {1, 2}) {
      RunOptions o;
      o.threads = threads;
      const AuditReport a = analyze(plan.job, run(plan.job, o).tally);
      const TestResult* repeats = nullptr;
      for (const TestResult& t : a.extra_tests)
        if (t.name == "repeats") repeats = &t;
      ASSERT_NE(repeats, nullptr) << "n " << n << " k " << k;
      const std::string count = std::to_string(stream.repeats().repeats);
      EXPECT_NE((repeats->title + " " + repeats->plain).find(count), std::string::npos)
          << repeats->title << " | " << repeats->plain << " | the stream counts " << count;
    }
  }
}

// ---- Calibration -------------------------------------------------------------

using testing::ks_p_uniform;

// Each stream test's p over 300 fair streams of `records` records.
void expect_calibrated(int n, int k, std::uint64_t records, const std::vector<std::string>& names) {
  std::vector<std::vector<double>> p(names.size());
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const AuditReport r = audit_records_of(fair_records(n, k, records, seed), n, k, std::size_t{1} << 20);
    for (std::size_t i = 0; i < names.size(); ++i)
      for (const TestResult& t : r.extra_tests)
        if (t.name == names[i]) p[i].push_back(t.fit.p_value);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    ASSERT_EQ(p[i].size(), 300u) << names[i];
    const double ks = ks_p_uniform(p[i]);
    std::printf("%s, n %d k %d, %llu records: KS p %.3g\n", names[i].c_str(), n, k,
                static_cast<unsigned long long>(records), ks);
    EXPECT_GE(ks, kNeverFlakes) << names[i];
  }
}

TEST(StreamCalibration, PermutationsOfFive) {
  expect_calibrated(5, 5, 2000, {"rises mean", "lag 1 position", "lag 1 fixed points", "lag 1 rises",
                                 "lag 1 rises mean", "lag 1 rank"});
}

TEST(StreamCalibration, SerialPairsAndRepeatsOfSmallDecks) {
  expect_calibrated(4, 4, 3000, {"serial pairs", "gaps"});
  expect_calibrated(5, 5, 20000, {"gaps"});
  expect_calibrated(7, 7, 3000, {"repeats"});
}

TEST(StreamCalibration, DecksOfFiftyTwo) {
  expect_calibrated(52, 52, 600, {"rises mean", "lag 1 position", "lag 1 fixed points", "lag 1 rises mean"});
}

TEST(StreamCalibration, Deals) {
  expect_calibrated(7, 3, 2000, {"lag 1 slot", "lag 1 overlap", "lag 1 overlap mean", "lag 1 fixed points"});
}

}  // namespace
}  // namespace melange
