#include "melange/report/merge.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "melange/checkpoint.hpp"
#include "melange/error.hpp"
#include "melange/job_fields.hpp"
#include "melange/stream.hpp"
#include "melange/report/format.hpp"
#include "melange/report/json.hpp"
#include "guarded_input.hpp"

namespace melange::report {
namespace {

// The kind whose counts an audit's JSON gives under `key` as an array that
// grows with the job (flat or rows: passed over by the first read, streamed
// by the second); nullopt for any other key.
std::optional<TallyKind> count_array(const std::string& key) {
  for (const TallyKindRow& row : kTallyKindRows)
    if (row.json != JsonCounts::labelled && row.json_key == key) return row.kind;
  return std::nullopt;
}

using Seen = std::array<bool, kTallyKinds>;

// A whole number of the document at `path`, in [0, max].
std::uint64_t whole(const Json& v, const std::string& what, std::uint64_t max, const std::string& path) {
  return json_whole(v, what, max, in_quotes(path));
}

std::uint64_t whole_at(const Json& j, const char* key, std::uint64_t max, const std::string& path) {
  return whole(j.at(key), std::string("\"") + key + "\"", max, path);
}

// Is a top-level field one that reading a piece asks for: the job, the
// run's totals, the labelled counts, the test notes? Every other field
// (the count arrays, the tests' figures, the plain words, or anything a
// file adds) is passed over, never held.
// The fields read_job_fields reads.
bool job_field(const std::string& key) {
  for (const JobField* f : json_job_fields())
    if (key == f->key) return true;
  return false;
}

bool read_at_top(const std::string& key) {
  static const char* const kFields[] = {"format", "format_version", "command", "input", "stream_version",
                                        "words_consumed", "draws", "backend", "model", "reference", "threads", "stats"};
  if (job_field(key)) return true;
  for (const char* f : kFields)
    if (key == f) return true;
  for (const TallyKindRow& row : kTallyKindRows)
    if ((row.json == JsonCounts::labelled && row.json_key == key) || (!row.json_bins_key.empty() && row.json_bins_key == key))
      return true;
  return false;
}

// An audit's JSON, without its count arrays (their values are never kept)
// and without any field reading it does not ask for: the document is the
// job, the range and a few small fields. Read through GuardedJsonInput, so
// that no string or nesting grows past its bound, and an object's fields
// below the top are kept only where they are read (stats' notes, a
// labelled row's count), so that no object of many keys is built.
Json read_small_json(std::istream& file, const std::string& path, Seen& seen) {
  GuardedJsonInput guard(file, path);
  std::istream in(&guard);
  in.exceptions(std::ios::badbit);  // the guard's refusal reaches the caller
  std::string top_key;
  std::uint64_t values = 0;
  const Json::parser_callback_t keep = [&](int depth, Json::parse_event_t event, Json& parsed) {
    // The fields kept are a job (its weights, one an item), a few counts and
    // notes: past this many values the file is no audit of melange's.
    constexpr std::uint64_t kMostValues = std::uint64_t{1} << 20;
    if (event == Json::parse_event_t::value && ++values > kMostValues)
      throw UsageError(in_quotes(path) + " holds more than " + std::to_string(kMostValues) +
                       " values beside its counts, which no audit of melange's does: give the file melange wrote");
    if (event == Json::parse_event_t::key) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (depth == 1) top_key = key;
      if (depth == 1) return read_at_top(key) || count_array(key).has_value();
      if (depth == 2) return top_key == "stats" && key == "notes";
      return depth == 3 && key == "count";
    }
    if (depth == 1 && event == Json::parse_event_t::array_start && count_array(top_key)) {
      seen[static_cast<std::size_t>(*count_array(top_key))] = true;
      return false;
    }
    return true;
  };
  try {
    return Json::parse(in, keep);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(in_quotes(path) +
                     " is neither JSON nor a checkpoint: give 'audit --json' results or checkpoint files");
  }
}

// The kinds the document tallied: those whose counts, or (for a kind whose
// counts may be left out) whose number of bins, it gives.
TallySet tallied_kinds(const Json& j, const Seen& seen) {
  TallySet set;
  for (const TallyKindRow& row : kTallyKindRows)
    set.set(row.kind, seen[static_cast<std::size_t>(row.kind)] || j.contains(std::string(row.json_key)) ||
                          (!row.json_bins_key.empty() && j.contains(std::string(row.json_bins_key))));
  return set;
}

MergePiece piece_from_json(const std::string& path, const Json& j, const Seen& seen) {
  const auto refuse = [&](const std::string& why) { return UsageError(in_quotes(path) + " " + why); };
  if (j.is_object() && j.contains("format") && j["format"] != "melange-audit")
    throw refuse("is a " + j["format"].dump() + " document: merge takes 'audit --json' results and checkpoint files");
  if (j.is_object() && j.contains("format_version") && j["format_version"] != 1)
    throw refuse("is format version " + j["format_version"].dump() + " of melange-audit, and this melange reads version 1");
  if (!j.is_object() || j.value("command", "") != "audit")
    throw refuse("is not the JSON of 'melange audit': merge takes 'audit --json' results and checkpoint files");
  if (j.contains("input"))
    throw refuse("audits records from another program, which have no trial range: merge joins melange's own jobs");
  const std::uint64_t version = whole_at(j, "stream_version", INT_MAX, path);
  if (version != static_cast<std::uint64_t>(kStreamVersion))
    throw refuse("was drawn with stream version " + std::to_string(version) + ", and this melange draws version " +
                 std::to_string(kStreamVersion));
  MergePiece p;
  p.path = path;
  Job& job = p.job;
  job = read_job_fields(j, in_quotes(path));
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  job.tallies = tallied_kinds(j, seen);
  try {
    validate(job);
  } catch (const UsageError& e) {
    throw refuse(std::string("holds a job this melange refuses: ") + e.what());
  }
  for (const TallyKindRow& row : kTallyKindRows) {
    if (!job.tallies.has(row.kind)) continue;
    const std::uint64_t bins = row.bins(shape_of(job));
    if (row.json == JsonCounts::labelled) {
      const Json& rows = j.at(std::string(row.json_key));
      if (!rows.is_array() || rows.size() != bins)
        throw refuse("has the wrong number of " + std::string(row.title) + " (" + std::to_string(bins) + " expected)");
      for (const Json& r : rows)
        p.labelled[static_cast<std::size_t>(row.kind)].push_back(
            whole(r.at("count"), "a count of its " + std::string(row.title), kMax, path));
    } else if (!seen[static_cast<std::size_t>(row.kind)]) {
      throw refuse("gives the test of its " + std::string(row.title) + " but not its " + grouped(bins) +
                   " counts (too many for JSON): merge the checkpoint files of such runs instead");
    }
  }
  p.words = whole_at(j, "words_consumed", kMax, path);
  p.draws = whole_at(j, "draws", kMax, path);
  p.backend = j.value("backend", "");
  // Documents from before the field was written were all audits whose
  // "reference" says uniform or not; an unnamed model cannot be re-applied.
  if (j.contains("model")) {
    if (j["model"].is_null()) p.model = "";
    else if (j["model"].is_string()) p.model = j["model"].get<std::string>();
    else throw refuse("has a \"model\" that is neither null nor a string");
  } else if (j.value("reference", "uniform") == "uniform") {
    p.model = "";
  } else {
    throw refuse("was tested against a model it does not name (an older melange): merge it with --model");
  }
  p.threads = j.contains("threads") ? static_cast<int>(whole_at(j, "threads", INT_MAX, path)) : 1;
  // Why a histogram was left out is the audit's choice (its memory cap),
  // not the tallies': it carries over as the audit wrote it.
  if (j.contains("stats") && j["stats"].is_object() && j["stats"].contains("notes") && j["stats"]["notes"].is_array())
    for (const Json& note : j["stats"]["notes"])
      if (note.is_string() && note.get<std::string>().find(" left out: ") != std::string::npos)
        p.left_out.push_back(note.get<std::string>());
  return p;
}

// Streams the count arrays of an audit's JSON into a tally sized for its
// job, each in its kind's form: flat, or rows of k an item. Every value
// there must be a whole count that fits 64 bits (a JSON float, a negative
// number, a string or a null is refused, as is a wrong number of values);
// everything else in the document is passed over.
// The depth and top-level key of a SAX walk over an audit's JSON: a count
// array starts at depth 2, under its kind's key.
class AuditSax : public nlohmann::json_sax<Json> {
 public:
  bool key(string_t& k) override {
    if (depth_ == 1) key_ = k;
    return true;
  }

