#include "melange/report/format.hpp"

#include <cmath>
#include <cstdio>

#include "melange/internal/grouped_digits.hpp"
#include "melange/number_text.hpp"

namespace melange::report {

std::string fixed(double v, int decimals) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return number_text(v, std::chars_format::fixed, decimals);
}

std::string general(double v, int digits) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return number_text(v, std::chars_format::general, digits);
}

std::string grouped(std::uint64_t v) { return internal::grouped_digits(v); }

std::string p_text(double p, double log10_p, int digits) {
  if (p > 0 || std::isinf(log10_p) || std::isnan(log10_p)) return general(p, digits);
  // Below the smallest double: mantissa and exponent from log10 p, as
  // 3.2e-1270 (not 1e-1269.5).
  double exponent = std::floor(log10_p);
  double mantissa = std::pow(10.0, log10_p - exponent);
  const double scale = std::pow(10.0, digits - 1);
  mantissa = std::round(mantissa * scale) / scale;
  if (mantissa >= 10) {
    mantissa /= 10;
    exponent += 1;
  }
  return general(mantissa, digits) + "e" + std::to_string(static_cast<long long>(exponent));
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string backend_text(const std::string& backend, const std::string& arch) {
  return arch.empty() ? backend : backend + " (" + arch + ")";
}

}  // namespace melange::report
