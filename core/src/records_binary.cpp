// Binary records (contract §4): u8, u16 and .npy arrays, read a
// block of whole records at a time; small permutations checked and ranked
// by a table lookup.
#include <cstring>

#include "melange/npy.hpp"
#include "melange/packed_items.hpp"
#include "melange/rank.hpp"
#include "records_reader.hpp"

namespace melange::internal {
namespace {


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

}  // namespace

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

namespace {

// Small permutations in binary records are checked and ranked at once: each
// item takes 3 bits of a key, and a table over every key holds the Lehmer
// rank of the permutations and kNotAPermutation for everything else. A key
// of n <= 6 items is 18 bits, a 512 KB table at most, built in microseconds.
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

}  // namespace

RecordStats read_ranked_table(const ByteSource& source, const RecordOptions& o, const Binary& b,
                              const RankBatch& each) {
  const auto by_width = [&]<int N>() {
    return b.width == 1 ? rank_table_records<N, 1>(source, o, b, each) : rank_table_records<N, 2>(source, o, b, each);
  };
  RecordStats stats;
  if (!with_count_in<1, kMaxTableItems>(o.n, [&](auto n) { stats = by_width.template operator()<n()>(); }))
    throw Error("internal: a rank table for n = " + std::to_string(o.n));
  return stats;
}
}  // namespace melange::internal
