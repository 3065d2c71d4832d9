#include "record_input.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <unordered_set>

#include "list_args.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/limits.hpp"
#include "melange/npy.hpp"
#include "signals.hpp"

namespace melange::cli {
namespace {

// Labelled text records: n is the labels', k the first record's length.
void infer_from_labels(RecordShape& a, const TextSniff& sniff, std::vector<std::string>& said) {
  const bool deal = a.k != 0;
  const int n = static_cast<int>(a.labels.size());
  if (a.n_given && a.n != n)
    throw UsageError("--labels names " + std::to_string(n) + " items; --n is " + std::to_string(a.n) +
                     ": drop --n (the labels give it) or fix it");
  if (sniff.tokens > n)
    throw UsageError("records have " + std::to_string(sniff.tokens) + " items (the first reads \"" + sniff.first +
                     "\"); --labels names " + std::to_string(n) + ": name every item once");
  a.n = n;
  said.push_back("n " + std::to_string(n) + " from --labels");
  if (!deal && sniff.tokens > 0 && sniff.tokens < n) {
    a.k = sniff.tokens;
    said.push_back("deals of k " + std::to_string(sniff.tokens) + " from the first record");
  }
}

}  // namespace

// --labels: "cards" (the 52 names 2c..As), a list ("Kh,2c,..."), or a
// FILE of them (whitespace or commas between), at most `max_bytes` of it.
// Each label once, and none holding what a record line gives another
// meaning ('#' starts a comment, ';' separates items).
std::vector<std::string> parse_labels(const std::string& arg, std::uint64_t max_bytes) {
  std::vector<std::string> labels;
  if (arg == "cards") {
    for (int c = 0; c < 52; ++c) labels.push_back(card_name(c));
    return labels;
  }
  std::string text = arg;
  std::error_code ec;
  if (arg.find(',') == std::string::npos && std::filesystem::is_regular_file(arg, ec)) {
    text = read_list_file(arg, "--labels", max_bytes);
  } else if (arg.find(',') == std::string::npos) {
    throw UsageError("--labels '" + arg + "' is neither 'cards', a comma-separated list nor a file");
  }
  labels = split_list(text, "--labels", static_cast<std::size_t>(kMaxSampleItems), false);
  std::unordered_set<std::string_view> seen;
  for (const std::string& label : labels) {
    if (label.find_first_of("#;") != std::string::npos)
      throw UsageError("--labels has '" + label + "': a label cannot hold '#' or ';', which records read as a comment "
                       "and a separator: rename it");
    if (!seen.insert(label).second)
      throw UsageError("--labels names '" + label + "' twice: each item needs its own");
  }
  if (labels.size() < 2) throw UsageError("--labels needs a name for each item, at least two");
  return labels;
}

// What the records say of themselves where the flags did not: n from the
// first record (text, or a .npy array's shape), 1-based text when the first
// record is a permutation of 1..n, a header line passed over. A given --n
// that the first record contradicts is refused, saying what the records
// hold. Reads ahead a few lines (64 KB, more for a longer first line),
// which the audit reads again.
void infer_record_shape(RecordShape& a, InputFile& input, RecordFormat format) {
  const bool deal = a.k != 0;
  const std::string noun = deal ? "--k" : "--n";
  const int given = deal ? a.k : a.n;
  std::vector<std::string> said;
  if (format == RecordFormat::npy) {
    const std::string_view head = input.peek(std::size_t{1} << 16, ~std::size_t{0});
    std::size_t at = 0;
    const NpyArray array = read_npy_header([&](char* buffer, std::size_t size) {
      const std::size_t got = std::min(size, head.size() - at);
      std::memcpy(buffer, head.data() + at, got);
      at += got;
      return got;
    });
    const auto items = static_cast<int>(std::min<std::uint64_t>(array.cols, 1u << 20));
    if (a.n_given || deal) {
      if (items != given)
        throw UsageError("the array's records have " + std::to_string(items) + " items; " + noun + " is " +
                         std::to_string(given) + (deal ? ": fix --k" : ": drop --n (melange reads it from the array) or fix it"));
      return;
    }
    a.n = items;
    said.push_back("n " + std::to_string(items) + " from the array's shape");
  } else if (format == RecordFormat::text) {
    // The first lines, 64 KB as a rule; a record line longer than that
    // (tens of thousands of items) is read whole, up to kLongestFirstLines.
    constexpr std::size_t kLongestFirstLines = std::size_t{1} << 24;
    std::size_t want = std::size_t{1} << 16;
    std::string head(input.peek(want, 3));
    while (!input.ended() && std::count(head.begin(), head.end(), '\n') < 2 && want < kLongestFirstLines) {
      want *= 4;
      head = input.peek(want, 2);
    }
    if (input.ended() && !head.empty() && head.back() != '\n') head += '\n';  // the last line, unended
    const TextSniff sniff = sniff_text(head);
    if (!a.labels.empty()) {
      infer_from_labels(a, sniff, said);
      for (const std::string& w : said) a.inferred += (a.inferred.empty() ? "" : "; ") + w;
      return;
    }
    if (sniff.binary && !a.format_given)
      throw UsageError("the input is not text (its first bytes hold NUL and control characters): for binary "
                       "records pass --format u8 or u16 and --n, or name the file .u8, .u16 or .npy");
    if (sniff.items == 0) {
      if (a.n_given || deal) return;  // the reader names what is wrong with the first line
      throw UsageError("no record among the first lines (the first reads \"" + sniff.first +
                       "\"): give records of items 0..n-1 a line, pass --n and --format, or name the items with --labels "
                       "(--labels cards for 2c .. As)");
    }
    if (a.n_given && !deal && !sniff.letters && sniff.items < a.n) {
      // Fewer items than --n, each one of 0..n-1: deals of k from n.
      a.k = sniff.items;
      said.push_back("deals of k " + std::to_string(sniff.items) + " from the first record (" +
                     std::to_string(sniff.items) + " of the " + std::to_string(a.n) + " items; --k says otherwise)");
    } else if (a.n_given || deal) {
      if (sniff.items != given)
        throw UsageError("records have " + std::to_string(sniff.items) + " items (the first reads \"" +
                         (sniff.header ? std::string("...") : sniff.first) + "\"); " + noun + " is " +
                         std::to_string(given) +
                         (deal ? ": fix --k" : ": drop --n (melange reads it from the records) or fix it"));
    } else {
      // Numbers beyond the record's own length: not a permutation of
      // 0..n-1 (nor 1..n), most likely a deal from a larger set.
      const std::uint64_t top = sniff.items - (a.base_given && a.base == 1 ? 0 : 1) + (sniff.one_based ? 1 : 0);
      if (!sniff.letters && sniff.largest > top)
        throw UsageError("the first record has " + std::to_string(sniff.items) + " items, the largest " +
                         std::to_string(sniff.largest) + " (it reads \"" + sniff.first +
                         "\"): for deals of " + std::to_string(sniff.items) +
                         " from a larger set pass --n, its size (--n 52 for a deck); a permutation holds each of "
                         "0.." + std::to_string(sniff.items - 1) + " once");
      a.n = sniff.items;
      said.push_back("n " + std::to_string(sniff.items) + " from the first record");
    }
    if (!a.base_given && !deal && sniff.one_based) {
      a.base = 1;
      said.push_back("1-based (the first record holds 1.." + std::to_string(sniff.items) + ", no 0; --base 0 says otherwise)");
    }
    if (sniff.letters)
      for (int i = 0; i < a.n; ++i) a.labels.emplace_back(1, static_cast<char>('A' + i));
    if (sniff.header) {
      a.header = true;
      said.push_back("the first line passed over as a header (\"" + sniff.first + "\")");
    }
  } else if (!a.n_given && !deal) {
    throw UsageError(std::string(record_format_name(format)) +
                     " records have no line ends to count items by: pass --n (items a record)");
  }
  for (const std::string& s : said) a.inferred += (a.inferred.empty() ? "" : "; ") + s;
}

}  // namespace melange::cli
