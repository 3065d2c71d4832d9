#include "parse.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "melange/error.hpp"

namespace melange::cli {
namespace {

[[noreturn]] void bad(const std::string& flag, const std::string& text, const std::string& what) {
  throw UsageError(flag + " expects " + what + ", got '" + text + "'");
}

std::uint64_t parse_whole(const std::string& text, const std::string& flag, int base) {
  std::uint64_t v = 0;
  const char* b = text.data() + (base == 16 ? 2 : 0);
  const char* e = text.data() + text.size();
  auto [p, ec] = std::from_chars(b, e, v, base);
  if (ec == std::errc::result_out_of_range) bad(flag, text, "a value below 2^64");
  if (ec != std::errc() || p != e || b == e) bad(flag, text, "a non-negative integer");
  return v;
}

}  // namespace

std::uint64_t parse_count(const std::string& text, const std::string& flag, std::uint64_t max) {
  const std::string what = "a non-negative whole number such as 1000000 or 1e6";
  if (text.empty() || text[0] == '-' || text[0] == '+') bad(flag, text, what);
  std::uint64_t v;
  if (text.find_first_of("eE.") == std::string::npos) {
    v = parse_whole(text, flag, 10);
  } else {
    // Scientific notation must name an exact integer: 1e6, 2.5e6, not 1.5.
    long double x = 0;
    std::size_t used = 0;
    try {
      x = std::stold(text, &used);
    } catch (...) {
      bad(flag, text, what);
    }
    if (used != text.size() || !std::isfinite(x) || x < 0 || x != std::floor(x))
      bad(flag, text, what);
    if (x >= 18446744073709551616.0L) bad(flag, text, "a value below 2^64");
    v = static_cast<std::uint64_t>(x);
  }
  if (v > max)
    throw UsageError(flag + " must be at most " + std::to_string(max) + ", got " + text);
  return v;
}

std::uint64_t parse_bytes(const std::string& text, const std::string& flag) {
  std::string number = text;
  for (const char* unit : {"iB", "ib", "B", "b"})
    if (number.size() > 1 + std::char_traits<char>::length(unit) &&
        number.ends_with(unit) && std::isalpha(static_cast<unsigned char>(number[number.size() - std::char_traits<char>::length(unit) - 1]))) {
      number.resize(number.size() - std::char_traits<char>::length(unit));
      break;
    }
  int shift = 0;
  if (!number.empty()) {
    switch (number.back()) {
      case 'k': case 'K': shift = 10; break;
      case 'm': case 'M': shift = 20; break;
      case 'g': case 'G': shift = 30; break;
      case 't': case 'T': shift = 40; break;
      default: break;
    }
  }
  if (shift == 0) {
    if (!number.empty() && std::isalpha(static_cast<unsigned char>(number.back())) && number.back() != 'e' &&
        number.back() != 'E')
      bad(flag, text, "a number of bytes such as 2G, 512M or 1000000");
    return parse_count(text, flag, ~std::uint64_t{0});
  }
  number.pop_back();
  long double x = 0;
  std::size_t used = 0;
  try {
    x = std::stold(number, &used);
  } catch (...) {
    bad(flag, text, "a number of bytes such as 2G, 512M or 1000000");
  }
  if (number.empty() || number[0] == '-' || number[0] == '+' || used != number.size() || !std::isfinite(x) || x < 0)
    bad(flag, text, "a number of bytes such as 2G, 512M or 1000000");
  const long double bytes = std::floor(std::ldexp(x, shift));
  if (bytes >= 18446744073709551616.0L) bad(flag, text, "a size below 16E (2^64 bytes)");
  return static_cast<std::uint64_t>(bytes);
}

std::uint64_t parse_seed(const std::string& text, const std::string& flag) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    return parse_whole(text, flag, 16);
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0])))
    bad(flag, text, "an unsigned 64-bit integer (decimal or 0x hex)");
  return parse_whole(text, flag, 10);
}

std::uint64_t parse_index(const std::string& text, const std::string& flag) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (!hex && text.find_first_of("eE.") != std::string::npos)
    return parse_count(text, flag, std::numeric_limits<std::uint64_t>::max());
  return parse_seed(text, flag);
}

}  // namespace melange::cli