 protected:
  // The kind whose count array a start_array at this depth begins.
  std::optional<TallyKind> counts_begin() const { return depth_ == 2 ? count_array(key_) : std::nullopt; }

  int depth_ = 0;
  std::string key_;
};

class CountReader final : public AuditSax {
 public:
  CountReader(Tally& tally, const std::string& path) : tally_(tally), path_(path) {}

  bool null() override { return not_a_count("null"); }
  bool boolean(bool) override { return not_a_count("a true or false"); }
  bool number_integer(number_integer_t v) override {
    if (v < 0 && in_counts()) refuse("a count of " + std::to_string(v) + ": counts are never negative");
    return count(static_cast<std::uint64_t>(v));
  }
  bool number_unsigned(number_unsigned_t v) override { return count(v); }
  bool number_float(number_float_t, const string_t& text) override {
    return not_a_count(text.substr(0, 40) + ", which is no whole count below 2^64");
  }
  bool string(string_t&) override { return not_a_count("a string"); }
  bool binary(binary_t&) override { return not_a_count("binary data"); }
  bool start_object(std::size_t) override {
    ++depth_;
    return !kind_ || depth_ <= 1 ? true : not_a_count("an object");
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (counts_begin()) {
      kind_ = counts_begin();
      index_ = 0;
      row_ = 0;
    } else if (depth_ == 3 && rows()) {
      if (row_ >= counts().n()) refuse("has more rows in \"" + key_ + "\" than its job has items");
      index_ = 0;
    } else if (kind_) {
      refuse("has an array nested where counts belong");
    }
    return true;
  }
  bool end_array() override {
    if (depth_ == 3 && rows()) {
      if (index_ != static_cast<std::size_t>(counts().k()))
        refuse("has a row of " + std::to_string(index_) + " counts in \"" + key_ + "\" where its job has " +
               std::to_string(counts().k()));
      ++row_;
    } else if (depth_ == 2 && kind_) {
      const std::uint64_t got = rows() ? static_cast<std::uint64_t>(row_) : index_;
      const std::uint64_t want = rows() ? static_cast<std::uint64_t>(counts().n()) : counts().bins();
      if (got != want)
        refuse("has " + std::to_string(got) + (rows() ? " rows" : " counts") + " in \"" + key_ +
               "\" where its job has " + std::to_string(want));
      kind_.reset();
    }
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    refuse("is not well-formed JSON");
    return false;
  }

