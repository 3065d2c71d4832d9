#include "melange/report/json.hpp"

#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <ostream>

#include "melange/error.hpp"
#include "melange/internal/decimal.hpp"
#include "melange/stream.hpp"
#include "melange/version.hpp"

namespace melange::report {

Json json_number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json json_u64(std::uint64_t v) { return Json(std::to_string(v)); }

Json json_header(const std::string& command) {
  Json j;
  j["format"] = "melange-" + command;
  j["format_version"] = kFormatVersion;
  j["melange_version"] = kVersion;
  j["stream_version"] = kStreamVersion;
  j["command"] = command;
  return j;
}

void write_json(std::ostream& out, const Json& doc, const std::string& streamed_key,
                const std::function<void(std::ostream&, const std::string&)>& write_elements) {
  const std::string text = doc.dump(2);
  const std::string marker = "\n  \"" + streamed_key + "\": null";
  const auto at = streamed_key.empty() ? std::string::npos : text.find(marker);
  if (at == std::string::npos) {
    out << text << "\n";
    return;
  }
  const auto value = at + marker.size() - 4;  // where "null" starts
  out.write(text.data(), static_cast<std::streamsize>(value));
  out << "[\n";
  write_elements(out, "    ");
  out << "\n  ]";
  out.write(text.data() + value + 4, static_cast<std::streamsize>(text.size() - value - 4));
  out << "\n";
}

void add_shuffle_fields(Json& j, Algorithm a, BoundedSpec spec, int n, int k) {
  j["algorithm"] = algorithm_name(a);
  j["method"] = method_name(spec.method);
  j["bits"] = spec.bits;
  j["n"] = n;
  if (k != n) j["k"] = k;
}

void add_job_fields(Json& j, const Job& job) {
  j["seed"] = json_u64(job.seed);
  add_shuffle_fields(j, job.algorithm, job.spec, job.n, shape_of(job).k);
  if (!job.weights.empty()) j["weights"] = job.weights;
  if (job.riffles) j["riffles"] = job.riffles;
  if (job.shelves) j["shelves"] = job.shelves;
  if (job.passes) j["passes"] = job.passes;
  j["trials"] = json_u64(job.trials);
  j["first"] = json_u64(job.first);
}

std::uint64_t json_whole(const Json& v, const std::string& what, std::uint64_t max, const std::string& document) {
  std::optional<std::uint64_t> x;
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= max) x = v.get<std::uint64_t>();
  if (v.is_string()) x = internal::parse_decimal(v.get<std::string>(), max);
  if (!x)
    throw UsageError(document + " has " + what + " " + v.dump().substr(0, 40) + ", where a whole number from 0 to " +
                     std::to_string(max) + " belongs");
  return *x;
}

Job read_job_fields(const Json& j, const std::string& document) {
  const auto at = [&](const char* key, std::uint64_t max) {
    return json_whole(j.at(key), std::string("\"") + key + "\"", max, document);
  };
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  Job job;
  job.seed = at("seed", kMax);
  const auto algorithm = parse_algorithm(j.at("algorithm").get<std::string>());
  const auto method = parse_method(j.at("method").get<std::string>());
  if (!algorithm || !method) throw UsageError(document + " names an algorithm or method this melange does not know");
  job.algorithm = *algorithm;
  job.spec = BoundedSpec{*method, static_cast<int>(at("bits", 64))};
  job.n = static_cast<int>(at("n", INT_MAX));
  job.k = j.contains("k") ? static_cast<int>(at("k", INT_MAX)) : 0;
  if (job.k == job.n) job.k = 0;
  if (j.contains("weights")) job.weights = j.at("weights").get<std::vector<double>>();
  if (j.contains("riffles")) job.riffles = static_cast<int>(at("riffles", kMaxRiffles));
  if (j.contains("shelves")) job.shelves = static_cast<int>(at("shelves", kMaxShelves));
  if (j.contains("passes")) job.passes = static_cast<int>(at("passes", kMaxPasses));
  job.first = at("first", kMax);
  job.trials = at("trials", kMax);
  return job;
}

}  // namespace melange::report
