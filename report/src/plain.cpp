#include "melange/report/plain.hpp"

#include <cmath>
#include <cstdio>

#include "melange/deal.hpp"
#include "melange/rank.hpp"
#include "melange/number_text.hpp"
#include "melange/report/format.hpp"

namespace melange::report {
namespace {

std::string replaced(std::string text, const std::string& token, const std::string& by) {
  if (const auto at = text.find(token); at != std::string::npos) text.replace(at, token.size(), by);
  return text;
}

std::string furthest_words(const Departure& d, Shape s, const InputInfo* input, const std::string& reference) {
  const double ratio = static_cast<double>(d.count) / d.expected - 1;
  const std::string how = percent(std::fabs(ratio)) + (ratio >= 0 ? " more often" : " less often");
  std::string what;
  if (d.kind == TallyKind::ranks) {
    what = std::string(s.whole() ? "order " : "deal ") + outcome_name(d.bin, s, input) + " comes up " + how;
  } else {
    const int item = static_cast<int>(d.bin / static_cast<std::uint64_t>(s.k));
    const int slot = static_cast<int>(d.bin % static_cast<std::uint64_t>(s.k));
    what = "item " + item_name(item, input) + " lands " + (s.whole() ? "at position " : "in slot ") +
           std::to_string(slot) + " " + how;
  }
  const std::string expected = d.expected >= 1000 ? grouped(static_cast<std::uint64_t>(std::llround(d.expected)))
                                                  : fixed(d.expected, 1);
  return what + " than " + reference + " (" + grouped(d.count) + " against " + expected + " expected)";
}

std::string meaning(const AuditReport& report, std::size_t tests, const std::string& noun) {
  const Thresholds& t = report.thresholds;
  const std::string holm = "corrected by Holm's method over the " + std::to_string(tests) + " tests,";
  const std::string one = tests == 1 ? "the test's p-value (one test, so uncorrected)" : "a test's p-value, " + holm;
  const bool uniform_side = [&] {
    for (const TestResult* r : report.tests())
      if (r->verdict == *report.verdict && r->too_uniform) return true;
    return false;
  }();
  const std::string tail = uniform_side ? " in the lower tail (too uniform: closer to expectation than chance allows)"
                                        : "";
  switch (*report.verdict) {
    case Verdict::pass:
      return "PASS: " + (tests == 1 ? one : "every test's p-value, " + holm) +
             " stayed between " + general(t.weak, 3) + " and 1 - " + general(t.weak, 3) + ": these " + noun +
             " show no bias the tests can see. It does not prove them fair: below is the smallest bias each test "
             "would have caught.";
    case Verdict::weak:
      return "WEAK: " + one + " fell below " + general(t.weak, 3) + tail + " but not below " +
             general(t.fail, 3) + ". Suspicious, not proven: a fair shuffler does this in about 1 audit in " +
             grouped(static_cast<std::uint64_t>(std::llround(1 / t.weak))) + ". More " + noun + " settle it.";
    case Verdict::fail:
      return "FAIL: " + one + " fell below " + general(t.fail, 3) + tail +
             ": a fair shuffler does this less than once in " +
             grouped(static_cast<std::uint64_t>(std::llround(1 / t.fail))) + " audits.";
  }
  return "";
}

// Which kinds of fault the tests that flagged the records read, each with
// those tests: "each record biased (position, max cell)".
std::string fault_words(const AuditReport& report, const std::string& noun) {
  if (*report.verdict == Verdict::pass) return "";
  constexpr FaultKind kKinds[] = {FaultKind::biased_records, FaultKind::dependent_records,
                                  FaultKind::few_distinct_records};
  const std::string words[] = {"each " + noun.substr(0, noun.size() - 1) + " biased", noun + " dependent on earlier ones",
                               "too few distinct " + noun + " (few seeds, or a short period)"};
  std::string out;
  bool biased = false, dependent = false, few = false;
  for (std::size_t k = 0; k < 3; ++k) {
    std::string names;
    for (const TestResult* t : report.tests())
      if (t->fault == kKinds[k] && t->verdict != Verdict::pass) names += (names.empty() ? "" : ", ") + t->name;
    if (names.empty()) continue;
    biased = biased || k == 0;
    dependent = dependent || k == 1;
    few = few || k == 2;
    out += (out.empty() ? "" : "; ") + words[k] + " (" + names + ")";
  }
  // The lag tests of deals and the relabeled statistics (rank, rises) are
  // held to independent uniform records, and graded only where no test of
  // one record FAILs alone: a milder bias of each can still show there.
  if (biased && dependent)
    out += ". Some tests of earlier " + noun + " compare them with independent uniform ones, so a bias of each "
           "alone can show there too";
  // The repeats read the records' law: a bias makes some records likelier.
  if (biased && few)
    out += std::string(dependent ? "; and biased " : ". Biased ") + noun + " also repeat more often than uniform "
           "ones do";
  return out;
}

}  // namespace

std::string percent(double effect) {
  if (!std::isfinite(effect)) return "-";
  const double pct = 100 * effect;
  return (pct >= 10 ? number_text(pct, std::chars_format::fixed, 0) : number_text(pct, std::chars_format::general, 2)) +
         "%";
}

PlainWords plain_words(const Job& job, const AuditReport& report, const InputInfo* input) {
  PlainWords w;
  const std::string noun = input ? "records" : "trials";
  const std::vector<const TestResult*> tests = report.tests();
  if (!report.verdict && report.records_for_a_verdict > 0) {
    w.none_reason = "no verdict on " + grouped(job.trials) + " " + noun + ": too few for one. No test of cells or " +
                    "orders here could see one made twice as likely, so a PASS would promise nothing; about " +
                    grouped(static_cast<std::uint64_t>(report.records_for_a_verdict)) + " " + noun +
                    " give a first verdict";
    return w;
  }
  if (!report.verdict) {
    w.none_reason = "no test could run on " + grouped(job.trials) + " " + noun +
                    (report.notes.empty() ? std::string() : ": " + report.notes.front());
    return w;
  }
  w.meaning = meaning(report, tests.size(), noun);
  w.fault = fault_words(report, noun);
  const Shape s = shape_of(job);
  const std::string reference = report.model.empty() && report.reference == "uniform" ? "a fair shuffle allows"
                                                                                       : "the model expects";
  for (const Departure& d : report.departures) w.furthest.push_back({d, furthest_words(d, s, input, reference)});
  for (const TestFields& f : test_fields(report, input)) {
    const TestResult& t = *f.result;
    if (t.effect.empty() || !std::isfinite(t.detectable)) continue;
    w.detectable.push_back({f.key, test_title(t), t.detectable,
                            replaced(t.effect, "{effect}", percent(t.detectable))});
  }
  w.detectable_level = "about " + std::to_string(static_cast<int>(std::lround(10 * kPlainPower))) +
                       " times in 10 at the FAIL level " + general(report.thresholds.fail, 3) +
                       " over " + std::to_string(tests.size()) + (tests.size() == 1 ? " test" : " tests");
  if (*report.verdict == Verdict::weak) {
    for (const TestResult* t : tests)
      if (t->verdict == Verdict::weak && std::isfinite(t->trials_to_settle))
        w.settle_trials = std::max(w.settle_trials, t->trials_to_settle);
    if (w.settle_trials > 0) {
      const double more = std::max(0.0, w.settle_trials - static_cast<double>(job.trials));
      w.settle = "about " + grouped(static_cast<std::uint64_t>(more)) + " more " + noun + " (" +
                 grouped(static_cast<std::uint64_t>(w.settle_trials)) + " in all) would settle it: if the bias " +
                 "seen is real, they FAIL it with power " + general(kPlainPower, 2) + "; if not, its p-value drifts back";
    } else {
      w.settle = "more " + noun + " would settle it (the WEAK test's own statistic says nothing of the size needed)";
    }
  }
  return w;
}

}  // namespace melange::report
