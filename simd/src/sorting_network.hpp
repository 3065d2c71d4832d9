// Batcher's odd-even merge sort as a network of comparators, built at
// compile time so that a kernel applies it with every index a constant: its
// keys stay in registers where they fit, and no comparator waits on a load
// whose address came from a table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace melange::simd::internal {

// The smaller of keys[low] and keys[high] goes to low, the larger to high.
struct Comparator {
  std::uint8_t low, high;
};

// Calls f(low, high) for each comparator of the network on `size` keys, a
// power of two, in order: merges of sorted runs of length `run` into runs
// of 2 run; within a merge, comparators `gap` apart, from run down to 1,
// that stay inside one run of 2 run.
template <class F>
constexpr void for_each_comparator(int size, F&& f) {
  for (int run = 1; run < size; run <<= 1)
    for (int gap = run; gap >= 1; gap >>= 1)
      for (int j = gap % run; j + gap < size; j += 2 * gap)
        for (int i = j; i < j + gap && i + gap < size; ++i)
          if (i / (2 * run) == (i + gap) / (2 * run)) f(i, i + gap);
}

constexpr std::size_t comparator_count(int size) {
  std::size_t count = 0;
  for_each_comparator(size, [&](int, int) { ++count; });
  return count;
}

// The network that sorts any Size keys (Size a power of two). Fewer keys
// are sorted by it too, the slots above them holding keys above all others.
template <int Size>
constexpr std::array<Comparator, comparator_count(Size)> sorting_network() {
  static_assert(Size >= 1 && Size <= 256 && (Size & (Size - 1)) == 0, "a power of two, indices in a byte");
  std::array<Comparator, comparator_count(Size)> network{};
  std::size_t k = 0;
  for_each_comparator(Size, [&](int low, int high) {
    network[k++] = {static_cast<std::uint8_t>(low), static_cast<std::uint8_t>(high)};
  });
  return network;
}

}  // namespace melange::simd::internal
