// The libraries' shuffles, each written once over a deck: the caller's
// items (a Dealer deals them) or a probe's (the search holds each settled
// position to the first record and stops at the first that differs).
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "melange/predict/probe.hpp"

namespace melange::predict::internal {

// ---- Decks a library shuffle writes to -----------------------------------------
// A shuffle swaps positions and says when a position holds its final card
// (settled: a downward Fisher-Yates settles position i as it leaves it); a
// deck may then stop the shuffle (false), as the search's probe does at its
// first card that differs.

// The caller's items: a Dealer's deal, never stopped.
class ItemsDeck {
 public:
  explicit ItemsDeck(std::span<std::uint16_t> items) : a_(items) {}
  std::size_t size() const { return a_.size(); }
  void swap(std::size_t i, std::size_t j) { std::swap(a_[i], a_[j]); }
  bool settled(std::size_t) const { return true; }
  bool all_settled() const { return true; }

 private:
  std::span<std::uint16_t> a_;
};

// The search's deck: each settled position is held to the first record.
class ProbeDeck {
 public:
  ProbeDeck(const Probe& probe, std::span<std::uint16_t> items) : probe_(probe), a_(items) {}
  std::size_t size() const { return a_.size(); }
  void swap(std::size_t i, std::size_t j) { std::swap(a_[i], a_[j]); }
  bool settled(std::size_t i) const { return probe_.agrees(i, a_[i]); }
  bool all_settled() const {
    for (std::size_t i = 0; i < a_.size(); ++i)
      if (!probe_.agrees(i, a_[i])) return false;
    return true;
  }

 private:
  const Probe& probe_;
  std::span<std::uint16_t> a_;
};

// ---- Library shuffles --------------------------------------------------------

// The downward Fisher-Yates most libraries write: for i = n-1 down to 1,
// swap a[i] with a[below(i + 1)]. False where the deck stopped it.
template <class Deck, class Below>
bool downward_fisher_yates(Deck& deck, Below below) {
  for (std::size_t i = deck.size(); i-- > 1;) {
    deck.swap(i, below(static_cast<std::uint32_t>(i + 1)));
    if (!deck.settled(i)) return false;
  }
  return deck.settled(0);
}

// libstdc++'s uniform_int_distribution<unsigned long> over [0, range):
// Lemire's nearly divisionless reduction for a generator of exactly 32
// bits, else downscaling by rejection.
template <class G>
std::uint64_t libstdcxx_below(G& g, std::uint64_t range, std::uint64_t gen_min, std::uint64_t gen_max) {
  const std::uint64_t gen_range = gen_max - gen_min;
  if (gen_range == 0xffffffffu) {
    const auto r32 = static_cast<std::uint32_t>(range);
    std::uint64_t product = static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.next() - gen_min)) * r32;
    auto low = static_cast<std::uint32_t>(product);
    if (low < r32) {
      const std::uint32_t threshold = -r32 % r32;
      while (low < threshold) {
        product = static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.next() - gen_min)) * r32;
        low = static_cast<std::uint32_t>(product);
      }
    }
    return product >> 32;
  }
  if (gen_range <= 0xffffffffu) {  // 32-bit division, the cheaper
    const auto scaling = static_cast<std::uint32_t>(gen_range / range);
    const auto past = static_cast<std::uint32_t>(range * scaling);
    std::uint32_t r;
    do r = static_cast<std::uint32_t>(g.next() - gen_min);
    while (r >= past);
    return r / scaling;
  }
  const std::uint64_t scaling = gen_range / range, past = range * scaling;
  std::uint64_t r;
  do r = g.next() - gen_min;
  while (r >= past);
  return r / scaling;
}

// libstdc++'s std::shuffle: forward, i = 1 .. n-1 swapped with [0, i];
// where the generator's range holds two draws at once, two positions from
// one draw (x / (i + 2), x % (i + 2) over [0, (i + 1)(i + 2))), the first
// alone when n is even. No position settles before the end.
template <class Deck, class G>
bool libstdcxx_shuffle(Deck& deck, G& g, std::uint64_t gen_min, std::uint64_t gen_max) {
  const std::size_t n = deck.size();
  if (n < 2) return deck.all_settled();
  const std::uint64_t gen_range = gen_max - gen_min, urange = n;
  if (gen_range / urange >= urange) {
    std::size_t i = 1;
    if (urange % 2 == 0) {
      deck.swap(i, libstdcxx_below(g, 2, gen_min, gen_max));
      ++i;
    }
    while (i != n) {
      const std::uint64_t b0 = i + 1, b1 = i + 2;
      // Below (i + 1)(i + 2) <= n^2 <= gen_range + 1: 32 bits, so 32-bit
      // division (a 64-bit one cost the search 40% of its time here).
      const auto x = static_cast<std::uint32_t>(libstdcxx_below(g, b0 * b1, gen_min, gen_max));
      const auto b32 = static_cast<std::uint32_t>(b1);
      deck.swap(i, x / b32);
      ++i;
      deck.swap(i, x % b32);
      ++i;
    }
  } else {
    for (std::size_t i = 1; i < n; ++i) deck.swap(i, libstdcxx_below(g, i + 1, gen_min, gen_max));
  }
  return deck.all_settled();
}

}  // namespace melange::predict::internal
