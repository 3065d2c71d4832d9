#include "merge_pieces.hpp"

#include <climits>
#include <filesystem>
#include <fstream>
#include <limits>

#include "melange/report/format.hpp"
#include "melange/checkpoint.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "output.hpp"

namespace melange::cli {
namespace {

// The arrays that grow with n! or n^2: passed over by the first read,
// streamed by the second.
enum class CountArray { none, histogram, hands, position };

CountArray count_array(const std::string& key) {
  if (key == "histogram") return CountArray::histogram;
  if (key == "hands") return CountArray::hands;
  if (key == "position") return CountArray::position;
  return CountArray::none;
}

// A whole number in [0, max]: a JSON integer, or a decimal string (64-bit
// values may be written as strings, DESIGN.md section 10).
std::uint64_t whole(const Json& v, const std::string& what, std::uint64_t max, const std::string& path) {
  std::uint64_t x = 0;
  bool ok = false;
  if (v.is_number_unsigned()) {
    x = v.get<std::uint64_t>();
    ok = true;
  } else if (v.is_string()) {
    const std::string s = v.get<std::string>();
    ok = !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
    if (ok) {
      try {
        x = std::stoull(s);
      } catch (const std::exception&) {
        ok = false;
      }
    }
  }
  if (!ok || x > max)
    throw UsageError(in_quotes(path) + " has " + what + " " + v.dump().substr(0, 40) +
                     ", where a whole number from 0 to " + std::to_string(max) + " belongs");
  return x;
}

std::uint64_t whole_at(const Json& j, const char* key, std::uint64_t max, const std::string& path) {
  return whole(j.at(key), std::string("\"") + key + "\"", max, path);
}

// An audit's JSON, without its count arrays (their values are never kept):
// the document is the job, the range and a few small fields.
Json read_small_json(std::istream& in, const std::string& path, bool seen[4]) {
  std::string top_key;
  const Json::parser_callback_t skip_counts = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth == 1 && event == Json::parse_event_t::key) top_key = parsed.get<std::string>();
    if (depth == 1 && event == Json::parse_event_t::array_start && count_array(top_key) != CountArray::none) {
      seen[static_cast<int>(count_array(top_key))] = true;
      return false;
    }
    return true;
  };
  try {
    return Json::parse(in, skip_counts);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(in_quotes(path) +
                     " is neither JSON nor a checkpoint: give 'audit --json' results or --checkpoint files");
  }
}

