// Lehmer (lexicographic) rank of a permutation: identity is 0, reversed is n!-1.
// Letter labels A, B, C, ... for n <= 26.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "melange/config.hpp"
#include "melange/limits.hpp"

namespace melange {

MELANGE_HD constexpr std::uint64_t factorial(int n) {
  std::uint64_t f = 1;
  for (int i = 2; i <= n; ++i) f *= static_cast<std::uint64_t>(i);
  return f;
}

// p[i] = item at position i, a permutation of 0..n-1, n <= 20; p is a
// pointer or a container of items with p[i].
template <class Items>
MELANGE_HD inline std::uint64_t lehmer_rank(const Items& p, int n) {
  std::uint64_t rank = 0;
  for (int i = 0; i < n; ++i) {
    std::uint64_t smaller_after = 0;
    for (int j = i + 1; j < n; ++j) smaller_after += p[j] < p[i] ? 1 : 0;
    rank = rank * static_cast<std::uint64_t>(n - i) + smaller_after;
  }
  return rank;
}

std::vector<int> lehmer_unrank(std::uint64_t rank, int n);
std::string permutation_label(const std::vector<int>& p);  // "ABCD" for identity of 4
std::string rank_label(std::uint64_t rank, int n);
double log2_factorial(int n);

}  // namespace melange
