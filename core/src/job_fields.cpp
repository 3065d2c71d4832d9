#include "melange/job_fields.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "melange/internal/decimal.hpp"
#include "melange/number_text.hpp"

namespace melange {
namespace {

constexpr std::uint64_t kU64 = std::numeric_limits<std::uint64_t>::max();

// A weight as a hex float: exact, whatever the double.
std::string hex_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string weights_text(const Job& job) {
  if (job.weights.empty()) return "none";
  std::string s;
  for (double w : job.weights) {
    if (!s.empty()) s += ' ';
    s += hex_double(w);
  }
  return s;
}

bool read_weights(std::string_view text, Job& job) {
  job.weights.clear();
  if (text == "none") return true;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string word(text.substr(0, space));
    char* end = nullptr;
    job.weights.push_back(std::strtod(word.c_str(), &end));
    if (word.empty() || *end != '\0') return false;
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
  }
  return true;
}

// FNV-1a of the text: what ranks compare of a field that is not a number.
std::uint64_t text_hash(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (unsigned char c : text) h = (h ^ c) * 0x100000001b3u;
  return h;
}

// The tallies kept, one fingerprint entry a kind, named by its title, so
// that ranks that differ say which tally ("rank histogram").
void tally_fingerprint(const Job& job, JobFingerprint& f) {
  for (const TallyKindRow& row : kTallyKindRows) f.emplace_back(std::string(row.title), job.tallies.has(row.kind));
}

// A whole-number field: its text is its decimal digits.
template <auto Get, auto Set, std::uint64_t Max>
constexpr JobField whole_field(std::string_view key, JsonForm json, int json_order,
                               bool (*omitted)(const Job&) = nullptr, bool optional_line = false) {
  JobField f{key,
             [](const Job& j) { return std::to_string(Get(j)); },
             [](std::string_view text, Job& j) {
               const auto v = internal::parse_decimal(text, Max);
               if (v) Set(j, *v);
               return v.has_value();
             }};
  f.whole = [](const Job& j) { return static_cast<std::uint64_t>(Get(j)); };
  f.set_whole = [](Job& j, std::uint64_t v) { Set(j, v); };
  f.max = Max;
  f.json = json;
  f.json_order = json_order;
  f.omitted = omitted;
  f.optional_line = optional_line;
  return f;
}

// A Job member read and written as a whole number (Member: &Job::seed).
template <auto Member>
constexpr auto member_of(const Job& j) {
  return j.*Member;
}
template <auto Member>
constexpr void set_member(Job& j, std::uint64_t v) {
  j.*Member = static_cast<std::remove_cvref_t<decltype(j.*Member)>>(v);
}
template <auto Member, std::uint64_t Max>
constexpr JobField member_field(std::string_view key, JsonForm json, int json_order,
                                bool (*omitted)(const Job&) = nullptr, bool optional_line = false) {
  return whole_field<member_of<Member>, set_member<Member>, Max>(key, json, json_order, omitted, optional_line);
}

// k as dealt: n for a whole permutation, whether the job says 0 or n.
int k_of(const Job& j) { return shape_of(j).k; }
constexpr void set_k(Job& j, std::uint64_t v) { j.k = static_cast<int>(v); }
constexpr int bits_of(const Job& j) { return j.spec.bits; }
constexpr void set_bits(Job& j, std::uint64_t v) { j.spec.bits = static_cast<int>(v); }

JobField algorithm_field() {
  JobField f{"algorithm", [](const Job& j) { return std::string(algorithm_name(j.algorithm)); },
             [](std::string_view text, Job& j) {
               const auto a = parse_algorithm(text);
               if (a) j.algorithm = *a;
               return a.has_value();
             }};
  f.json_order = 2;
  f.choices = [] { return algorithm_names(", "); };
  return f;
}

JobField method_field() {
  JobField f{"method", [](const Job& j) { return std::string(method_name(j.spec.method)); },
             [](std::string_view text, Job& j) {
               const auto m = parse_method(text);
               if (m) j.spec.method = *m;
               return m.has_value();
             }};
  f.json_order = 3;
  f.choices = [] { return method_names(", "); };
  return f;
}

JobField weights_field() {
  JobField f{"weights", weights_text, read_weights};
  f.json = JsonForm::numbers;
  f.json_order = 7;
  f.omitted = [](const Job& j) { return j.weights.empty(); };  // a checkpoint writes "none"
  f.fingerprint = [](const Job& j, JobFingerprint& fp) {
    std::uint64_t h = 0xcbf29ce484222325u;  // FNV-1a of the weights' bits
    for (double w : j.weights) h = (h ^ std::bit_cast<std::uint64_t>(w)) * 0x100000001b3u;
    fp.emplace_back("weights (hash)", h);
  };
  return f;
}

JobField tallies_field() {
  JobField f{"tallies", [](const Job& j) { return tally_names(j.tallies); },
             [](std::string_view text, Job& j) {
               const auto kinds = parse_tally_names(text);
               if (kinds) j.tallies = *kinds;
               return kinds.has_value();
             }};
  f.json = JsonForm::none;
  f.unreadable = "names a tally this melange does not know";
  f.fingerprint = tally_fingerprint;
  return f;
}

// The row with what a caller gives it as, whether it is the shuffle's, and
// its phrase in job_description().
JobField given_as(JobField f, Param param, bool shuffle, std::string (*phrase)(const Job&) = nullptr,
                  int describe_order = 0) {
  f.param = param;
  f.shuffle = shuffle;
  f.phrase = phrase;
  f.describe_order = describe_order;
  return f;
}

// The phrases of job_description(). The weighted orders read raw words:
// their weights stand where another algorithm names its bounded method.
std::string weights_phrase(const Job& j) {
  if (draw_kind(j.algorithm) != DrawKind::keys) return "";
  std::string text = "weights ";
  for (std::size_t i = 0; i < j.weights.size(); ++i) {
    if (i) text += ',';
    text += number_text(j.weights[i], std::chars_format::general, 10);
  }
  return text;
}
std::string method_phrase(const Job& j) {
  if (draw_kind(j.algorithm) == DrawKind::keys) return "";
  return std::string(method_name(j.spec.method)) + "/" + std::to_string(j.spec.bits) + "-bit";
}
std::string count_phrase(int count, const char* one, const char* many) {
  return count ? std::to_string(count) + " " + (count == 1 ? one : many) : "";
}

template <auto Member>
bool is_zero(const Job& j) {
  return j.*Member == 0;
}
bool k_is_n(const Job& j) { return shape_of(j).k == j.n; }

// Built on first use: the rows hold functions made at run time.
const std::array<JobField, 13>& job_field_rows() {
  static const std::array<JobField, 13> rows{{
    given_as(member_field<&Job::seed, kU64>("seed", JsonForm::whole_u64, 1), Param::seed, false,
             [](const Job& j) { return "seed " + std::to_string(j.seed); }, 9),
    given_as(algorithm_field(), Param::algorithm, true,
             [](const Job& j) { return std::string(algorithm_name(j.algorithm)); }, 1),
    given_as(member_field<&Job::n, INT_MAX>("n", JsonForm::whole_int, 5), Param::n, true,
             [](const Job& j) { return "n " + std::to_string(j.n); }, 2),
    given_as(whole_field<k_of, set_k, INT_MAX>("k", JsonForm::whole_int, 6, k_is_n), Param::k, true,
             [](const Job& j) { return is_deal(j) ? "k " + std::to_string(j.k) : std::string(); }, 3),
    given_as(weights_field(), Param::weights, true, weights_phrase, 7),
    given_as(member_field<&Job::riffles, kMaxRiffles>("riffles", JsonForm::whole_int, 8, is_zero<&Job::riffles>, true),
             Param::riffles, true, [](const Job& j) { return count_phrase(j.riffles, "riffles", "riffles"); }, 4),
    given_as(member_field<&Job::shelves, kMaxShelves>("shelves", JsonForm::whole_int, 9, is_zero<&Job::shelves>, true),
             Param::shelves, true, [](const Job& j) { return count_phrase(j.shelves, "shelf", "shelves"); }, 5),
    // A shelf machine's passes; a job without shelves has none to name.
    given_as(member_field<&Job::passes, kMaxPasses>("passes", JsonForm::whole_int, 10, is_zero<&Job::passes>, true),
             Param::passes, true,
             [](const Job& j) { return j.shelves ? count_phrase(j.passes, "pass", "passes") : std::string(); }, 6),
    given_as(method_field(), Param::method, true, method_phrase, 8),
    given_as(whole_field<bits_of, set_bits, 64>("bits", JsonForm::whole_int, 4), Param::bits, true),
    given_as(member_field<&Job::first, kU64>("first", JsonForm::whole_u64, 12), Param::first, false),
    given_as(member_field<&Job::trials, kU64>("trials", JsonForm::whole_u64, 11), Param::trials, false),
    tallies_field(),
  }};
  return rows;
}

}  // namespace

