// Small number formatting helpers for the text reports.
#pragma once

#include <cstdint>
#include <string>

namespace melange::cli {

std::string fixed(double v, int decimals);     // 125397.21
std::string general(double v, int digits = 4); // 4.2e-30, 0.3505
std::string grouped(std::uint64_t v);          // 1,000,000
// A p-value that stays readable when it underflows: "3.1e-12" or "1e-27233.1".
std::string p_text(double p, double log10_p);
std::string pad(const std::string& s, std::size_t width, bool right = false);

}  // namespace melange::cli