 private:
  bool rows() const { return kind_ && row_of(*kind_).json == JsonCounts::rows; }
  bool in_counts() const { return kind_ && depth_ == (rows() ? 3 : 2); }
  TallyCounts& counts() { return tally_[*kind_]; }
  bool count(std::uint64_t v) {
    if (!in_counts()) return kind_ ? not_a_count("a number") : true;
    std::vector<std::uint64_t>& c = counts().counts();
    if (rows()) {
      const auto k = static_cast<std::size_t>(counts().k());
      if (index_ < k) c[static_cast<std::size_t>(row_) * k + index_] = v;
      ++index_;  // past k: end_array says the row is too long
      return true;
    }
    if (index_ >= c.size())
      refuse("has more counts in \"" + key_ + "\" than its job's " + std::to_string(c.size()));
    c[index_++] = v;
    return true;
  }
  bool not_a_count(const std::string& what) {
    if (kind_) refuse("has " + what + " in \"" + key_ + "\", where whole counts belong");
    return true;
  }
  [[noreturn]] void refuse(const std::string& why) const { throw UsageError(in_quotes(path_) + " " + why); }

  Tally& tally_;
  const std::string& path_;
  std::optional<TallyKind> kind_;  // the count array being read
  std::size_t index_ = 0;
  int row_ = 0;
};

// The job at the head of an audit's JSON, read no further than its first
// count array (melange writes the job first, and the rank histogram first
// among the counts), with that array's kind: enough to know the least a
// piece's tally holds before the whole file is read.
class PieceHead final : public AuditSax {
 public:
  Json fields = Json::object();
  std::optional<TallyKind> first_counts;

