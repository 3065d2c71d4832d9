// `melange words` and `melange bounded`: the stream contract made visible.
#include <cerrno>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "melange/backend_table.hpp"
#include "melange/bounded.hpp"
#include "melange/error.hpp"
#include "melange/integers.hpp"
#include "melange/limits.hpp"
#include "melange/stream.hpp"
#include "output.hpp"
#include "parse.hpp"

namespace melange::cli {
namespace {

constexpr std::uint64_t kMaxPrinted = 1'000'000'000;  // values a printing command emits
constexpr int kPerLine = 8;

struct StreamArgs {
  // Every command's defaults: the fixed job seed and the batched method.
  std::string seed, stream = "0", count = "16", json;
  // bounded only
  std::string range, method = std::string(method_name(BoundedSpec{}.method));
  int bits = 32;
};

void add_stream_options(CLI::App* cmd, StreamArgs& a) {
  cmd->add_option("--seed", a.seed, "64-bit job seed, decimal or 0x hex (default: fixed, printed; the same as every command's)");
  cmd->add_option("--stream", a.stream, "stream (trial) index, 64-bit")->capture_default_str();
  cmd->add_option("--count", a.count, "how many values to print (1e6 notation works)")
      ->capture_default_str();
  cmd->add_option("--json", a.json, "also write the result as JSON to FILE ('-': JSON on stdout only)");
}

// Hands a chunk on, and stops at the first write that fails (a full disk,
// a reader gone) rather than making the rest of a long stream for nobody.
void write_chunk(std::ostream& to, std::string& out) {
  errno = 0;
  to << out;
  const int why = errno;
  out.clear();
  if (to) return;
  if (&to == &std::cout) check_stdout(why);  // says why
  throw Error("writing the output failed");
}

// Prints a '#' header line, then the values kPerLine to a line, in pieces.
template <class Format>
void print_rows(std::ostream& to, std::uint64_t count, const std::string& header, Format&& item) {
  std::string out = header + "\n";
  for (std::uint64_t i = 0; i < count; ++i) {
    out += item(i);
    out += (i + 1) % kPerLine == 0 || i + 1 == count ? '\n' : ' ';
    if (out.size() > (1u << 20)) write_chunk(to, out);
  }
  write_chunk(to, out);
}

// JSON array elements, one per line, as dump(2) writes them.
template <class Format>
void json_elements(std::ostream& to, std::uint64_t count, const std::string& indent, Format&& item) {
  std::string out;
  for (std::uint64_t i = 0; i < count; ++i) {
    out += indent;
    out += item(i);
    if (i + 1 < count) out += ",\n";
    if (out.size() > (1u << 20)) write_chunk(to, out);
  }
  write_chunk(to, out);
}

// Values are made again for each output rather than held: a pure function of
// (seed, stream), they cost less to recompute than 4 bytes each to keep.
int run_words(const StreamArgs& a) {
  const std::uint64_t seed = a.seed.empty() ? kDefaultSeed : parse_seed(a.seed);
  const std::uint64_t stream = parse_index(a.stream, "--stream");
  const std::uint64_t count = parse_count(a.count, "--count", kMaxPrinted);
  Outputs outputs;
  outputs.declare("--json", a.json);
  auto words = [&](auto&& emit) {
    PhiloxStream s(seed, stream);
    return [s, emit](std::uint64_t) mutable { return emit(s.next()); };
  };

  if (!a.json.empty()) {
    auto doc = json_header("words");
    doc["seed"] = json_u64(seed);
    doc["stream"] = json_u64(stream);
    doc["count"] = json_u64(count);
    doc["words"] = count ? Json(nullptr) : Json::array();  // null: streamed below
    write_json(outputs.open(a.json), doc, "words", [&](std::ostream& to, const std::string& indent) {
      json_elements(to, count, indent, words([](std::uint32_t w) { return "\"" + hex32(w) + "\""; }));
    });
  }
  if (a.json != "-")
    print_rows(std::cout, count,
               "# melange words: seed " + std::to_string(seed) + ", stream " +
                   std::to_string(stream) + ", count " + std::to_string(count),
               words([](std::uint32_t w) { return hex32(w); }));
  outputs.commit();
  return 0;
}

int run_bounded(const StreamArgs& a) {
  const std::uint64_t seed = a.seed.empty() ? kDefaultSeed : parse_seed(a.seed);
  const std::uint64_t stream = parse_index(a.stream, "--stream");
  const std::uint64_t count = parse_count(a.count, "--count", kMaxPrinted);
  const std::uint64_t s = parse_count(a.range, "--range", ~std::uint64_t{0});
  if (s == 0) throw UsageError("--range must be at least 1");
  const auto m = parse_method(a.method);
  if (!m)
    throw UsageError("unknown --method '" + a.method + "': use " + method_names(", "));
  const BoundedSpec spec{*m, a.bits};
  Outputs outputs;
  outputs.declare("--json", a.json);
  // The stream's values (integers.hpp), drawn afresh for each output: the
  // first `count` of an endless sequence, so a longer --count extends it.
  auto values = [&] { return BoundedIntegers(seed, stream, ValuesUpTo{s - 1}, spec, fastest_block_fill()); };
  // The header names the words consumed, known once every value is drawn.
  BoundedIntegers all = values();
  for (std::uint64_t i = 0; i < count; ++i) all.next();
  const std::uint64_t consumed = all.words_consumed();

  if (!a.json.empty()) {
    auto doc = json_header("bounded");
    doc["seed"] = json_u64(seed);
    doc["stream"] = json_u64(stream);
    doc["range"] = s;
    doc["method"] = method_name(spec.method);
    doc["bits"] = spec.bits;
    doc["count"] = json_u64(count);
    doc["words_consumed"] = json_u64(consumed);
    doc["values"] = count ? Json(nullptr) : Json::array();  // null: streamed below
    write_json(outputs.open(a.json), doc, "values", [&](std::ostream& to, const std::string& indent) {
      auto value = values();
      json_elements(to, count, indent, [&](std::uint64_t) { return std::to_string(value.next()); });
    });
  }
  if (a.json != "-")
    print_rows(std::cout, count,
               "# melange bounded: seed " + std::to_string(seed) + ", stream " +
                   std::to_string(stream) + ", range " + std::to_string(s) + ", method " +
                   std::string(method_name(spec.method)) + ", bits " + std::to_string(a.bits) +
                   ", count " + std::to_string(count) + ", words consumed " +
                   std::to_string(consumed),
               [value = values()](std::uint64_t) mutable { return std::to_string(value.next()); });
  outputs.commit();
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
  bounded->add_option("--range", b->range, "exclusive upper bound, 1..2^64-1 (above 2^32: 64-bit words of two, contract §2)")->required();
  bounded->add_option("--method", b->method,
                      method_names(" | ") + " (batched, every command's default, draws several values a word)")
      ->capture_default_str();
  bounded->add_option("--bits", b->bits, "source width: each word is cut to its top bits, 1..32")
      ->capture_default_str();
  bounded->callback([b, &action] { action = [b] { return run_bounded(*b); }; });
}

}  // namespace melange::cli
