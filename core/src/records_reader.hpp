// The record reader's parts (records.hpp), shared by its files: the
// checker every record goes through (Records), and each format's reader.
// Private to core; records.cpp composes them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "melange/error.hpp"
#include "melange/number_text.hpp"
#include "melange/records.hpp"

namespace melange::internal {

inline constexpr std::size_t kShownChars = 80;

// A piece of input for a message: at most kShownChars of it, and control
// bytes (ESC, NUL, CR, ...) written as \xNN, so that a record cannot move
// the cursor or set a terminal's title when its error is printed.
inline std::string shown(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < kShownChars; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return text.size() > kShownChars ? out + "..." : out;
}

// Valid records handed on together (a call per record would cost more than
// reading it).
inline constexpr std::size_t kBatchItems = std::size_t{1} << 12;

// Counts records, hands valid ones on in batches, and stops or skips on
// wrong ones.
class Records {
 public:
  Records(const RecordOptions& o, const RecordBatch& each)
      : o_(o),
        each_(each),
        width_(o.k > 0 ? o.k : o.n),
        batch_records_(std::max<std::size_t>(1, kBatchItems / static_cast<std::size_t>(width_))),
        items_(batch_records_ * static_cast<std::size_t>(width_)),
        stamp_(static_cast<std::size_t>(o.n), 0) {
    for (std::size_t i = 0; i < o.labels.size(); ++i) label_index_.emplace(o.labels[i], static_cast<int>(i));
    for (const auto& [spelling, item] : o.label_spellings) label_index_.emplace(spelling, item);
  }

  bool has_labels() const { return !label_index_.empty(); }
  // One item written as its label.
  bool labelled(std::string_view token) {
    const auto at = label_index_.find(std::string(token));
    if (at == label_index_.end()) {
      std::string problem(1, '\'');
      problem.append(shown(token)).append("' is not one of the ").append(std::to_string(o_.labels.size())).append(" labels");
      told_spellings_ = told_spellings_ || (!bad_ && !o_.label_words.empty());  // the record's first fault
      fail(std::move(problem), o_.label_words);
      return false;
    }
    return item(at->second + o_.base);
  }

