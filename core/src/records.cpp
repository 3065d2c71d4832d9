#include "melange/records.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "melange/error.hpp"
#include "melange/internal/join_names.hpp"
#include "melange/rank.hpp"
#include "records_reader.hpp"

namespace melange {
namespace {

using internal::Binary;
using internal::Records;
using internal::kMaxTableItems;
using internal::read_binary;
using internal::read_npy_records;
using internal::read_ranked_table;
using internal::read_text;

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
  return options.piece ? stats : checked_stats(stats);
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
  // (A resumed read passes over its first records one by one, in Records.)
  if (options.n <= kMaxTableItems && options.format != RecordFormat::text && options.pass_over == 0) {
    const Binary b = npy ? *npy : Binary{record_format_row(options.format).item_bytes, false};
    if (!b.is_signed) {
      const RecordStats stats = read_ranked_table(source, options, b, each);
      return options.piece ? stats : checked_stats(stats);
    }
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