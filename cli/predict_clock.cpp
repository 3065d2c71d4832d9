#include "predict_clock.hpp"

#include <cstdio>
#include <ctime>

#include "melange/error.hpp"
#include "melange/predict/families.hpp"
#include "parse.hpp"

namespace melange::cli {
namespace {

using predict::kSecondsADay;

// Seconds since 1970 of a UTC date, or of a Unix time written as a number.
std::uint64_t unix_seconds(const std::string& text) {
  if (text.find('-') == std::string::npos) return parse_seed(text, "--clock");
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  char sep = 0, end = 0;
  const int got = std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%c", &year, &month, &day, &sep, &hour, &minute,
                              &second, &end);
  const bool date_only = got == 3, date_time = got == 7 && (sep == 'T' || sep == ' ');
  if ((!date_only && !date_time) || year < 1970 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 ||
      minute > 59 || second > 60)
    throw UsageError("--clock takes FROM..TO as Unix seconds or UTC dates (2024-12-04 or 2024-12-04T13:20:00), got '" +
                     text + "'");
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<std::uint64_t>(timegm(&tm));
}

std::string unit_name(const Clock& clock) {
  return clock.per_second == 1 ? "seconds" : clock.per_second == 1000 ? "milliseconds" : "microseconds";
}

}  // namespace

std::uint64_t clock_ticks_per_second(const std::string& unit) {
  if (unit == "s") return 1;
  if (unit == "ms") return 1000;
  if (unit == "us") return 1'000'000;
  throw UsageError("--clock-unit takes s, ms or us, got '" + unit + "'");
}

predict::SeedRange clock_seeds(const std::string& text, const Clock& clock) {
  const auto dots = text.find("..");
  if (dots == std::string::npos) throw UsageError("--clock takes FROM..TO, such as --clock 2024-12-04..2024-12-05");
  const std::uint64_t from = unix_seconds(text.substr(0, dots)), to = unix_seconds(text.substr(dots + 2));
  if (to < from) throw UsageError("--clock " + text + " ends before it starts: give FROM..TO with FROM <= TO");
  if (to > UINT64_MAX / clock.per_second) throw UsageError("--clock " + text + " is past the 64-bit seeds in that unit");
  return {from * clock.per_second, to * clock.per_second};
}

predict::SeedRange since_midnight_seeds(const Clock& clock) { return {0, kSecondsADay * clock.per_second - 1}; }

std::string clock_time(std::uint64_t seed, const Clock& clock) {
  const std::uint64_t seconds = seed / clock.per_second, fraction = seed % clock.per_second;
  char text[64];
  if (clock.since_midnight) {
    if (seconds >= kSecondsADay) return "past a day";
    std::snprintf(text, sizeof text, "%02u:%02u:%02u", static_cast<unsigned>(seconds / 3600),
                  static_cast<unsigned>(seconds / 60 % 60), static_cast<unsigned>(seconds % 60));
  } else {
    const auto t = static_cast<std::time_t>(seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  }
  std::string out = text;
  if (clock.per_second > 1) {
    const int digits = clock.per_second == 1000 ? 3 : 6;
    std::snprintf(text, sizeof text, ".%0*llu", digits, static_cast<unsigned long long>(fraction));
    out += text;
  }
  return out;
}

std::string clock_text(std::uint64_t seed, const Clock& clock) {
  return clock_time(seed, clock) + (clock.since_midnight ? " after midnight" : " UTC") + " as " + unit_name(clock);
}

}  // namespace melange::cli
