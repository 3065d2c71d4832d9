// A double as text, the same in every locale: printf follows LC_NUMERIC,
// so a caller whose program set a decimal-comma locale (Python's
// locale.setlocale) would read "0,5" in melange's words and documents.
// std::to_chars writes what printf writes in the C locale.
#pragma once

#include <array>
#include <charconv>
#include <string>

namespace melange {

// As printf's "%.*f" (std::chars_format::fixed) or "%.*g" (general) in the
// C locale.
inline std::string number_text(double v, std::chars_format format, int precision) {
  std::array<char, 512> text{};
  const auto [end, error] = std::to_chars(text.data(), text.data() + text.size(), v, format, precision);
  return error == std::errc{} ? std::string(text.data(), end) : std::string("?");
}

}  // namespace melange
