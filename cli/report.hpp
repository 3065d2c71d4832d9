// Turning library results into what a person or a program reads: text
// tables and JSON documents.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/exact.hpp"
#include "output.hpp"

namespace melange::cli {

// What the trials read, as (label, value) rows for the reports: comparator
// calls per trial for the sort one-liners, then stream words per trial.
std::vector<std::pair<std::string, std::string>> usage_rows(const Job& job, const AuditReport& report);

// A deal audit's poker categories beside their fair expectation.
struct CategoryRow {
  std::string name;
  std::uint64_t count = 0;
  double expected = 0, sigma = 0;  // under a fair deal, for the trials counted
};
std::vector<CategoryRow> category_rows(const Tally& tally);

// "order" for permutations, "deal" for deals of k < n items.
std::string outcome_noun(const Job& job);

// The fields that name a job: seed, algorithm, method, bits, n, first, trials.
void add_job_fields(Json& j, const Job& job);

Json exact_json(const ExactDistribution& d, double trials);
// Reads a model written by `melange exact --json`; checks it is a distribution.
ExactDistribution exact_from_json(const Json& j);

// Where an input audit's records came from (audit --input); the job then
// says only n and what was tallied, and its trials are the records.
struct InputInfo {
  std::string path;    // "-" for standard input
  std::string format;  // text, u8, u16, npy
  int base = 0;
  std::uint64_t invalid = 0;  // records skipped (--skip-invalid)
  std::string first_invalid;
};

// What an audit tested: the algorithm's name, or "records from PATH".
std::string audit_subject(const Job& job, const InputInfo* input);

// The audit's JSON document, with "histogram" null where the n! counts go.
Json audit_json(const Job& job, const RunResult& run, const AuditReport& report, const InputInfo* input = nullptr);
// The whole document, the histogram streamed into it.
void write_audit_json(std::ostream& to, const Job& job, const RunResult& run, const AuditReport& report,
                      const InputInfo* input = nullptr);
std::string audit_text(const Job& job, const RunResult& run, const AuditReport& report,
                       const ExactDistribution* model, const InputInfo* input = nullptr);

}  // namespace melange::cli
