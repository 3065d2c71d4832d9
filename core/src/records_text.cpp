// Text records (contract §4): one a line, items separated by
// spaces, commas, semicolons or tabs, or letters A.. .
#include <charconv>
#include <cstring>
#include <optional>
#include <algorithm>

#include "records_reader.hpp"

namespace melange::internal {
namespace {

// Brackets and quotes around items separate them too: Python's
// print(list) and quoted CSV fields read as plain items.
bool separator(char c) {
  switch (c) {
    case ' ': case ',': case ';': case '\t': case '[': case ']': case '(': case ')': case '"': case '\'':
      return true;
    default:
      return false;
  }
}

// A line that holds a record (or a wrong one): not blank, not a # comment.
bool data_line(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (separator(line[i]) || line[i] == '\r')) ++i;
  return i < line.size() && line[i] != '#';
}

// Digits past which an item is out of range for any n (n <= 65536), and
// so never parsed into a number that could overflow.
constexpr std::size_t kMaxItemDigits = 18;

// One line of text; blank lines and # comments are not records, and a #
// after a record's items starts a note on it. A UTF-8 byte-order mark
// before the first line is passed over.
bool text_line(std::string_view line, std::uint64_t line_number, Records& records) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line_number == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  std::size_t i = 0;
  while (i < line.size() && separator(line[i])) ++i;
  if (i == line.size() || line[i] == '#') return true;
  const std::string_view whole_line = line;
  if (const std::size_t note = line.find('#', i); note != std::string_view::npos) line = line.substr(0, note);
  records.begin();
  if (records.has_labels()) {
    while (i < line.size()) {
      std::size_t end = i;
      while (end < line.size() && !separator(line[end])) ++end;
      if (end > i) records.labelled(line.substr(i, end - i));
      i = end + 1;
    }
    return records.finish([whole_line] { return std::string(whole_line); }, line_number);
  }
  const bool letters = (line[i] >= 'A' && line[i] <= 'Z') || (line[i] >= 'a' && line[i] <= 'z');
  while (i < line.size()) {
    if (separator(line[i])) {
      ++i;
      continue;
    }
    if (letters) {
      const char c = line[i++];
      if (c >= 'A' && c <= 'Z')
        records.letter(c);
      else
        records.fail(std::string("'") + c + "' is not an item (letters are A, B, C, ...)");
      continue;
    }
    // Decimal digits up to a separator or the end; past kMaxItemDigits the
    // value is out of range whatever it is, and not computed.
    std::uint64_t value = 0;
    std::size_t j = i;
    while (j < line.size() && static_cast<unsigned>(line[j] - '0') < 10u) {
      if (j - i < kMaxItemDigits) value = value * 10 + static_cast<unsigned>(line[j] - '0');
      ++j;
    }
    if (j > i && (j == line.size() || separator(line[j]))) {
      if (j - i > kMaxItemDigits) records.out_of_range(line.substr(i, j - i));
      else records.item(static_cast<std::int64_t>(value));
      i = j;
      continue;
    }
    std::size_t token_end = i;
    while (token_end < line.size() && !separator(line[token_end])) ++token_end;
    std::string problem(1, '\'');
    problem.append(shown(line.substr(i, token_end - i))).append("' is not an item number");
    records.fail(std::move(problem));
    i = token_end;
  }
  return records.finish([whole_line] { return std::string(whole_line); }, line_number);
}

}  // namespace

