// Seeds taken from a clock, for `melange predict --clock` and
// `--since-midnight`: the times a dealer may have read, in the clock's unit,
// and a seed written back as the time it stands for.
#pragma once

#include <cstdint>
#include <string>

#include "melange/predict/search.hpp"

namespace melange::cli {

struct Clock {
  std::uint64_t per_second = 1;  // --clock-unit: s 1, ms 1000, us 1000000
  bool since_midnight = false;   // seeds count from midnight, not from 1970
};

// "s", "ms" or "us"; throws UsageError naming --clock-unit otherwise.
std::uint64_t clock_ticks_per_second(const std::string& unit);

// --clock FROM..TO: each a Unix time in seconds or a UTC date
// (2024-12-04, 2024-12-04T13:20:00); the seeds are every tick from FROM to
// TO, both included.
predict::SeedRange clock_seeds(const std::string& text, const Clock& clock);

// A day's ticks from midnight: 0 .. 86400 * per_second - 1.
predict::SeedRange since_midnight_seeds(const Clock& clock);

// "2024-12-04 13:20:00.123 UTC as milliseconds", "13:20:00.123 after
// midnight as milliseconds"; clock_time is the time alone ("13:20:00.123").
std::string clock_text(std::uint64_t seed, const Clock& clock);
std::string clock_time(std::uint64_t seed, const Clock& clock);

}  // namespace melange::cli
