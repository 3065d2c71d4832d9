// libFuzzer target for the record readers (melange audit --input): any bytes,
// in any format, must end in records or a UsageError, never a crash, a leak,
// undefined behaviour or a hang. The first two bytes choose the format, n and
// the base; the rest is the input. Bit 6 of the first byte also reads the
// input through read_record_ranks, which must give the same records, in the
// same order, with the same stats or the same error, as ranking read_records'
// output one record at a time (its table path is for binary n <= 6).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "melange/error.hpp"
#include "melange/rank.hpp"
#include "melange/records.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  melange::RecordOptions o;
  o.format = static_cast<melange::RecordFormat>(data[0] % 4);
  o.n = 1 + data[1] % 12;
  o.base = (data[0] >> 2) & 1;
  o.skip_invalid = (data[0] >> 3) & 1;
  o.block_bytes = 64 + ((data[0] >> 4) & 3) * 100;  // small blocks: many boundaries
  const std::string input(reinterpret_cast<const char*>(data) + 2, size - 2);
  std::vector<std::uint64_t> ranks;  // of the records read_records hands on
  std::string error;
  std::istringstream in(input);
  std::uint64_t sum = 0;
  melange::RecordStats stats;
  try {
    stats = melange::read_records(in, o, [&](const std::uint16_t* items, std::size_t records) {
      for (std::size_t i = 0; i < records * static_cast<std::size_t>(o.n); ++i) {
        if (items[i] >= o.n) __builtin_trap();  // a record handed on is a permutation of 0..n-1
        sum += items[i];
      }
      for (std::size_t r = 0; r < records; ++r) ranks.push_back(melange::lehmer_rank(items + r * o.n, o.n));
      return true;
    });
    if (sum != stats.records * static_cast<std::uint64_t>(o.n) * static_cast<std::uint64_t>(o.n - 1) / 2)
      __builtin_trap();
  } catch (const melange::UsageError& e) {
    error = e.what();
  }
  if (!((data[0] >> 6) & 1)) return 0;
  std::istringstream again(input);
  std::vector<std::uint64_t> ranked;
  try {
    const auto ranked_stats = melange::read_record_ranks(again, o, [&](const std::uint64_t* r, std::size_t records) {
      ranked.insert(ranked.end(), r, r + records);
      return true;
    });
    if (!error.empty() || ranked_stats.records != stats.records || ranked_stats.invalid != stats.invalid ||
        ranked_stats.first_invalid != stats.first_invalid)
      __builtin_trap();
  } catch (const melange::UsageError& e) {
    if (error != e.what()) __builtin_trap();
    ranked.resize(std::min(ranked.size(), ranks.size()));  // both stop at the same record
    ranks.resize(ranked.size());
  }
  if (ranked != ranks) __builtin_trap();
  return 0;
}
