// The weighted orders of contract §3: each item gets a key from its
// own stream word(s) and its weight, and the items are listed by key. Host
// code only (floating point keys; exempt from the GPU identity rule). The
// trial body reaches them through shuffle_as (algorithms.hpp); the exact law
// of `weighted` is Plackett-Luce (exact.hpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace melange::internal {

// Lists the items 0..n-1 into a[0..n) by key: ascending (weighted) or
// descending (weighted-int-power), ties by lower item.
template <class Items>
void order_by_key(Items&& a, std::vector<std::pair<double, int>>& keyed, bool descending) {
  if (descending)
    std::sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
  else
    std::sort(keyed.begin(), keyed.end());  // (key, item): ties by lower item
  for (std::size_t p = 0; p < keyed.size(); ++p) a[static_cast<int>(p)] = keyed[p].second;
}

// Efraimidis-Spirakis in log form: item i's key is -ln(u_i) / w_i with
// u_i = (word_i + 1) / 2^32 in (0, 1], word_i the trial's i-th word.
template <class Items, class Source>
void weighted_order(Items&& a, int n, const double* weights, Source& src) {
  std::vector<std::pair<double, int>> keyed(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double u = (static_cast<double>(src.word()) + 1.0) * 0x1p-32;
    keyed[i] = {-std::log(u) / weights[i], i};
  }
  order_by_key(a, keyed, false);
}

// The PHP page's weighted demo, a broken algorithm modelled as written:
// U_i = 1 + (((word_2i << 32) | word_2i+1) >> 1), key_i = U_i^(1/w_i) in
// double precision, items by descending key.
template <class Items, class Source>
void int_power_order(Items&& a, int n, const double* weights, Source& src) {
  std::vector<std::pair<double, int>> keyed(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const std::uint64_t high = src.word(), low = src.word();
    const std::uint64_t u = 1 + (((high << 32) | low) >> 1);
    keyed[i] = {std::pow(static_cast<double>(u), 1.0 / weights[i]), i};
  }
  order_by_key(a, keyed, true);
}

}  // namespace melange::internal