  // Starts a record; then item() for each item, then finish().
  void begin() {
    count_ = 0;
    bad_ = false;
    told_spellings_ = false;
    record_ = items_.data() + batched_ * static_cast<std::size_t>(width_);
    if (++mark_ == 0) {  // the stamps wrapped: clear them once every 2^32 records
      std::fill(stamp_.begin(), stamp_.end(), 0);
      mark_ = 1;
    }
  }
  // One item, as read (before the base is taken off). False once the record is wrong.
  [[gnu::always_inline]] bool item(std::int64_t value) {
    const std::int64_t v = value - o_.base;
    if (bad_ || v < 0 || v >= o_.n || count_ == width_ || stamp_[static_cast<std::size_t>(v)] == mark_)
      return wrong_item(value);
    stamp_[static_cast<std::size_t>(v)] = mark_;
    record_[count_++] = static_cast<std::uint16_t>(v);
    return true;
  }
  // An item written with more digits than any n has: out of range, told as
  // written (it may not fit 64 bits).
  void out_of_range(std::string_view digits) {
    fail("item " + shown(digits) + " is out of range " + std::to_string(o_.base) + ".." +
         std::to_string(o_.base + o_.n - 1));
  }
  // What is wrong with `value` (the first fault of a record is the one told).
  [[gnu::noinline]] bool wrong_item(std::int64_t value) {
    if (bad_) return false;
    const std::int64_t v = value - o_.base;
    if (v < 0 || v >= o_.n)
      fail("item " + std::to_string(value) + " is out of range " + std::to_string(o_.base) + ".." +
           std::to_string(o_.base + o_.n - 1),
           o_.base == 0 && value == o_.n ? "records that count items from 1 want {base} 1" : "");
    else if (count_ == width_)
      fail("more than " + std::to_string(width_) + " items");
    else if (has_labels())
      fail("'" + o_.labels[static_cast<std::size_t>(v)] + "' appears twice");
    else
      fail("item " + std::to_string(value) + " appears twice");
    return false;
  }
  // A letter item: A is 0, whatever the base.
  bool letter(char c) {
    const int index = c - 'A';
    if (index >= o_.n) {
      fail(std::string("letter ") + c + " is beyond the " + std::to_string(o_.n) + " items A.." +
           static_cast<char>('A' + std::min(o_.n, 26) - 1));
      return false;
    }
    return item(index + o_.base);
  }
  // `hint`: what to do, in {tokens}; the problem may quote the input.
  void fail(std::string problem, std::string hint = "") {
    if (bad_) return;
    bad_ = true;
    problem_ = std::move(problem);
    hint_ = std::move(hint);
  }
  // Ends the record; `text()` renders it for a message, and a text record
  // names its line. Returns false to stop reading. Nothing is built for a
  // record that is right.
  template <class Text>
  bool finish(const Text& text, std::uint64_t line = 0) {
    ++number_;
    if (passed_ < o_.pass_over && !bad_ && count_ == width_) {
      ++passed_;  // counted by the read this one resumes
      return true;
    }
    if (!bad_ && count_ == width_) {
      ++stats_.records;
      return ++batched_ < batch_records_ || flush();
    }
    // fail() sets the hint with the problem; a record cut short has none.
    if (!bad_) {
      problem_ = "has " + std::to_string(count_) + " items, expected " + std::to_string(width_);
      hint_.clear();
    }
    std::string message = "record " + std::to_string(number_);
    if (line) message += " (line " + std::to_string(line) + ")";
    message += ": \"" + shown(text()) + "\": " + problem_;
    if (!o_.skip_invalid) {
      // A label written another way is told the ways it may be written, not
      // to skip the records (every one would be).
      if (told_spellings_) throw UsageError(Param::skip_invalid, token_safe(message) + "; " + token_safe(hint_));
      throw UsageError(Param::skip_invalid, token_safe(message) + (hint_.empty() ? "" : "; " + hint_) +
                                                "; fix the input or pass {skip_invalid} to count and skip such records");
    }
    if (stats_.invalid++ == 0) {
      stats_.first_invalid = message;
      first_hint_ = hint_;
    }
    // Most of a long run wrong: the input or the flags are, and reading on
    // would only say so later; unless any share may be skipped ("all").
    if (o_.max_invalid_share < 0.5 && stats_.invalid >= kInvalidRecordsToGiveUp && 2 * stats_.invalid > number_)
      too_many_invalid();
    return true;
  }
  [[noreturn]] void too_many_invalid() const {
    const std::string share = number_text(100.0 * static_cast<double>(stats_.invalid) / static_cast<double>(number_),
                                          std::chars_format::general, 3) + "%";
    const std::string cap = number_text(100.0 * o_.max_invalid_share, std::chars_format::general, 6) + "%";
    throw UsageError(Param::skip_invalid,
                     std::to_string(stats_.invalid) + " of the " + std::to_string(number_) + " records read (" + share +
                         ") are wrong, more than the " + cap + " {skip_invalid} skips: the input or the flags that "
                         "read it are wrong. The first: " + token_safe(stats_.first_invalid) +
                         (first_hint_.empty() ? "" : " (" + first_hint_ + ")") +
                         ". To skip any number, give {skip_invalid} the value all");
  }
  // Hands on the records held; false when the reader is to stop.
  bool flush() {
    const std::size_t held = batched_;
    batched_ = 0;
    return held == 0 || each_(items_.data(), held);
  }
  std::uint64_t number() const { return number_; }
  // `valid` right records that a faster reader checked and handed on itself.
  void counted(std::uint64_t valid) {
    number_ += valid;
    stats_.records += valid;
  }
  // What was read; throws when more were wrong than skip_invalid skips.
  RecordStats stats() const {
    if (static_cast<double>(stats_.invalid) > o_.max_invalid_share * static_cast<double>(number_)) too_many_invalid();
    return stats_;
  }

 private:
  const RecordOptions& o_;
  const RecordBatch& each_;
  int width_;  // items a record: k for deals, n for permutations
  std::size_t batch_records_;
  std::vector<std::uint16_t> items_;  // the batch: batch_records_ records
  std::size_t batched_ = 0;           // records in it
  std::uint16_t* record_ = nullptr;   // the record being read
  std::vector<std::uint32_t> stamp_;
  std::unordered_map<std::string, int> label_index_;  // RecordOptions::labels: label -> item
  std::uint32_t mark_ = 0;
  int count_ = 0;
  bool bad_ = false;     // the record is wrong; problem_ says why
  bool told_spellings_ = false;  // its fault is a label none of the spellings: hint_ names them
  std::string problem_;
  std::string hint_;     // and what to do about it, if the problem suggests it
  std::string first_hint_;  // the first wrong record's hint
  std::uint64_t number_ = 0;
  std::uint64_t passed_ = 0;  // right records passed over (RecordOptions::pass_over)
  RecordStats stats_;
};



// Binary records of n items, `width` bytes each, little-endian; `limit`
// records at most (the .npy shape), or to the end.
struct Binary {
  int width;
  bool is_signed;
  std::optional<std::uint64_t> limit = std::nullopt;  // unset: to the end
};

// Exactly `size` bytes, or fewer at the end.
std::size_t read_exact(const ByteSource& source, char* out, std::size_t size);

// Each format's records through `records` (records_text.cpp, records_binary.cpp).
RecordStats read_text(const ByteSource& source, const RecordOptions& o, Records& records);
RecordStats read_binary(const ByteSource& source, const RecordOptions& o, const Binary& b, Records& records);
// A .npy file's header (npy.hpp), as the binary records it describes.
Binary read_npy_records(const ByteSource& source, const RecordOptions& o);
// Whole permutations of n <= kMaxTableItems items in binary records, checked
// and ranked at once by a table lookup.
inline constexpr int kMaxTableItems = 6;
RecordStats read_ranked_table(const ByteSource& source, const RecordOptions& o, const Binary& b,
                              const RankBatch& each);

}  // namespace melange::internal
