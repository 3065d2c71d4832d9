#include "melange/report/json.hpp"

#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <ostream>

#include "melange/error.hpp"
#include "melange/internal/decimal.hpp"
#include "melange/job_fields.hpp"
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

namespace {

// Writes the row's value in its JSON form, unless the row omits it.
void add_field(Json& j, const JobField& f, const Job& job) {
  if (f.omitted && f.omitted(job)) return;
  switch (f.json) {
    case JsonForm::whole_u64: j[std::string(f.key)] = json_u64(f.whole(job)); return;
    case JsonForm::whole_int: j[std::string(f.key)] = static_cast<int>(f.whole(job)); return;
    case JsonForm::name: j[std::string(f.key)] = f.text(job); return;
    case JsonForm::numbers: j[std::string(f.key)] = job.weights; return;
    case JsonForm::none: return;
  }
}

// The fields that say which shuffle a law is of: the shuffle's rows but
// the weights, which a law of weights gives as its own.
bool is_shuffle_field(const JobField& f) { return f.shuffle && f.json != JsonForm::numbers; }

}  // namespace

void add_shuffle_fields(Json& j, Algorithm a, BoundedSpec spec, Shape shape) {
  const Job job = shuffle_job(a, spec, shape);
  for (const JobField* f : json_job_fields())
    if (is_shuffle_field(*f)) add_field(j, *f, job);
}

void add_job_fields(Json& j, const Job& job) {
  for (const JobField* f : json_job_fields()) add_field(j, *f, job);
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
  Job job;
  for (const JobField* f : json_job_fields()) {
    const std::string key(f->key);
    if (f->omitted && !j.contains(key)) continue;  // left out where it says nothing
    const Json& v = j.at(key);
    switch (f->json) {
      case JsonForm::whole_u64:
      case JsonForm::whole_int: f->set_whole(job, json_whole(v, "\"" + key + "\"", f->max, document)); break;
      case JsonForm::name:
        if (!v.is_string() || !f->read(v.get<std::string>(), job))
          throw UsageError(document + " has " + key + " " + v.dump().substr(0, 40) +
                           ", which this melange does not know");
        break;
      case JsonForm::numbers: job.weights = v.get<std::vector<double>>(); break;
      case JsonForm::none: break;
    }
  }
  if (job.k == job.n) job.k = 0;
  return job;
}

}  // namespace melange::report
