#include "melange/records.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

#include "melange/error.hpp"
#include "melange/npy.hpp"
#include "melange/internal/join_names.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

constexpr std::size_t kShownChars = 80;

// A piece of input for a message: at most kShownChars of it, and control
// bytes (ESC, NUL, CR, ...) written as \xNN, so that a record cannot move
// the cursor or set a terminal's title when its error is printed.
std::string shown(std::string_view text) {
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
constexpr std::size_t kBatchItems = std::size_t{1} << 12;

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
        stamp_(static_cast<std::size_t>(o.n), 0) {}

  // Starts a record; then item() for each item, then finish().
  void begin() {
    count_ = 0;
    bad_ = false;
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
           std::to_string(o_.base + o_.n - 1));
    else if (count_ == width_)
      fail("more than " + std::to_string(width_) + " items");
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
  void fail(std::string problem) {
    if (bad_) return;
    bad_ = true;
    problem_ = std::move(problem);
  }
  // Ends the record; `text()` renders it for a message, and a text record
  // names its line. Returns false to stop reading. Nothing is built for a
  // record that is right.
  template <class Text>
  bool finish(const Text& text, std::uint64_t line = 0) {
    ++number_;
    if (!bad_ && count_ == width_) {
      ++stats_.records;
      return ++batched_ < batch_records_ || flush();
    }
    if (!bad_) problem_ = "has " + std::to_string(count_) + " items, expected " + std::to_string(width_);
    std::string message = "record " + std::to_string(number_);
    if (line) message += " (line " + std::to_string(line) + ")";
    message += ": \"" + shown(text()) + "\": " + problem_;
    if (!o_.skip_invalid)
      throw UsageError(Param::skip_invalid,
                       token_safe(message) + "; fix the input or pass {skip_invalid} to count and skip such records");
    if (stats_.invalid++ == 0) stats_.first_invalid = message;
    return true;
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
  RecordStats stats() const { return stats_; }

 private:
  const RecordOptions& o_;
  const RecordBatch& each_;
  int width_;  // items a record: k for deals, n for permutations
  std::size_t batch_records_;
  std::vector<std::uint16_t> items_;  // the batch: batch_records_ records
  std::size_t batched_ = 0;           // records in it
  std::uint16_t* record_ = nullptr;   // the record being read
  std::vector<std::uint32_t> stamp_;
  std::uint32_t mark_ = 0;
  int count_ = 0;
  bool bad_ = false;     // the record is wrong; problem_ says why
  std::string problem_;
  std::uint64_t number_ = 0;
  RecordStats stats_;
};

bool separator(char c) { return c == ' ' || c == ',' || c == ';' || c == '\t'; }

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

// Text: lines in blocks; a line cut by the block's end waits for the next.
RecordStats read_text(const ByteSource& source, const RecordOptions& o, Records& records) {
  std::vector<char> buffer(std::max<std::size_t>(o.block_bytes, 64));
  std::size_t held = 0;  // bytes of an unfinished line at the buffer's start
  std::uint64_t line_number = 0;
  for (;;) {
    const std::size_t got = source(buffer.data() + held, buffer.size() - held);
    const std::size_t size = held + got;
    std::size_t start = 0;
    for (;;) {
      const void* nl = std::memchr(buffer.data() + start, '\n', size - start);
      if (!nl) break;
      const std::size_t stop = static_cast<std::size_t>(static_cast<const char*>(nl) - buffer.data());
      if (!text_line(std::string_view(buffer.data() + start, stop - start), ++line_number, records))
        return records.stats();
      start = stop + 1;
    }
    held = size - start;
    if (got == 0) {
      if (held) text_line(std::string_view(buffer.data() + start, held), ++line_number, records);
      return records.stats();
    }
    if (held == buffer.size())
      throw UsageError("line " + std::to_string(line_number + 1) + " is longer than " +
                       std::to_string(buffer.size()) + " bytes; is the input text with one record a line?");
    std::memmove(buffer.data(), buffer.data() + start, held);
  }
}

// Binary records of n items, `width` bytes each, little-endian; `limit`
// records at most (the .npy shape), or to the end.
struct Binary {
  int width;
  bool is_signed;
  std::optional<std::uint64_t> limit = std::nullopt;  // unset: to the end
};

std::int64_t item_at(const unsigned char* p, const Binary& b) {
  std::uint64_t v = 0;
  for (int i = b.width - 1; i >= 0; --i) v = v << 8 | p[i];
  if (b.is_signed && b.width < 8 && (v >> (8 * b.width - 1)) & 1) v |= ~std::uint64_t{0} << (8 * b.width);
  // Far out of range is out of range all the same: clamp, so that taking the
  // base off cannot overflow.
  constexpr std::int64_t kFar = std::int64_t{1} << 62;
  if (!b.is_signed) return v > static_cast<std::uint64_t>(kFar) ? kFar : static_cast<std::int64_t>(v);
  return std::clamp(static_cast<std::int64_t>(v), -kFar, kFar);
}

// Binary input a block of whole records at a time: `each(data, records)`
// sees them in order and returns false to stop. A record cut by the block's
// end waits for the next; one cut by the input's end is an error.
template <class Each>
void for_each_binary_block(const ByteSource& source, const RecordOptions& o, const Binary& b,
                           std::size_t record_bytes, const Records& records, Each&& each) {
  const std::size_t per_block = std::max<std::size_t>(1, o.block_bytes / record_bytes);
  std::vector<unsigned char> buffer(per_block * record_bytes);
  std::size_t held = 0;  // bytes of an unfinished record at the buffer's start
  std::uint64_t left = b.limit.value_or(~std::uint64_t{0});
  while (left > 0) {
    const std::size_t room =
        static_cast<std::size_t>(std::min<std::uint64_t>(per_block, left)) * record_bytes - held;
    const std::size_t got = source(reinterpret_cast<char*>(buffer.data()) + held, room);
    const std::size_t size = held + got;
    const std::size_t whole = size / record_bytes;
    if (!each(buffer.data(), whole)) return;
    left -= whole;
    held = size - whole * record_bytes;
    if (got == 0) break;
    std::memmove(buffer.data(), buffer.data() + whole * record_bytes, held);
  }
  if (held)
    throw UsageError(Param::n, "the input ends inside record " + std::to_string(records.number() + 1) + ": " +
                                   std::to_string(held) + " of its " + std::to_string(record_bytes) +
                                   " bytes; is {n} right?");
  if (!b.limit) return;
  if (left != 0)
    throw UsageError("the .npy data ends after " + std::to_string(*b.limit - left) + " of its " +
                     std::to_string(*b.limit) + " records");
  // What follows the declared records is no record of them: refused, not
  // passed over (a file written in two goes, a header that lies).
  char extra = 0;
  if (held == 0 && source(&extra, 1) != 0)
    throw UsageError("the .npy file has data after the " + std::to_string(*b.limit) +
                     " records its shape declares; save the whole array with numpy.save");
}

// One binary record through the checks of Records; false to stop reading.
bool binary_record(const unsigned char* rec, int items, const Binary& b, Records& records) {
  records.begin();
  for (int i = 0; i < items; ++i) records.item(item_at(rec + static_cast<std::size_t>(i) * b.width, b));
  const auto text = [&, rec] {
    std::string t;
    for (int i = 0; i < items && t.size() <= kShownChars; ++i) {
      if (i) t.push_back(' ');
      t.append(std::to_string(item_at(rec + static_cast<std::size_t>(i) * b.width, b)));
    }
    return t;
  };
  return records.finish(text);
}

RecordStats read_binary(const ByteSource& source, const RecordOptions& o, const Binary& b, Records& records) {
  const int items = o.k > 0 ? o.k : o.n;  // a record's
  const std::size_t record_bytes = static_cast<std::size_t>(items) * static_cast<std::size_t>(b.width);
  for_each_binary_block(source, o, b, record_bytes, records, [&](const unsigned char* data, std::size_t whole) {
    for (std::size_t r = 0; r < whole; ++r)
      if (!binary_record(data + r * record_bytes, items, b, records)) return false;
    return true;
  });
  return records.stats();
}

// Exactly `size` bytes, or fewer at the end.
std::size_t read_exact(const ByteSource& source, char* out, std::size_t size) {
  std::size_t done = 0;
  while (done < size) {
    const std::size_t got = source(out + done, size - done);
    if (got == 0) break;
    done += got;
  }
  return done;
}

// A .npy file's header (npy.hpp), as the binary records it describes.
Binary read_npy_records(const ByteSource& source, const RecordOptions& o) {
  const NpyArray a = read_npy_header([&](char* out, std::size_t size) { return read_exact(source, out, size); });
  const int items = o.k > 0 ? o.k : o.n;
  if (a.cols != static_cast<std::uint64_t>(items))
    throw UsageError(o.k > 0 ? Param::k : Param::n, "the .npy records have " + std::to_string(a.cols) +
                                                        " items, but " + (o.k > 0 ? "{k} is " : "{n} is ") +
                                                        std::to_string(items));
  Binary b{a.dtype.bytes, a.dtype.is_signed};
  b.limit = a.rows;
  return b;
}

void check_options(const RecordOptions& options) {
  if (options.n < 1 || options.n > 65536) throw UsageError(Param::n, "{n} must be between 1 and 65536");
  if (options.base != 0 && options.base != 1) throw UsageError(Param::base, "{base} must be 0 or 1");
  if (options.k < 0 || options.k > options.n)
    throw UsageError(Param::k, "deals of {k} of the {n} items need 1 <= k <= n, got k = " + std::to_string(options.k));
  if (options.format == RecordFormat::u8 && options.n > 256)
    throw UsageError("u8 records hold items up to 255: use u16 for n = " + std::to_string(options.n));
}

RecordStats checked_stats(const RecordStats& stats) {
  if (stats.records == 0)
    throw UsageError(stats.invalid ? "no valid record in the input (" + std::to_string(stats.invalid) +
                                         " skipped; the first: " + stats.first_invalid + ")"
                                   : std::string("the input holds no records"));
  return stats;
}

// Every record through Records to `each`; `npy` is the header when the
// caller has read it already.
RecordStats read_all(const ByteSource& source, const RecordOptions& options, const RecordBatch& each,
                     std::optional<Binary> npy) {
  Records records(options, each);
  RecordStats stats;
  switch (options.format) {
    case RecordFormat::text: stats = read_text(source, options, records); break;
    case RecordFormat::u8:
    case RecordFormat::u16:
      stats = read_binary(source, options, Binary{record_format_row(options.format).item_bytes, false}, records);
      break;
    case RecordFormat::npy:
      stats = read_binary(source, options, npy ? *npy : read_npy_records(source, options), records);
      break;
  }
  records.flush();
  return checked_stats(stats);
}

// Small permutations in binary records are checked and ranked at once: each
// item takes 3 bits of a key, and a table over every key holds the Lehmer
// rank of the permutations and kNotAPermutation for everything else. A key
// of n <= 6 items is 18 bits, a 512 KB table at most, built in microseconds.
constexpr int kMaxTableItems = 6;
constexpr std::uint16_t kNotAPermutation = 0xFFFF;

std::vector<std::uint16_t> permutation_table(int n) {
  std::vector<std::uint16_t> table(std::size_t{1} << (3 * n), kNotAPermutation);
  for (std::uint64_t r = 0; r < factorial(n); ++r) {
    const std::vector<int> p = lehmer_unrank(r, n);
    std::size_t key = 0;
    for (int i = 0; i < n; ++i) key |= static_cast<std::size_t>(p[i]) << (3 * i);
    table[key] = static_cast<std::uint16_t>(r);
  }
  return table;
}

// A block of records of N items, W bytes each, little-endian, with the
// base taken off; a record the table rejects goes through Records, which
// says what is wrong with it. Ranks are handed on in batches through
// `ranks`. False once `each` asks to stop.
template <int N, int W>
bool rank_block(const unsigned char* data, std::size_t whole, const Binary& b, int base,
                const std::uint16_t* table, std::vector<std::uint64_t>& ranks, std::size_t& held,
                Records& records, const RankBatch& each) {
  constexpr std::size_t kRecordBytes = static_cast<std::size_t>(N) * W;
  std::uint64_t valid = 0;  // right records since Records last counted
  const auto hand_on = [&] {
    records.counted(valid);
    valid = 0;
    const std::size_t count = held;
    held = 0;
    return each(ranks.data(), count);
  };
  for (std::size_t r = 0; r < whole; ++r) {
    const unsigned char* rec = data + r * kRecordBytes;
    std::uint32_t key = 0, high = 0;
    for (int i = 0; i < N; ++i) {
      std::uint32_t v = rec[i * W];
      if constexpr (W == 2) v |= static_cast<std::uint32_t>(rec[i * W + 1]) << 8;
      v -= static_cast<std::uint32_t>(base);  // 0 - 1 wraps high: out of range
      high |= v;
      key |= (v & 7u) << (3 * i);
    }
    const std::uint16_t rank = (high >> 3) == 0 ? table[key] : kNotAPermutation;
    if (rank != kNotAPermutation) [[likely]] {
      ranks[held++] = rank;
      ++valid;
      if (held == ranks.size() && !hand_on()) return false;
      continue;
    }
    records.counted(valid);
    valid = 0;
    if (!binary_record(rec, N, b, records)) return false;
  }
  return held == 0 || hand_on();
}

template <int N, int W>
RecordStats rank_table_records(const ByteSource& source, const RecordOptions& o, const Binary& b,
                               const RankBatch& each) {
  const std::vector<std::uint16_t> table = permutation_table(N);
  const RecordBatch none = [](const std::uint16_t*, std::size_t) { return true; };  // Records never batches here
  Records records(o, none);
  std::vector<std::uint64_t> ranks(kBatchItems);
  std::size_t held = 0;
  for_each_binary_block(source, o, b, static_cast<std::size_t>(N) * W, records, [&](const unsigned char* data, std::size_t whole) {
    return rank_block<N, W>(data, whole, b, o.base, table.data(), ranks, held, records, each);
  });
  return records.stats();
}

RecordStats read_ranked_table(const ByteSource& source, const RecordOptions& o, const Binary& b,
                              const RankBatch& each) {
  const auto by_width = [&]<int N>() {
    return b.width == 1 ? rank_table_records<N, 1>(source, o, b, each) : rank_table_records<N, 2>(source, o, b, each);
  };
  switch (o.n) {
    case 1: return by_width.template operator()<1>();
    case 2: return by_width.template operator()<2>();
    case 3: return by_width.template operator()<3>();
    case 4: return by_width.template operator()<4>();
    case 5: return by_width.template operator()<5>();
    default: return by_width.template operator()<6>();
  }
}

}  // namespace

