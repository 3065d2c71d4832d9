// The documents as JSON values (nlohmann's ordered_json), for front ends that
// add fields of their own before writing. Including this header takes
// nlohmann/json's include path; audit.hpp and exact.hpp give the same
// documents as text without it.
#pragma once

#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "melange/engine.hpp"
#include "melange/exact.hpp"
#include "melange/report/audit.hpp"

namespace melange::report {

using Json = nlohmann::ordered_json;

// The version of every document's layout (contract §8): a change
// that removes a field or changes its meaning is a new version.
inline constexpr int kFormatVersion = 1;

// The fields every JSON result starts with: "format" ("melange-" and the
// command's name) and "format_version", then the versions and the command.
Json json_header(const std::string& command);

// A 64-bit whole number that can pass 2^53 (a seed, a trial index, a
// count of trials or words): a decimal string, which every JSON reader
// keeps exact (a JSON number above 2^53 is rounded by most).
Json json_u64(std::uint64_t v);

// Writes `doc` as dump(2) would, with the array at key `streamed_key` (a
// top-level key whose value in `doc` is null) written element by element by
// `write_elements(out, indent)`: nothing of its size is held in memory.
void write_json(std::ostream& out, const Json& doc, const std::string& streamed_key = "",
                const std::function<void(std::ostream&, const std::string&)>& write_elements = {});

// A number as JSON: null where it is not finite (JSON has no infinity).
Json json_number(double v);

// What defines a shuffle, sampled or exact: algorithm, method, bits, n, and
// k for deals.
void add_shuffle_fields(Json& j, Algorithm a, BoundedSpec spec, Shape shape);

// The fields that name a job: seed, algorithm, method, bits, n, first, trials.
void add_job_fields(Json& j, const Job& job);
// The job add_job_fields wrote, read back (64-bit fields as numbers or
// decimal strings); its tallies are the caller's to set. UsageError naming
// `document` ("'a.json'") for a field out of range or a name this melange
// does not know; nlohmann's exceptions for a field missing or of the wrong
// type.
Job read_job_fields(const Json& j, const std::string& document);
// A whole number in [0, max]: a JSON integer, or a decimal string (contract
// §8); `what` names it in the UsageError otherwise.
std::uint64_t json_whole(const Json& v, const std::string& what, std::uint64_t max, const std::string& document);

// The audit's document, with "histogram" null where the n! counts go.
Json audit_json(const Job& job, const RunResult& run, const AuditReport& report, const InputInfo* input = nullptr);

Json exact_json(const ExactDistribution& d, double trials);
// Reads a model written by `melange exact --json`; checks it is a distribution.
ExactDistribution exact_from_json(const Json& j);

}  // namespace melange::report
