// Numbers as people read them in messages and reports: a count as
// 1,000,000, a measured value to a few significant digits.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace melange::internal {

inline std::string grouped_digits(std::uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// "0.0123", "6.7e-08": printf's %g at `digits` significant digits.
inline std::string general_text(double x, int digits = 3) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", digits, x);
  return text;
}

}  // namespace melange::internal