std::string_view record_format_name(RecordFormat f) { return record_format_row(f).name; }

std::optional<RecordFormat> parse_record_format(std::string_view name) {
  for (const RecordFormatRow& row : kRecordFormats)
    if (row.name == name) return row.format;
  return std::nullopt;
}

std::string record_format_names(std::string_view sep) {
  return internal::join_names(kRecordFormats, [](const RecordFormatRow& row) { return std::string(row.name); }, sep);
}

RecordFormat record_format_for_path(std::string_view path) {
  for (const RecordFormatRow& row : kRecordFormats)
    if (!row.ending.empty() && path.size() >= row.ending.size() &&
        path.substr(path.size() - row.ending.size()) == row.ending)
      return row.format;
  return RecordFormat::text;
}

RecordStats read_records(const ByteSource& source, const RecordOptions& options, const RecordBatch& each) {
  check_options(options);
  return read_all(source, options, each, std::nullopt);
}

RecordStats read_record_ranks(const ByteSource& source, const RecordOptions& options, const RankBatch& each) {
  check_options(options);
  if (options.k != 0 && options.k != options.n)
    throw UsageError("record ranks are for whole permutations; read deals with read_records");
  if (options.n > kMaxRankItems)
    throw UsageError(Param::n, "{n} = " + std::to_string(options.n) + " has more orders than 64-bit ranks hold (n <= " +
                                   std::to_string(kMaxRankItems) + ")");
  std::optional<Binary> npy;
  if (options.format == RecordFormat::npy) npy = read_npy_records(source, options);
  if (options.n <= kMaxTableItems && options.format != RecordFormat::text) {
    const Binary b = npy ? *npy : Binary{record_format_row(options.format).item_bytes, false};
    if (!b.is_signed) return checked_stats(read_ranked_table(source, options, b, each));
  }
  // Anything else: checked as read_records does, then ranked one at a time.
  std::vector<std::uint64_t> ranks;
  const int n = options.n;
  const RecordBatch rank_each = [&](const std::uint16_t* items, std::size_t batch) {
    ranks.resize(batch);
    for (std::size_t r = 0; r < batch; ++r) ranks[r] = lehmer_rank(items + r * static_cast<std::size_t>(n), n);
    return each(ranks.data(), batch);
  };
  return read_all(source, options, rank_each, npy);
}

