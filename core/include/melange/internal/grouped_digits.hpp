// A count as people read it in messages and reports: 1,000,000.
#pragma once

#include <cstdint>
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

}  // namespace melange::internal
