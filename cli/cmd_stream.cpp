// `melange words` and `melange bounded`: the stream contract made visible.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "melange/bounded.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "output.hpp"
#include "parse.hpp"

namespace melange::cli {
namespace {

constexpr std::uint64_t kMaxPrinted = 1'000'000'000;  // values a printing command emits
constexpr int kPerLine = 8;

struct StreamArgs {
  std::string seed = "0", stream = "0", count = "16", json;
  // bounded only
  std::string range, method = "lemire";
  int bits = 32;
};

void add_stream_options(CLI::App* cmd, StreamArgs& a) {
  cmd->add_option("--seed", a.seed, "64-bit job seed, decimal or 0x hex")->capture_default_str();
  cmd->add_option("--stream", a.stream, "stream (trial) index, 64-bit")->capture_default_str();
  cmd->add_option("--count", a.count, "how many values to print (1e6 notation works)")
      ->capture_default_str();
  cmd->add_option("--json", a.json, "also write the result as JSON to FILE ('-': JSON on stdout only)");
}

// Prints a '#' header line, then the values kPerLine to a line.
template <class Format>
void print_rows(std::uint64_t count, const std::string& header, Format&& item) {
  std::ostringstream out;
  out << header << "\n";
  for (std::uint64_t i = 0; i < count; ++i) {
    out << item(i) << ((i + 1) % kPerLine == 0 || i + 1 == count ? "\n" : " ");
    if (out.tellp() > (1 << 20)) {
      std::cout << out.str();
      out.str("");
    }
  }
  std::cout << out.str() << std::flush;
}

int run_words(const StreamArgs& a) {
  const std::uint64_t seed = parse_seed(a.seed);
  const std::uint64_t stream = parse_seed(a.stream, "--stream");
  const std::uint64_t count = parse_count(a.count, "--count", kMaxPrinted);
  PhiloxStream s(seed, stream);
  std::vector<std::uint32_t> v(count);
  for (auto& x : v) x = s.next();

  if (!a.json.empty()) {
    auto doc = json_header("words");
    doc["seed"] = seed;
    doc["stream"] = stream;
    doc["count"] = count;
    std::vector<std::string> hex;
    hex.reserve(count);
    for (auto x : v) hex.push_back(hex32(x));
    doc["words"] = hex;
    emit_json(a.json, doc);
  }
  if (a.json != "-")
    print_rows(count,
               "# melange words: seed " + std::to_string(seed) + ", stream " +
                   std::to_string(stream) + ", count " + std::to_string(count),
               [&](std::uint64_t i) { return hex32(v[i]); });
  return 0;
}

int run_bounded(const StreamArgs& a) {
  const std::uint64_t seed = parse_seed(a.seed);
  const std::uint64_t stream = parse_seed(a.stream, "--stream");
  const std::uint64_t count = parse_count(a.count, "--count", kMaxPrinted);
  const std::uint64_t s = parse_count(a.range, "--range", std::uint64_t{1} << 32);
  if (s == 0) throw UsageError("--range must be at least 1");
  const auto m = parse_method(a.method);
  if (!m)
    throw UsageError("unknown --method '" + a.method +
                     "': use lemire, modulo, rejection or multiply");
  const BoundedSpec spec{*m, a.bits};
  validate_bounded(spec, s);
  PhiloxStream words(seed, stream);
  std::vector<std::uint32_t> v(count);
  for (auto& x : v) x = melange::bounded(words, s, spec);

  if (!a.json.empty()) {
    auto doc = json_header("bounded");
    doc["seed"] = seed;
    doc["stream"] = stream;
    doc["range"] = s;
    doc["method"] = method_name(spec.method);
    doc["bits"] = spec.bits;
    doc["count"] = count;
    doc["words_consumed"] = words.words_consumed();
    doc["values"] = v;
    emit_json(a.json, doc);
  }
  if (a.json != "-")
    print_rows(count,
               "# melange bounded: seed " + std::to_string(seed) + ", stream " +
                   std::to_string(stream) + ", range " + std::to_string(s) + ", method " +
                   std::string(method_name(spec.method)) + ", bits " + std::to_string(a.bits) +
                   ", count " + std::to_string(count) + ", words consumed " +
                   std::to_string(words.words_consumed()),
               [&](std::uint64_t i) { return std::to_string(v[i]); });
  return 0;
}

}  // namespace

void add_stream_commands(CLI::App& app, Action& action) {
  auto w = std::make_shared<StreamArgs>();
  auto* words = app.add_subcommand("words", "Print a stream's raw Philox4x32-10 words in hex");
  add_stream_options(words, *w);
  words->callback([w, &action] { action = [w] { return run_words(*w); }; });

  auto b = std::make_shared<StreamArgs>();
  auto* bounded = app.add_subcommand(
      "bounded", "Print values in [0, range) drawn one after another from one stream");
  add_stream_options(bounded, *b);
  bounded->add_option("--range", b->range, "exclusive upper bound, 1..2^32")->required();
  bounded->add_option("--method", b->method, "lemire | modulo | rejection | multiply")
      ->capture_default_str();
  bounded->add_option("--bits", b->bits, "source width: each word is cut to its top bits, 1..32")
      ->capture_default_str();
  bounded->callback([b, &action] { action = [b] { return run_bounded(*b); }; });
}

}  // namespace melange::cli