  bool null() override { return value(nullptr); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool string(string_t& v) override { return value(v); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return ++depth_ <= 2; }
  bool end_object() override { return --depth_, true; }
  bool start_array(std::size_t) override {
    ++depth_;
    if (counts_begin()) {
      first_counts = counts_begin();
      return false;  // the head ends here
    }
    if (depth_ == 2 && key_ == "weights") fields["weights"] = Json::array();
    return depth_ <= 2;
  }
  bool end_array() override { return --depth_, true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  template <class V>
  bool value(V&& v) {
    if (depth_ == 1 && job_field(key_)) fields[key_] = std::forward<V>(v);
    else if (depth_ == 2 && key_ == "weights" && fields["weights"].size() < kMaxSampleItems) fields["weights"].push_back(v);
    return true;
  }
};

// The least tally a JSON piece holds, from its head: its job with the one
// kind of its first count array. nullopt where the head does not say (a
// checkpoint, a file melange did not write in its order).
std::optional<Job> least_tally_of(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file || file.peek() == 'm') return std::nullopt;
  GuardedJsonInput guard(file, path);
  std::istream in(&guard);
  in.exceptions(std::ios::badbit);
  PieceHead head;
  Json::sax_parse(in, &head);
  if (!head.first_counts) return std::nullopt;
  try {
    Job job = read_job_fields(head.fields, in_quotes(path));
    validate_draws(job);
    job.tallies = TallySet{};
    job.tallies.set(*head.first_counts, true);
    return job;
  } catch (const std::exception&) {
    return std::nullopt;  // the full read says what is wrong
  }
}

MergePiece read_piece_job(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError(in_quotes(path) + " is not a file; give the results to merge as files");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + in_quotes(path));
  const std::uint64_t bytes = std::filesystem::file_size(path, ec);
  if (in.peek() == 'm') {
    // A checkpoint: its prefix done is its range.
    Checkpoint c = read_checkpoint_job(in, path);
    MergePiece p;
    p.path = path;
    p.checkpoint = true;
    p.job = std::move(c.job);
    p.job.trials = c.tally.trials;
    p.words = c.tally.words;
    p.draws = c.tally.draws;
    p.backend = "checkpoint";
    p.file_bytes = bytes;
    return p;
  }
  Seen seen{};
  const Json j = read_small_json(in, path, seen);
  try {
    MergePiece p = piece_from_json(path, j, seen);
    p.file_bytes = bytes;
    return p;
  } catch (const nlohmann::json::exception&) {
    throw UsageError(in_quotes(path) + " lacks a field of 'audit --json' results, or has one of the wrong type");
  }
}

// The piece's tally, every count checked (whole, at most 2^64 - 1, as many
// as its job has, adding up to its trials); at most `memory_cap` bytes.
Tally read_piece_tally(const MergePiece& piece, std::uint64_t memory_cap) {
  std::ifstream in(piece.path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + in_quotes(piece.path));
  Tally t;
  if (piece.checkpoint) {
    t = read_checkpoint(in, piece.path, memory_cap).tally;
  } else {
    // Each count takes two bytes at least ("0,"): a small file that claims
    // a large job is refused before its tally is made.
    const std::uint64_t counts = tally_bytes(piece.job) / 8;
    if (counts > piece.file_bytes / 2)
      throw UsageError(in_quotes(piece.path) + " is too short for the " + grouped(counts) +
                       " counts its job has: it was cut short");
    t = Tally::for_job(piece.job);
    CountReader reader(t, piece.path);
    GuardedJsonInput guard(in, piece.path);
    std::istream guarded(&guard);
    guarded.exceptions(std::ios::badbit);
    Json::sax_parse(guarded, &reader);
    for (const TallyKindRow& row : kTallyKindRows)
      if (row.json == JsonCounts::labelled && piece.job.tallies.has(row.kind))
        t[row.kind].counts() = piece.labelled[static_cast<std::size_t>(row.kind)];
    t.trials = piece.job.trials;
    t.words = piece.words;
    t.draws = piece.draws;
  }
  const std::string wrong = tally_inconsistency(piece.job, t, piece.job.trials);
  if (!wrong.empty()) throw UsageError(in_quotes(piece.path) + " has counts that do not add up: " + wrong);
  return t;
}

std::string range_text(const Job& job) {
  return "trials " + std::to_string(job.first) + ".." + std::to_string(job.first + job.trials - 1);
}

// The pieces' jobs and ranges: one job, ranges that join without gaps or
// overlaps; sorted by range.
std::vector<MergePiece> read_plan(const std::vector<std::string>& files) {
  std::vector<MergePiece> pieces;
  for (const std::string& path : files) {
    for (const MergePiece& p : pieces)
      if (std::filesystem::equivalent(p.path, path))
        throw UsageError(in_quotes(p.path) + " and " + in_quotes(path) + " are the same file: give each piece once");
    pieces.push_back(read_piece_job(path));
    const MergePiece& p = pieces.back();
    if (p.job.trials == 0) throw UsageError(in_quotes(path) + " holds no trials yet: leave it out");
    Job same_range = p.job;
    same_range.first = pieces.front().job.first;
    same_range.trials = pieces.front().job.trials;
    const std::string difference = job_difference(pieces.front().job, same_range, "in " + in_quotes(pieces.front().path),
                                                  "in " + in_quotes(path));
    if (!difference.empty())
      throw UsageError(in_quotes(pieces.front().path) + " and " + in_quotes(path) + " are different jobs (" + difference +
                       "): merge pieces of one job");
  }
  std::sort(pieces.begin(), pieces.end(),
            [](const MergePiece& x, const MergePiece& y) { return x.job.first < y.job.first; });
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    const Job& before = pieces[i - 1].job;
    const Job& after = pieces[i].job;
    const std::uint64_t end = before.first + before.trials;  // validated: no wrap past 2^64
    if (after.first < end || (end == 0 && before.trials > 0))
      throw UsageError(in_quotes(pieces[i - 1].path) + " (" + range_text(before) + ") and " + in_quotes(pieces[i].path) +
                       " (" + range_text(after) + ") overlap: each trial must be in one piece");
    if (after.first > end)
      throw UsageError("trials " + std::to_string(end) + ".." + std::to_string(after.first - 1) + " are in no piece (" +
                       in_quotes(pieces[i - 1].path) + " ends before them, " + in_quotes(pieces[i].path) +
                       " starts after them): run them and merge that piece too");
  }
  return pieces;
}

}  // namespace

