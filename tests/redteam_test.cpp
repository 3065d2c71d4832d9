// The red team: shufflers that fail as real dealers have (shufflers.hpp),
// each audited as its records arrive, must FAIL within the records the
// table below allows; fair ones must PASS. Each line prints the first look
// (2^10, 2^11, .. records, graded at alpha / (j (j + 1))) that FAILed, for
// the record; the assertion is the audit of exactly the allowed records.
#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "melange/audit.hpp"
#include "melange/audit_plan.hpp"
#include "record_audit_support.hpp"
#include "redteam/shufflers.hpp"

namespace melange {
namespace {

struct Flaw {
  const char* name;
  int n, k;
  std::uint64_t within;  // the records it must FAIL within
};

// The flaws and their budgets (issue: "a PASS that means the dealer is sound").
constexpr Flaw kFlaws[] = {
    {"mt-seed32", 52, 52, 250'000},
    {"java-clock", 52, 52, 4'096},
    {"java-counter", 52, 52, 1'024},
    {"lcg-counter", 52, 52, 1'024},
    {"cycle", 4, 4, 4'096},
    {"swap-walk", 4, 4, 1'024},
    {"riffle3-previous", 52, 52, 1'024},
    {"riffle3-previous", 52, 5, 1'024},
    {"riffle7-new", 52, 52, 1'024},
    {"reuse", 52, 52, 110'000},  // state reused after 100,000 decks: within 10,000 after
    {"cut-previous", 52, 52, 1'024},
    {"java-counter", 52, 5, 4'000'000},
    // Caught by the exact tests that run at any size: the fixed points,
    // the max-cell test, the strong hands (a straight or better) pooled
    // categories no longer wait for the royal flush to expect 5.
    {"sattolo", 52, 52, 64},
    {"stuck-top", 52, 52, 32'768},
    {"rigged-redeal", 52, 5, 65'536},
};

std::vector<std::uint16_t> records_of(std::string_view name, int n, int k, std::uint64_t records,
                                      std::uint64_t seed) {
  redteam::Shuffler s = redteam::make_shuffler(name, n, k, seed);
  std::vector<std::uint16_t> out(records * static_cast<std::uint64_t>(k));
  for (std::uint64_t r = 0; r < records; ++r) s.next(out.data() + r * static_cast<std::uint64_t>(k));
  return out;
}

struct Audited {
  AuditReport report;                  // of every record
  std::optional<std::uint64_t> first;  // the first look that FAILed
};

Audited audit(const std::vector<std::uint16_t>& items, int n, int k) {
  Audited a;
  RecordLooks looks;
  looks.enabled = true;
  looks.look = [&a](std::uint64_t records, const AuditReport& r) {
    if (r.verdict == Verdict::fail && !a.first) a.first = records;
  };
  a.report = testing::audit_record_array(items, n, k, looks);
  return a;
}

std::string failing_tests(const AuditReport& r) {
  std::string names;
  for (const TestResult* t : r.tests())
    if (t->verdict == Verdict::fail) names += (names.empty() ? "" : ", ") + t->name;
  return names.empty() ? "none" : names;
}

TEST(RedTeam, EveryFlawFailsWithinItsRecords) {
  for (const Flaw& f : kFlaws) {
    const std::vector<std::uint16_t> items = records_of(f.name, f.n, f.k, f.within, 2026);
    const Audited a = audit(items, f.n, f.k);
    std::printf("%-17s n %2d k %2d: %s at %llu records (%s); first FAILing look: %s\n", f.name, f.n, f.k,
                a.report.verdict ? std::string(verdict_name(*a.report.verdict)).c_str() : "none",
                static_cast<unsigned long long>(f.within), failing_tests(a.report).c_str(),
                a.first ? std::to_string(*a.first).c_str() : "none");
    EXPECT_EQ(a.report.verdict, Verdict::fail) << f.name << " n " << f.n << " k " << f.k;
  }
}

// A shuffler biased deck by deck but each deck independent (the naive
// swap): its records FAIL the tests of one record at a time, and no test of
// records against earlier ones, which are graded against independent
// records of the records' own law; the words name the fault.
TEST(RedTeam, AnIndependentBiasedShufflerFailsNoTestOfEarlierRecords) {
  for (const auto& [n, records] : {std::pair{8, 100'000}, std::pair{4, 100'000}, std::pair{6, 200'000}}) {
    const Audited a = audit(records_of("naive-swap", n, n, static_cast<std::uint64_t>(records), 2026), n, n);
    ASSERT_EQ(a.report.verdict, Verdict::fail) << n;
    int biased = 0, dependent = 0;
    for (const TestResult* t : a.report.tests()) {
      if (t->fault == FaultKind::dependent_records) {
        ++dependent;
        EXPECT_EQ(t->verdict, Verdict::pass) << "n " << n << ": " << t->name << " p " << t->fit.p_value;
      }
      biased += t->fault == FaultKind::biased_records && t->verdict == Verdict::fail;
    }
    std::printf("naive-swap n %d, %d records: %d one-record tests FAIL, %d tests of earlier records all PASS\n", n,
                records, biased, dependent);
    EXPECT_GT(biased, 0);
    EXPECT_GT(dependent, 2) << "the lag and serial tests ran";
  }
}

TEST(RedTeam, FairShufflersPass) {
  for (auto [n, k, records] : {std::tuple{52, 52, 100'000}, std::tuple{4, 4, 1'000'000}, std::tuple{52, 5, 1'000'000},
                               std::tuple{10, 10, 200'000}}) {
    const std::vector<std::uint16_t> items = records_of("fair", n, k, static_cast<std::uint64_t>(records), 2026);
    const Audited a = audit(items, n, k);
    for (const TestResult* t : a.report.tests())
      EXPECT_EQ(t->verdict, Verdict::pass) << "n " << n << " k " << k << ": " << t->name << " p " << t->fit.p_value
                                           << ", Holm p " << t->p_holm;
    EXPECT_FALSE(a.first.has_value()) << "a look FAILed at " << *a.first;
  }
}

// Fair streams through 11 looks (2^10 .. 2^20 records) and the final
// audit: a stream flagged WEAK or FAIL at any look or at the end at most
// as often as one audit's thresholds allow (1% in all: 0.5% a tail), where
// grading every look at the one-look thresholds flagged about 10%, and
// looks that spent the level beside a final audit that spent it again
// about 2%.
TEST(RedTeam, LooksKeepTheirRatesOnFairStreams) {
  constexpr int kStreams = 200;
  constexpr std::uint64_t kRecords = std::uint64_t{1} << 20;
  int flagged = 0, final_flagged = 0;
  for (int s = 1; s <= kStreams; ++s) {
    const std::vector<std::uint16_t> items = records_of("fair", 4, 4, kRecords, static_cast<std::uint64_t>(s));
    AuditRequest request;
    request.job.n = 4;
    request.records = true;
    const AuditPlan plan = plan_audit(request);
    bool any = false;
    int looks_seen = 0;
    RecordLooks looks;
    looks.enabled = true;
    looks.look = [&](std::uint64_t, const AuditReport& r) {
      ++looks_seen;
      any = any || (r.verdict && *r.verdict != Verdict::pass);
    };
    RecordAuditor auditor(plan.job, AuditOptions{}, looks, plan.stream);
    RecordOptions o;
    o.n = 4;
    auditor.read(RecordArray{items.data(), kRecords, 4, 2, false}, o);
    ASSERT_EQ(looks_seen, 11);
    ASSERT_EQ(auditor.looks(), 11);
    AuditOptions at_end;
    at_end.thresholds = final_thresholds(Thresholds{}, auditor.looks());
    at_end.records = true;
    at_end.stream = auditor.stream().get();
    const AuditReport final_report = analyze(auditor.job(), auditor.result().tally, at_end);
    final_flagged += final_report.verdict && *final_report.verdict != Verdict::pass;
    flagged += any || (final_report.verdict && *final_report.verdict != Verdict::pass);
  }
  // Binomial(200, 0.01) reaches 13 with probability below 1e-6.
  std::printf("fair streams flagged at some look or at the end: %d of %d (at the end: %d)\n", flagged, kStreams,
              final_flagged);
  EXPECT_LE(flagged, 12);
  // The shares: half the level over any number of looks, the rest at the end.
  double spent = 0;
  for (int j = 1; j <= 1000; ++j) spent += look_thresholds(Thresholds{}, j).weak;
  EXPECT_LE(spent + final_thresholds(Thresholds{}, 1000).weak, Thresholds{}.weak * (1 + 1e-12));
  EXPECT_EQ(final_thresholds(Thresholds{}, 0).fail, Thresholds{}.fail);
}

}  // namespace
}  // namespace melange