std::span<const JobField> job_fields() { return job_field_rows(); }

namespace {
// The rows with a positive `order` member, sorted by it.
std::vector<const JobField*> rows_by(int JobField::*order) {
  std::vector<const JobField*> rows;
  for (const JobField& f : job_fields())
    if (f.*order > 0) rows.push_back(&f);
  std::sort(rows.begin(), rows.end(), [order](const JobField* a, const JobField* b) { return a->*order < b->*order; });
  return rows;
}
}  // namespace

std::span<const JobField* const> json_job_fields() {
  static const std::vector<const JobField*> rows = rows_by(&JobField::json_order);
  return rows;
}

const JobField* job_field_for(Param param) {
  if (param == Param::none) return nullptr;
  for (const JobField& f : job_fields())
    if (f.param == param) return &f;
  return nullptr;
}

std::string job_description(const Job& job) {
  static const std::vector<const JobField*> rows = rows_by(&JobField::describe_order);
  std::string text;
  for (const JobField* f : rows)
    if (const std::string phrase = f->phrase(job); !phrase.empty()) {
      if (!text.empty()) text += ", ";
      text += phrase;
    }
  return text;
}

std::string job_field_difference(const Job& ours, const Job& theirs, const std::string& ours_name,
                                 const std::string& theirs_name) {
  for (const JobField& f : job_fields()) {
    const std::string here = f.text(ours), there = f.text(theirs);
    if (here != there) return std::string(f.key) + " " + here + " " + ours_name + ", " + there + " " + theirs_name;
  }
  return "";
}

JobFingerprint job_fingerprint(const Job& job) {
  JobFingerprint f;
  for (const JobField& row : job_fields()) {
    if (row.fingerprint) row.fingerprint(job, f);
    else if (row.whole) f.emplace_back(std::string(row.key), row.whole(job));
    else f.emplace_back(std::string(row.key) + " (hash)", text_hash(row.text(job)));
  }
  return f;
}

}  // namespace melange