RecordStats read_record_array(const RecordArray& array, const RecordOptions& options, const RecordBatch& each) {
  check_options(options);
  const int items = options.k > 0 ? options.k : options.n;
  if (array.items != items)
    throw UsageError(options.k > 0 ? Param::k : Param::n,
                     "records have " + std::to_string(array.items) + " items a row, but " +
                         (options.k > 0 ? "{k} is " : "{n} is ") + std::to_string(items));
  const int w = array.item_bytes;
  if (w != 1 && w != 2 && w != 4 && w != 8)
    throw UsageError("record items are 1, 2, 4 or 8 bytes wide, not " + std::to_string(w));
  // The array as bytes in order: the binary reader's checks, without a
  // file's framing.
  const auto* at = static_cast<const char*>(array.data);
  std::uint64_t left = array.rows * static_cast<std::uint64_t>(items) * static_cast<std::uint64_t>(w);
  const ByteSource bytes = [&](char* buffer, std::size_t capacity) {
    const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(capacity, left));
    std::memcpy(buffer, at, take);
    at += take;
    left -= take;
    return take;
  };
  RecordOptions o = options;
  o.format = RecordFormat::npy;
  return read_all(bytes, o, each, Binary{w, array.is_signed, array.rows});
}

ByteSource stream_source(std::istream& in) {
  return [&in](char* buffer, std::size_t capacity) -> std::size_t {
    in.read(buffer, static_cast<std::streamsize>(capacity));
    if (in.bad()) throw Error("reading the input failed");
    return static_cast<std::size_t>(in.gcount());
  };
}

RecordStats read_records(std::istream& in, const RecordOptions& options, const RecordBatch& each) {
  return read_records(stream_source(in), options, each);
}

RecordStats read_record_ranks(std::istream& in, const RecordOptions& options, const RankBatch& each) {
  return read_record_ranks(stream_source(in), options, each);
}

}  // namespace melange
