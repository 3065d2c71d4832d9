// The shuffle algorithms of DESIGN.md section 3, each written once against a
// RandomSource so that the sampler, the GPU threads and the exact enumerator
// run the same definition. Items start in identity order; a[i] is the item at
// position i.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "melange/config.hpp"
#include "melange/source.hpp"

namespace melange {

enum class Algorithm : std::uint8_t {
  fisher_yates,
  naive_swap,
  sattolo,
  sort_binary_insertion,
  sort_v8_timsort,
};

inline constexpr Algorithm kAllAlgorithms[] = {
    Algorithm::fisher_yates, Algorithm::naive_swap, Algorithm::sattolo,
    Algorithm::sort_binary_insertion, Algorithm::sort_v8_timsort};

std::string_view algorithm_name(Algorithm a);
std::optional<Algorithm> parse_algorithm(std::string_view name);

// Largest range an algorithm passes to bounded() for n items (0: coins only).
// Items are 16-bit indices.
inline constexpr int kMaxSampleItems = 1 << 16;

std::uint64_t max_draw_range(Algorithm a, int n);
// Largest n an algorithm is defined for (sort-v8-timsort models one run, n < 64).
int max_items(Algorithm a);
// True when the algorithm draws comparator coins rather than bounded integers.
bool uses_coins(Algorithm a);

namespace internal {

template <class T>
MELANGE_HD inline void swap_items(T& a, T& b) {
  T t = a;
  a = b;
  b = t;
}

// V8's BinaryInsertionSort from index `start`: binary-search each pivot's slot
// in a[0..i) with comparator(pivot, a[mid]); "less" moves right to mid.
template <class Item, class Source>
MELANGE_HD inline void binary_insertion_from(Item* a, int n, int start, Source& src) {
  for (int i = start; i < n; ++i) {
    const Item pivot = a[i];
    int left = 0, right = i;
    while (left < right) {
      const int mid = left + ((right - left) >> 1);
      if (src.less())
        right = mid;
      else
        left = mid + 1;
    }
    for (int p = i; p > left; --p) a[p] = a[p - 1];
    a[left] = pivot;
  }
}

}  // namespace internal

template <class Item, class Source>
MELANGE_HD inline void fisher_yates(Item* a, int n, Source& src) {
  for (int i = n - 1; i >= 1; --i) internal::swap_items(a[i], a[src.bounded(i + 1)]);
}

template <class Item, class Source>
MELANGE_HD inline void naive_swap(Item* a, int n, Source& src) {
  for (int i = 0; i < n; ++i) internal::swap_items(a[i], a[src.bounded(n)]);
}

template <class Item, class Source>
MELANGE_HD inline void sattolo(Item* a, int n, Source& src) {
  for (int i = n - 1; i >= 1; --i) internal::swap_items(a[i], a[src.bounded(i)]);
}

// `a.sort(() => Math.random() - 0.5)` on an engine that sorts short arrays by
// binary insertion.
template <class Item, class Source>
MELANGE_HD inline void sort_binary_insertion(Item* a, int n, Source& src) {
  internal::binary_insertion_from(a, n, 1, src);
}

// The same one-liner on V8's TimSort (Node.js 20) for n < 64, a single run:
// CountAndMakeRun, reverse a descending run, then binary insertion.
template <class Item, class Source>
MELANGE_HD inline void sort_v8_timsort(Item* a, int n, Source& src) {
  if (n < 2) return;
  int run = 2;
  const bool descending = src.less();  // comparator(a[1], a[0])
  for (int k = 2; k < n; ++k) {
    const bool less = src.less();  // comparator(a[k], a[k-1])
    if (descending ? !less : less) break;
    ++run;
  }
  if (descending)
    for (int lo = 0, hi = run - 1; lo < hi; ++lo, --hi) internal::swap_items(a[lo], a[hi]);
  internal::binary_insertion_from(a, n, run, src);
}

template <class Item, class Source>
MELANGE_HD inline void shuffle(Algorithm algo, Item* a, int n, Source& src) {
  switch (algo) {
    case Algorithm::fisher_yates: fisher_yates(a, n, src); return;
    case Algorithm::naive_swap: naive_swap(a, n, src); return;
    case Algorithm::sattolo: sattolo(a, n, src); return;
    case Algorithm::sort_binary_insertion: sort_binary_insertion(a, n, src); return;
    case Algorithm::sort_v8_timsort: sort_v8_timsort(a, n, src); return;
  }
}

template <class Item>
MELANGE_HD inline void iota_items(Item* a, int n) {
  for (int i = 0; i < n; ++i) a[i] = static_cast<Item>(i);
}

}  // namespace melange