MergePiece piece_from_json(const std::string& path, const Json& j, const bool seen[4]) {
  const auto refuse = [&](const std::string& why) { return UsageError(in_quotes(path) + " " + why); };
  if (!j.is_object() || j.value("command", "") != "audit")
    throw refuse("is not the JSON of 'melange audit': merge takes 'audit --json' results and --checkpoint files");
  if (j.contains("input"))
    throw refuse("audits records from another program, which have no trial range: merge joins melange's own jobs");
  const std::uint64_t version = whole_at(j, "stream_version", INT_MAX, path);
  if (version != static_cast<std::uint64_t>(kStreamVersion))
    throw refuse("was drawn with stream version " + std::to_string(version) + ", and this melange draws version " +
                 std::to_string(kStreamVersion));
  MergePiece p;
  p.path = path;
  Job& job = p.job;
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  job.seed = whole_at(j, "seed", kMax, path);
  const auto algorithm = parse_algorithm(j.at("algorithm").get<std::string>());
  const auto method = parse_method(j.at("method").get<std::string>());
  if (!algorithm || !method) throw refuse("names an algorithm or method this melange does not know");
  job.algorithm = *algorithm;
  job.spec = BoundedSpec{*method, static_cast<int>(whole_at(j, "bits", 64, path))};
  job.n = static_cast<int>(whole_at(j, "n", INT_MAX, path));
  job.k = j.contains("k") ? static_cast<int>(whole_at(j, "k", INT_MAX, path)) : 0;
  if (job.k == job.n) job.k = 0;
  if (j.contains("weights")) job.weights = j.at("weights").get<std::vector<double>>();
  job.first = whole_at(j, "first", kMax, path);
  job.trials = whole_at(j, "trials", kMax, path);
  job.rank_histogram = seen[static_cast<int>(CountArray::histogram)];
  job.position_matrix = seen[static_cast<int>(CountArray::position)];
  job.hand_histogram = j.contains("hand_bins");
  job.poker_categories = j.contains("poker_categories");
  try {
    validate(job);
  } catch (const UsageError& e) {
    throw refuse(std::string("holds a job this melange refuses: ") + e.what());
  }
  if (job.hand_histogram && !seen[static_cast<int>(CountArray::hands)])
    throw refuse("gives the hand test but not the counts of its " + grouped(hand_count(job.n, shape_of(job).k)) +
                 " hands (too many for JSON): merge the --checkpoint files of such runs instead");
  if (job.poker_categories) {
    const Json& rows = j.at("poker_categories");
    if (!rows.is_array() || rows.size() != kPokerCategories) throw refuse("has the wrong number of poker categories");
    for (const Json& row : rows) p.categories.push_back(whole(row.at("count"), "a poker category count", kMax, path));
  }
  p.words = whole_at(j, "words_consumed", kMax, path);
  p.draws = whole_at(j, "draws", kMax, path);
  p.backend = j.value("backend", "");
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
// job: "histogram" and "hands" flat, "position" a row an item. Every value
// there must be a whole count that fits 64 bits (a JSON float, a negative
// number, a string or a null is refused, as is a wrong number of values);
// everything else in the document is passed over.
class CountReader final : public nlohmann::json_sax<Json> {
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
    return array_ == CountArray::none || depth_ <= 1 ? true : not_a_count("an object");
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) key_ = k;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && count_array(key_) != CountArray::none) {
      array_ = count_array(key_);
      index_ = row_ = 0;
    } else if (depth_ == 3 && array_ == CountArray::position) {
      if (row_ >= tally_.positions.n()) refuse("has more rows in \"position\" than its job has items");
      index_ = 0;
    } else if (array_ != CountArray::none) {
      refuse("has an array nested where counts belong");
    }
    return true;
  }
  bool end_array() override {
    if (depth_ == 3 && array_ == CountArray::position) {
      if (index_ != static_cast<std::size_t>(tally_.positions.k()))
        refuse("has a row of " + std::to_string(index_) + " counts in \"position\" where its job has " +
               std::to_string(tally_.positions.k()));
      ++row_;
    } else if (depth_ == 2 && array_ != CountArray::none) {
      if (array_ == CountArray::position ? row_ != tally_.positions.n() : index_ != counts().size())
        refuse("has " + std::to_string(array_ == CountArray::position ? static_cast<std::size_t>(row_) : index_) +
               (array_ == CountArray::position ? " rows" : " counts") + " in \"" + key_ + "\" where its job has " +
               std::to_string(array_ == CountArray::position ? static_cast<std::size_t>(tally_.positions.n())
                                                             : counts().size()));
      array_ = CountArray::none;
    }
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    refuse("is not well-formed JSON");
    return false;
  }

 private:
  bool in_counts() const {
    return (array_ == CountArray::position && depth_ == 3) ||
           (array_ != CountArray::none && array_ != CountArray::position && depth_ == 2);
  }
  std::vector<std::uint64_t>& counts() {
    return array_ == CountArray::histogram ? tally_.ranks.counts()
           : array_ == CountArray::hands   ? tally_.hands
                                           : tally_.positions.counts();
  }
  bool count(std::uint64_t v) {
    if (!in_counts()) return array_ == CountArray::none ? true : not_a_count("a number");
    if (array_ == CountArray::position) {
      const int k = tally_.positions.k();
      if (index_ < static_cast<std::size_t>(k)) counts()[static_cast<std::size_t>(row_) * k + index_] = v;
      ++index_;  // past k: end_array says the row is too long
      return true;
    }
    if (index_ >= counts().size())
      refuse("has more counts in \"" + key_ + "\" than its job's " + std::to_string(counts().size()));
    counts()[index_++] = v;
    return true;
  }
  bool not_a_count(const std::string& what) {
    if (array_ != CountArray::none) refuse("has " + what + " in \"" + key_ + "\", where whole counts belong");
    return true;
  }
  [[noreturn]] void refuse(const std::string& why) const { throw UsageError(in_quotes(path_) + " " + why); }

  Tally& tally_;
  const std::string& path_;
  int depth_ = 0;
  std::string key_;
  CountArray array_ = CountArray::none;
  std::size_t index_ = 0;
  int row_ = 0;
};

}  // namespace

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
  bool seen[4] = {false, false, false, false};
  const Json j = read_small_json(in, path, seen);
  try {
    MergePiece p = piece_from_json(path, j, seen);
    p.file_bytes = bytes;
    return p;
  } catch (const nlohmann::json::exception&) {
    throw UsageError(in_quotes(path) + " lacks a field of 'audit --json' results, or has one of the wrong type");
  }
}

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
    Json::sax_parse(in, &reader);
    if (piece.job.poker_categories) t.categories = piece.categories;
    t.trials = piece.job.trials;
    t.words = piece.words;
    t.draws = piece.draws;
  }
  const std::string wrong = tally_inconsistency(piece.job, t, piece.job.trials);
  if (!wrong.empty()) throw UsageError(in_quotes(piece.path) + " has counts that do not add up: " + wrong);
  return t;
}

}  // namespace melange::cli
