#include "melange/record_checkpoint.hpp"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <istream>
#include <limits>
#include <ostream>
#include <string_view>

#include "melange/error.hpp"
#include "melange/internal/bytes_text.hpp"
#include "melange/internal/decimal.hpp"
#include "melange/internal/fnv1a.hpp"
#include "melange/job_fields.hpp"

namespace melange {
namespace {

static_assert(std::endian::native == std::endian::little, "checkpoints are written little-endian");

constexpr std::string_view kMagic = "melange records checkpoint 1";

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::uint64_t checksum(const std::string& header, const std::vector<std::uint64_t>& state) {
  return internal::mix_words(internal::fnv1a(header), state.data(), state.size());
}

std::string lag_text(const std::vector<int>& lags) {
  std::string s;
  for (int l : lags) {
    if (!s.empty()) s += ',';
    s += std::to_string(l);
  }
  return s.empty() ? "none" : s;
}

UsageError not_one(const std::string& name, const std::string& why) {
  return UsageError("'" + name + "' is not a records checkpoint melange can read: " + why);
}

std::uint64_t whole(std::string_view text, const std::string& name, std::string_view key) {
  const auto v = internal::parse_decimal(text, std::numeric_limits<std::uint64_t>::max());
  if (!v) throw not_one(name, "its '" + std::string(key) + "' line cannot be read");
  return *v;
}

}  // namespace

bool RecordCheckpoint::finished() const {
  return std::all_of(inputs.begin(), inputs.end(), [](const Input& i) { return i.finished; });
}

void write_record_checkpoint(std::ostream& out, const RecordCheckpoint& c) {
  std::string text = std::string(kMagic) + "\n";
  const auto line = [&text](std::string_view key, const std::string& value) {
    text.append(key).append(" ").append(value).append("\n");
  };
  for (const JobField& f : job_fields())
    if (!(f.optional_line && f.omitted(c.job))) line(f.key, f.text(c.job));
  line("format", c.format);
  line("base", std::to_string(c.base));
  line("lags", lag_text(c.lags));
  line("position", c.position ? "1" : "0");
  line("rank", c.rank ? "1" : "0");
  line("hands", c.hands ? "1" : "0");
  std::string labels;
  for (const std::string& l : c.labels) {
    // A label holds no comma, space or newline (the reader splits on them).
    if (!labels.empty()) labels += ',';
    labels += l;
  }
  line("labels", labels.empty() ? "none" : labels);
  line("invalid", std::to_string(c.invalid));
  std::string first_invalid = c.first_invalid;
  std::replace(first_invalid.begin(), first_invalid.end(), '\n', ' ');
  line("first_invalid", first_invalid);
  line("inputs", std::to_string(c.inputs.size()));
  for (const RecordCheckpoint::Input& i : c.inputs) {
    if (i.path.find('\n') != std::string::npos)
      throw UsageError("a checkpoint names its inputs a line each: '" + i.path +
                       "' holds a newline; rename it to audit it with --checkpoint");
    line("input", std::to_string(i.read) + " " + (i.finished ? "1" : "0") + " " + i.path);
  }
  out << text << "checksum " << hex64(checksum(text, c.state)) << "\n"
      << "state " << c.state.size() << "\n";
  out.write(reinterpret_cast<const char*>(c.state.data()), static_cast<std::streamsize>(c.state.size() * 8));
}

bool is_record_checkpoint(std::istream& in) {
  const auto here = in.tellg();
  std::string first(kMagic.size(), '\0');
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  const bool yes = in.gcount() == static_cast<std::streamsize>(first.size()) && first == kMagic;
  in.clear();
  in.seekg(here);
  return yes;
}

RecordCheckpoint read_record_checkpoint(std::istream& in, const std::string& name, std::uint64_t memory_cap) {
  std::string line, text;
  if (!std::getline(in, line) || line != kMagic) throw not_one(name, "it does not start with '" + std::string(kMagic) + "'");
  text = line + "\n";
  // The next header line, which must be `key`; its value.
  const auto take = [&](std::string_view key) {
    if (!std::getline(in, line) || line.size() > (std::size_t{1} << 20))
      throw not_one(name, "it ends before '" + std::string(key) + "'");
    const std::string head = std::string(key) + " ";
    if (line.rfind(head, 0) != 0) throw not_one(name, "'" + std::string(key) + "' is missing");
    text += line + "\n";
    return line.substr(head.size());
  };
  RecordCheckpoint c;
  for (const JobField& f : job_fields()) {
    if (f.optional_line && f.omitted(c.job)) {
      // An optional line may be missing: peek at the next key.
      const auto at = in.tellg();
      std::string next;
      std::getline(in, next);
      in.seekg(at);
      if (next.rfind(std::string(f.key) + " ", 0) != 0) continue;
    }
    if (!f.read(take(f.key), c.job)) throw not_one(name, "its '" + std::string(f.key) + "' line cannot be read");
  }
  if (c.job.k == c.job.n) c.job.k = 0;
  try {
    validate(c.job);
  } catch (const UsageError& e) {
    throw not_one(name, std::string("its job is not valid (") + e.what() + ")");
  }
  c.format = take("format");
  c.base = static_cast<int>(whole(take("base"), name, "base"));
  const std::string lags = take("lags");
  if (lags != "none")
    for (std::size_t at = 0; at <= lags.size();) {
      const std::size_t end = std::min(lags.find(',', at), lags.size());
      c.lags.push_back(static_cast<int>(std::min<std::uint64_t>(whole(lags.substr(at, end - at), name, "lags"), 1u << 30)));
      at = end + 1;
    }
  c.position = whole(take("position"), name, "position") != 0;
  c.rank = whole(take("rank"), name, "rank") != 0;
  c.hands = whole(take("hands"), name, "hands") != 0;
  const std::string labels = take("labels");
  if (labels != "none")
    for (std::size_t at = 0; at <= labels.size();) {
      const std::size_t end = std::min(labels.find(',', at), labels.size());
      c.labels.push_back(labels.substr(at, end - at));
      at = end + 1;
    }
  if (!c.labels.empty() && c.labels.size() != static_cast<std::size_t>(c.job.n))
    throw not_one(name, "its 'labels' line names " + std::to_string(c.labels.size()) + " items, not n");
  c.invalid = whole(take("invalid"), name, "invalid");
  c.first_invalid = take("first_invalid");
  const std::uint64_t inputs = whole(take("inputs"), name, "inputs");
  if (inputs == 0 || inputs > (std::uint64_t{1} << 20)) throw not_one(name, "its 'inputs' line is out of range");
  for (std::uint64_t i = 0; i < inputs; ++i) {
    const std::string v = take("input");
    const std::size_t a = v.find(' '), b = a == std::string::npos ? a : v.find(' ', a + 1);
    if (b == std::string::npos) throw not_one(name, "an 'input' line cannot be read");
    const std::string finished = v.substr(a + 1, b - a - 1);
    if (finished != "0" && finished != "1") throw not_one(name, "an 'input' line cannot be read");
    c.inputs.push_back({v.substr(b + 1), whole(v.substr(0, a), name, "input"), finished == "1"});
  }
  if (!std::getline(in, line) || line.rfind("checksum ", 0) != 0) throw not_one(name, "'checksum' is missing");
  const std::string stated = line.substr(9);
  if (!std::getline(in, line) || line.rfind("state ", 0) != 0) throw not_one(name, "'state' is missing");
  const std::uint64_t words = whole(std::string_view(line).substr(6), name, "state");
  if (words > memory_cap / 8)
    throw UsageError(Param::memory_cap, "the checkpoint '" + name + "' holds " + internal::bytes_text(words * 8) +
                                            " of tallies, more than the " + internal::bytes_text(memory_cap) +
                                            " the memory cap leaves them: raise {memory_cap}");
  // The file's own length is checked before the state is made.
  const auto here = in.tellg();
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  in.seekg(here);
  if (here >= 0 && end >= 0 && static_cast<std::uint64_t>(end - here) != words * 8)
    throw not_one(name, static_cast<std::uint64_t>(end - here) < words * 8 ? "it is cut short"
                                                                           : "it has bytes after its state");
  c.state.resize(words);
  in.read(reinterpret_cast<char*>(c.state.data()), static_cast<std::streamsize>(words * 8));
  if (static_cast<std::uint64_t>(in.gcount()) != words * 8) throw not_one(name, "it is cut short");
  if (stated != hex64(checksum(text, c.state))) throw not_one(name, "its checksum does not match: it was changed or damaged");
  return c;
}

}  // namespace melange
