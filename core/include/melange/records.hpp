// Permutations and deals written by other programs (contract §4): text lines,
// fixed-size u8 or u16 records, or a NumPy .npy array, read in blocks of a
// fixed size so that memory does not grow with the input, and checked record
// by record.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "melange/limits.hpp"

namespace melange {

enum class RecordFormat : std::uint8_t { text, u8, u16, npy };

// Each format once: its name, the file ending that implies it, and the
// width of its items where the format fixes it (0: text, or a .npy header's).
struct RecordFormatRow {
  RecordFormat format;
  std::string_view name;
  std::string_view ending;  // "" for text, the default
  int item_bytes;
};
inline constexpr RecordFormatRow kRecordFormats[] = {
    {RecordFormat::text, "text", "", 0},
    {RecordFormat::u8, "u8", ".u8", 1},
    {RecordFormat::u16, "u16", ".u16", 2},
    {RecordFormat::npy, "npy", ".npy", 0},
};
constexpr const RecordFormatRow& record_format_row(RecordFormat f) { return kRecordFormats[static_cast<int>(f)]; }
static_assert([] {
  for (std::size_t i = 0; i < std::size(kRecordFormats); ++i)
    if (static_cast<std::size_t>(kRecordFormats[i].format) != i) return false;
  return true;
}(), "kRecordFormats holds each RecordFormat once, in the enum's order");

std::string_view record_format_name(RecordFormat f);
std::optional<RecordFormat> parse_record_format(std::string_view name);
// "text, u8, u16, npy", joined by `sep`.
std::string record_format_names(std::string_view sep);
// The format a file's name implies by its ending (.npy, .u8, .u16), else text.
RecordFormat record_format_for_path(std::string_view path);

struct RecordOptions {
  int n = 0;                                // items 0..n-1
  int k = 0;                                // items per record: a deal of k (0: n, a permutation)
  RecordFormat format = RecordFormat::text;
  int base = 0;                             // text integers: 0- or 1-based
  bool skip_invalid = false;                // count and skip wrong records instead of stopping
  // With skip_invalid: a larger share of wrong records is an error (1: skip any number).
  double max_invalid_share = kMaxInvalidShare;
  bool header = false;                      // text: the first line that is not blank or a comment names columns
  // Text: item i is written labels[i] ("Kh", "2c"), not as a number; empty: numbers or letters.
  std::vector<std::string> labels{};
  // More ways to write the labels, each read as its item (cards:
  // card_spellings), and what a token that is none of them is told in
  // place of {skip_invalid} (kCardSpellingWords).
  std::vector<std::pair<std::string, int>> label_spellings{};
  std::string label_words{};
  std::size_t block_bytes = std::size_t{1} << 20;
  // Right records a read before this one counted: read past, neither
  // handed on nor counted, so that a read resumed from a checkpoint goes
  // on where it stopped and numbers records as it did (the wrong ones
  // among them are counted again: a checkpoint keeps no count of a partly
  // read input's).
  std::uint64_t pass_over = 0;
  // One piece of a larger input (the rest of a resumed read, an MPI rank's
  // byte range): it may hold no records at all.
  bool piece = false;
};

// What the first lines of a text input say about its records, so that a
// caller can infer what was not given and advise on what was given wrong.
// Items are read as the text reader reads them (brackets and quotes around
// them are separators: Python's [1, 3, 0, 2] and quoted CSV fields work).
struct TextSniff {
  int items = 0;           // items in the first record; 0: no record among the lines seen
  bool letters = false;    // the first record is letters A..
  bool one_based = false;  // numbers 1..items, none 0: a permutation written 1-based
  std::uint64_t largest = 0;  // the first record's largest number
  int tokens = 0;          // tokens of the first line that is not blank or a comment, whatever they are
  bool binary = false;     // control bytes are more than a tenth of the head: not text at all
  bool header = false;     // the first line that is not blank or a comment is not a record, and the next is
  std::string first;       // the first line that is not blank or a comment (cut at 80 characters)
};
// `head`: the input's first bytes; only its whole lines are read.
TextSniff sniff_text(std::string_view head);

struct RecordStats {
  std::uint64_t records = 0;  // valid records handed on
  std::uint64_t invalid = 0;  // wrong records skipped (skip_invalid)
  std::string first_invalid;  // what was wrong with the first of them
};

// Where the bytes come from: fills up to `capacity` bytes and returns how
// many, 0 at the end. It may return fewer than asked (a pipe gives what it
// has), so that a slow stream's records are counted as they arrive.
using ByteSource = std::function<std::size_t(char* buffer, std::size_t capacity)>;

// Valid records, handed on in batches: `records` records of k items each
// (n for permutations), back to back, 0-based (item at position p of record
// r in items[r k + p]).
// Return false to stop reading.
using RecordBatch = std::function<bool(const std::uint16_t* items, std::size_t records)>;

// Records that lie in memory: `rows` records of `items` integers each, in C
// order, `item_bytes` (1, 2, 4 or 8) wide, little-endian, signed or not.
struct RecordArray {
  const void* data = nullptr;
  std::uint64_t rows = 0;
  int items = 0;
  int item_bytes = 1;
  bool is_signed = false;
};

// Reads `source` to its end and hands every valid record to `each`, a batch
// at a time. A wrong record (its length,
// an item out of range or repeated, a token that is not an item) throws
// UsageError naming the record, its text (cut at 80 characters) and what is
// wrong, unless skip_invalid; so do an input with no records, a binary input
// that ends inside a record and a malformed .npy header.
RecordStats read_records(const ByteSource& source, const RecordOptions& options, const RecordBatch& each);

// The Lehmer ranks (rank.hpp) of the valid records of whole permutations,
// n <= 20, in batches: for a tally that needs nothing else. Binary records
// of n <= 6 items are checked and ranked at once by a table lookup, which
// reads u8 input at the speed of memory; other input is checked as by
// read_records and ranked a record at a time. Errors, skipping and the
// stats are those of read_records.
using RankBatch = std::function<bool(const std::uint64_t* ranks, std::size_t records)>;
RecordStats read_record_ranks(const ByteSource& source, const RecordOptions& options, const RankBatch& each);

// The records of an array in memory, through the same checks as a file's
// (options.format is not read); a record must have k items (n for
// permutations).
RecordStats read_record_array(const RecordArray& array, const RecordOptions& options, const RecordBatch& each);

// The same from a stream (which fills each block before it returns).
ByteSource stream_source(std::istream& in);
RecordStats read_records(std::istream& in, const RecordOptions& options, const RecordBatch& each);
RecordStats read_record_ranks(std::istream& in, const RecordOptions& options, const RankBatch& each);

}  // namespace melange
