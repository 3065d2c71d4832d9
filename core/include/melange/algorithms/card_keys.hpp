// The card shuffles' keys in lanes (contract §3): each card a key that
// holds its place in kCardPositionBits bits, so decks of up to kCardItems
// cards; a riffle's digit above the place (digits of up to
// kRiffleDigitBits bits, that many riffles, fit 32 bits), a shelf machine's
// shelf and side. A deck's keys are put in order by Batcher's odd-even merge
// sort as a network of comparators, built at compile time so that a lane
// body applies it with every index a constant: its keys stay in registers
// where they fit, and no comparator waits on a load whose address came from
// a table. Used by riffle-inl.hpp and shelf-inl.hpp; written against any
// lane type whose Lanes give min and max.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "melange/algorithms/lane_inline.hpp"

namespace melange::lanes {

inline constexpr int kCardPositionBits = 6;
inline constexpr int kCardItems = 1 << kCardPositionBits;
inline constexpr int kRiffleDigitBits = 32 - kCardPositionBits;

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

// Sorts keys[0..kCardItems) lane by lane: a minimum and a maximum a
// comparator for all the lanes at once, every index a constant.
inline constexpr auto kCardNetwork = sorting_network<kCardItems>();
template <class L, class U32, std::size_t... C>
MELANGE_LANE_INLINE void sort_card_keys(U32* keys, std::index_sequence<C...>) {
  const auto exchange = [](U32& a, U32& b) MELANGE_LANE_LAMBDA {
    const U32 low = L::min(a, b);
    b = L::max(a, b);
    a = low;
  };
  (exchange(keys[kCardNetwork[C].low], keys[kCardNetwork[C].high]), ...);
}

// Sorts a deck's n keys, the slots above them padded with keys above all.
template <class L, class U32>
MELANGE_LANE_INLINE void sort_deck(U32* keys, int n) {
  for (int i = n; i < kCardItems; ++i) keys[i] = U32(~0u);
  sort_card_keys<L>(keys, std::make_index_sequence<kCardNetwork.size()>());
}

}  // namespace melange::lanes
