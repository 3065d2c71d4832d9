#include "melange/rank.hpp"

#include <cmath>

#include "melange/error.hpp"

namespace melange {

std::vector<int> lehmer_unrank(std::uint64_t rank, int n) {
  if (n < 0 || n > kMaxRankItems) throw UsageError("ranks are defined for n <= 20");
  std::vector<int> digits(n);
  for (int i = n - 1; i >= 0; --i) {  // mixed radix: digit i has base n - i
    const auto base = static_cast<std::uint64_t>(n - i);
    digits[i] = static_cast<int>(rank % base);
    rank /= base;
  }
  if (rank != 0) throw UsageError("rank out of range for n = " + std::to_string(n));
  std::vector<int> pool(n), p(n);
  for (int i = 0; i < n; ++i) pool[i] = i;
  for (int i = 0; i < n; ++i) {
    p[i] = pool[digits[i]];
    pool.erase(pool.begin() + digits[i]);
  }
  return p;
}

std::string permutation_label(const std::vector<int>& p) {
  std::string s;
  if (p.size() <= static_cast<std::size_t>(kMaxLabelItems)) {
    for (int item : p) s += static_cast<char>('A' + item);
    return s;
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(p[i]);
  }
  return s;
}

std::string rank_label(std::uint64_t rank, int n) {
  return permutation_label(lehmer_unrank(rank, n));
}

double log2_factorial(int n) { return std::lgamma(n + 1.0) / std::log(2.0); }

}  // namespace melange
