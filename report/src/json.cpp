#include "melange/report/json.hpp"

#include <cmath>
#include <ostream>

#include "melange/stream.hpp"
#include "melange/version.hpp"

namespace melange::report {

Json json_number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json json_header(const std::string& command) {
  Json j;
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
  j["seed"] = job.seed;
  add_shuffle_fields(j, job.algorithm, job.spec, job.n, shape_of(job).k);
  if (!job.weights.empty()) j["weights"] = job.weights;
  j["trials"] = job.trials;
  j["first"] = job.first;
}

}  // namespace melange::report
