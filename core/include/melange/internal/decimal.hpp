// Whole numbers read back from text that melange wrote (checkpoint headers,
// 64-bit JSON fields written as strings): one rule for what counts.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace melange::internal {

// A number written in decimal digits alone (no sign, space, fraction or
// exponent) and at most `max`; nullopt for anything else.
inline std::optional<std::uint64_t> parse_decimal(std::string_view text, std::uint64_t max) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v > max) return std::nullopt;
  return v;
}

}  // namespace melange::internal
