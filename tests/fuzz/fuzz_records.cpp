// libFuzzer target for the record readers (melange audit --input): any bytes,
// in any format, must end in records or a UsageError, never a crash, a leak,
// undefined behaviour or a hang. The first two bytes choose the format, n and
// the base; the rest is the input.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "melange/error.hpp"
#include "melange/records.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  melange::RecordOptions o;
  o.format = static_cast<melange::RecordFormat>(data[0] % 4);
  o.n = 1 + data[1] % 12;
  o.base = (data[0] >> 2) & 1;
  o.skip_invalid = (data[0] >> 3) & 1;
  o.block_bytes = 64 + ((data[0] >> 4) & 3) * 100;  // small blocks: many boundaries
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 2, size - 2));
  std::uint64_t sum = 0;
  try {
    const auto stats = melange::read_records(in, o, [&](const std::uint16_t* items, std::size_t records) {
      for (std::size_t i = 0; i < records * static_cast<std::size_t>(o.n); ++i) {
        if (items[i] >= o.n) __builtin_trap();  // a record handed on is a permutation of 0..n-1
        sum += items[i];
      }
      return true;
    });
    if (sum != stats.records * static_cast<std::uint64_t>(o.n) * static_cast<std::uint64_t>(o.n - 1) / 2)
      __builtin_trap();
  } catch (const melange::UsageError&) {
  }
  return 0;
}