namespace {

std::string law_words(const std::string& model) {
  if (model.empty()) return "uniform";
  if (model == "exact" || model == "plackett-luce") return "--model " + model;
  return "the model file " + in_quotes(model);
}

}  // namespace

namespace {

// The merged tally, and each later piece's as it is read: two tallies at
// most, whatever the number of pieces; checked before either is made.
void check_tallies_fit(const Job& job, bool two, std::uint64_t memory_cap) {
  const std::uint64_t one = tally_bytes(job);
  if ((two && one > memory_cap / 2) || one > memory_cap)
    throw UsageError(Param::memory_cap,
                     "merging pieces of n = " + std::to_string(job.n) + " holds " + (two ? "two tallies" : "a tally") +
                         " of " + (one >= (~std::uint64_t{0} >> 2) ? std::string("more than 2^62") : grouped(one)) +
                         " bytes, above the " + grouped(memory_cap) +
                         " bytes {memory_cap} leaves for tallies: raise {memory_cap}");
}

}  // namespace

MergePlan plan_merge(const std::vector<std::string>& paths, std::uint64_t memory_cap) {
  if (paths.empty()) throw UsageError("nothing to merge: give the results to merge");
  // From the pieces' heads first: a merge too large for the cap is refused
  // before gigabytes of counts are read to learn their job.
  std::error_code ec;
  for (const std::string& path : paths)
    if (std::filesystem::is_regular_file(path, ec))
      if (const std::optional<Job> least = least_tally_of(path)) check_tallies_fit(*least, paths.size() > 1, memory_cap);
  MergePlan plan;
  plan.pieces = read_plan(paths);
  plan.memory_cap = memory_cap;
  plan.job = plan.pieces.front().job;
  for (std::size_t i = 1; i < plan.pieces.size(); ++i) plan.job.trials += plan.pieces[i].job.trials;
  const MergePiece* named = nullptr;
  for (const MergePiece& p : plan.pieces) {
    if (!p.model) continue;
    if (named && *named->model != *p.model)
      throw UsageError(in_quotes(p.path) + " was tested against " + law_words(*p.model) + " but " +
                       in_quotes(named->path) + " against " + law_words(*named->model) +
                       ": merge results of one audit, with one reference");
    named = &p;
  }
  if (named) plan.model = named->model;
  check_tallies_fit(plan.job, plan.pieces.size() > 1, memory_cap);
  return plan;
}

MergedResult merge(const MergePlan& plan) {
  const std::vector<MergePiece>& pieces = plan.pieces;
  MergedResult m;
  m.job = plan.job;
  const std::uint64_t one = tally_bytes(plan.job);
  RunResult& run = m.run;
  run.tally = read_piece_tally(pieces.front(), plan.memory_cap);
  run.backend = pieces.front().backend;
  run.threads = pieces.front().threads;
  std::string from = pieces.front().path + " (" + range_text(pieces.front().job) + ")";
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    run.tally.merge(read_piece_tally(pieces[i], plan.memory_cap - one));
    if (pieces[i].backend != run.backend) run.backend = "mixed";
    run.threads = std::max(run.threads, pieces[i].threads);
    from += ", " + pieces[i].path + " (" + range_text(pieces[i].job) + ")";
  }
  run.note = "merged from " + std::to_string(pieces.size()) + (pieces.size() == 1 ? " result: " : " results: ") + from;
  m.left_out = pieces.front().left_out;
  return m;
}

MergedResult merge_results(const std::vector<std::string>& paths, std::uint64_t memory_cap) {
  return merge(plan_merge(paths, memory_cap));
}

}  // namespace melange::report
