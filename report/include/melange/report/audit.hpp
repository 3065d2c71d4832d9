// The audit document: what an audit found, as the text a person reads and
// the JSON a program reads (contract §8), and the model both are
// made of. Every front end composes these; none writes an audit of its own.
// This header needs no JSON library: json.hpp has the document as a value.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/exact.hpp"

namespace melange::report {

// What the trials read, as (label, value) rows for the reports: comparator
// calls per trial for the sort one-liners, then stream words per trial.
std::vector<std::pair<std::string, std::string>> usage_rows(const Job& job, const AuditReport& report);

// A labelled kind's bins (JsonCounts::labelled: the poker categories)
// beside their expectation under a fair shuffle (TallyKindRow::fair_law).
struct CategoryRow {
  std::string name;
  std::uint64_t count = 0;
  double expected = 0, sigma = 0;  // under a fair deal, for the trials counted
};
std::vector<CategoryRow> labelled_rows(const Tally& tally, TallyKind kind);
// The poker categories' rows.
std::vector<CategoryRow> category_rows(const Tally& tally);

// "order" for permutations, "deal" for deals of k < n items.
std::string outcome_noun(const Job& job);

// Where an input audit's records came from; the job then says only n and
// what was tallied, and its trials are the records.
struct InputInfo {
  std::string path;    // "-" for standard input
  std::string format;  // text, u8, u16, npy; "array" for records handed over in memory
  int base = 0;
  std::uint64_t invalid = 0;  // records skipped as invalid
  std::string first_invalid;
  std::string inferred;       // what the records said of themselves (n, base, a header), in words; "" if nothing
  // The items' names as the records wrote them (--labels), item i's at i;
  // empty: numbers from `base`.
  std::vector<std::string> labels{};
  // Several files read as one stream, in order (path is the first); empty: one.
  std::vector<std::string> files{};
};

// Item i as the user knows it: its label, or its number counted from the
// records' base (from 0 for built-in audits).
std::string item_name(int item, const InputInfo* input);
// An order or a deal in the user's items ("2 1 4 3", "Kh 2c 9d"), or as
// outcome_label writes it ("BADC") for a built-in audit.
std::string outcome_name(std::uint64_t rank, Shape s, const InputInfo* input);

// What an audit tested: the algorithm's name, or "records from PATH".
std::string audit_subject(const Job& job, const InputInfo* input);

// One statistic as the documents give it. A double that is not finite has
// no JSON spelling and is written as null.
using FieldValue = std::variant<std::nullptr_t, bool, int, std::uint64_t, double, std::string>;
struct Field {
  std::string key;
  FieldValue value;
};
// One test of an audit: its name ("rank", "position"; for deals "deal",
// "slot", "hand", "category") and its statistics, in document order.
struct TestFields {
  std::string key;  // where the JSON's "stats" holds it: "rank" (at the top), "position", "hand", "category"
  std::string test;
  std::vector<Field> fields;
  const TestResult* result = nullptr;  // the test itself, in the report given
};
std::vector<TestFields> test_fields(const AuditReport& report, const InputInfo* input = nullptr);
// A test's name in words: its title, or its kind's ("rising sequence test").
std::string test_title(const TestResult& t);
// A test's plain-words line, its "{item}" (TestResult::item) named as the
// records name it.
std::string plain_of(const TestResult& t, const InputInfo* input);
// What a histogram test (TallyKindRow::histogram_test) tested, for its
// line: "2,598,960 hands"; "10 categories, fair law" where the kind is
// tested against its fair law whatever the reference.
std::string histogram_test_scope(const TallyKindRow& row, const Tally& tally);

// The whole JSON document, the n! histogram streamed into it.
void write_audit_json(std::ostream& to, const Job& job, const RunResult& run, const AuditReport& report,
                      const InputInfo* input = nullptr);
std::string audit_json_text(const Job& job, const RunResult& run, const AuditReport& report,
                            const InputInfo* input = nullptr);
std::string audit_text(const Job& job, const RunResult& run, const AuditReport& report,
                       const ExactDistribution* model, const InputInfo* input = nullptr);
// The same audit in at most about 15 lines (--brief): what was audited, the
// tests counted by verdict and each one that did not PASS, the plain words
// without the per-test table, the reproduce line and the verdict.
std::string audit_brief_text(const Job& job, const RunResult& run, const AuditReport& report,
                             const InputInfo* input = nullptr);

}  // namespace melange::report
