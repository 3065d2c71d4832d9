// Small number formatting helpers for the text reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace melange::report {

std::string fixed(double v, int decimals);     // 125397.21
std::string general(double v, int digits = 4); // 4.2e-30, 0.3505
std::string grouped(std::uint64_t v);          // 1,000,000
// A p-value that stays readable when it underflows: "3.1e-12" or "5.095e-33097"
// (the mantissa and exponent from log10 p).
std::string p_text(double p, double log10_p, int digits = 4);
std::string pad(const std::string& s, std::size_t width, bool right = false);
std::string join(const std::vector<std::string>& parts, const std::string& sep);
// A path or value named in a message: 'x.json'.
inline std::string in_quotes(const std::string& s) { return "'" + s + "'"; }
// "simd (avx2)", or the backend's name alone where it has no architecture.
std::string backend_text(const std::string& backend, const std::string& arch);

}  // namespace melange::report
