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
#include "melange/record_shape.hpp"
#include "signals.hpp"

namespace melange::cli {

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

// What the records say of themselves where the flags did not (the
// engine's record_shape.hpp): from a .npy array's shape, or the first text
// lines. Reads ahead a few lines (64 KB, more for a longer first line),
// which the audit reads again.
void infer_record_shape(RecordShape& a, InputFile& input, RecordFormat format) {
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
    infer_row_shape(a, items, "the array's shape", "the array's records");
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
    infer_text_shape(a, head);
  } else {
    require_given_shape(a, record_format_name(format));
  }
}

}  // namespace melange::cli