// Text: lines in blocks; a line cut by the block's end waits for the next.
RecordStats read_text(const ByteSource& source, const RecordOptions& o, Records& records) {
  std::vector<char> buffer(std::max<std::size_t>(o.block_bytes, 64));
  std::size_t held = 0;  // bytes of an unfinished line at the buffer's start
  std::uint64_t line_number = 0;
  bool header = o.header;  // a header line still to pass over
  const auto line = [&](std::string_view text) {
    ++line_number;
    if (header && data_line(line_number == 1 && text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text)) {
      header = false;
      return true;
    }
    return text_line(text, line_number, records);
  };
  for (;;) {
    const std::size_t got = source(buffer.data() + held, buffer.size() - held);
    const std::size_t size = held + got;
    std::size_t start = 0;
    for (;;) {
      const void* nl = std::memchr(buffer.data() + start, '\n', size - start);
      if (!nl) break;
      const std::size_t stop = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer.data());
      if (!line(std::string_view(buffer.data() + start, stop - start))) return records.stats();
      start = stop + 1;
    }
    held = size - start;
    if (got == 0) {
      if (held) line(std::string_view(buffer.data() + start, held));
      return records.stats();
    }
    if (held == buffer.size())
      throw UsageError("line " + std::to_string(line_number + 1) + " is longer than " +
                       std::to_string(buffer.size()) + " bytes; is the input text with one record a line?");
    std::memmove(buffer.data(), buffer.data() + start, held);
  }
}

}  // namespace melange::internal

namespace melange {
namespace {

// A line's items as the reader would take them: numbers, or letters (one a
// character); nullopt when a token is neither.
struct SniffedLine {
  int items = 0;
  bool letters = false;
  bool has_zero = false;
  std::uint64_t largest = 0;
};
std::optional<SniffedLine> sniff_line(std::string_view line) {
  using internal::separator;
  if (const std::size_t note = line.find('#'); note != std::string_view::npos) line = line.substr(0, note);
  SniffedLine s;
  std::size_t i = 0;
  while (i < line.size() && separator(line[i])) ++i;
  s.letters = i < line.size() && line[i] >= 'A' && line[i] <= 'Z';
  while (i < line.size()) {
    if (separator(line[i])) {
      ++i;
      continue;
    }
    if (s.letters) {
      if (line[i] < 'A' || line[i] > 'Z') return std::nullopt;
      ++s.items;
      ++i;
      continue;
    }
    std::size_t j = i;
    std::uint64_t value = 0;
    while (j < line.size() && static_cast<unsigned>(line[j] - '0') < 10u && j - i < 18)
      value = value * 10 + static_cast<unsigned>(line[j++] - '0');
    if (j == i || (j < line.size() && !separator(line[j]))) return std::nullopt;
    ++s.items;
    s.has_zero = s.has_zero || value == 0;
    s.largest = std::max(s.largest, value);
    i = j;
  }
  if (s.items == 0) return std::nullopt;
  return s;
}

}  // namespace

TextSniff sniff_text(std::string_view head) {
  TextSniff sniff;
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  // Text has few control bytes (a stray one is a wrong record, told as
  // such); binary records of small items are mostly control bytes.
  const std::string_view start = head.substr(0, 4096);
  const auto control = std::count_if(start.begin(), start.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 && c != '\n' && c != '\r' && c != '\t';
  });
  sniff.binary = control * 10 > static_cast<long>(start.size());
  bool first = true;
  while (!head.empty()) {
    const std::size_t nl = head.find('\n');
    if (nl == std::string_view::npos) break;  // a line the head cuts: not read
    std::string_view line = head.substr(0, nl);
    head.remove_prefix(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!internal::data_line(line)) continue;
    const std::optional<SniffedLine> s = sniff_line(line);
    if (first) {
      sniff.first = internal::shown(line);
      std::string_view items = line.substr(0, line.find('#'));
      for (std::size_t i = 0; i < items.size();) {
        while (i < items.size() && internal::separator(items[i])) ++i;
        if (i == items.size()) break;
        ++sniff.tokens;
        while (i < items.size() && !internal::separator(items[i])) ++i;
      }
    }
    if (s) {
      sniff.items = s->items;
      sniff.letters = s->letters;
      sniff.one_based = !s->letters && !s->has_zero && s->largest == static_cast<std::uint64_t>(s->items);
      sniff.largest = s->largest;
      sniff.header = !first;
      return sniff;
    }
    if (!first) return sniff;  // two lines that are not records: no guess
    first = false;
  }
  return sniff;
}

}  // namespace melange
