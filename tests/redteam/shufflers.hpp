// Shufflers written to be caught: the ways real dealers have failed (a
// 32-bit seed, a clock or a counter as the seed, a state used again, too
// few riffles, a deck that is the last one moved a little, Sattolo's
// shuffle, a card that sticks, re-deals of strong hands, each deck biased
// on its own), and fair ones
// beside them, each making records one after another as an auditor would
// receive them. For the red-team tests (redteam_test.cpp) and the
// generator program (melange_redteam.cpp) that pipes them into
// `melange audit --input`. Every shuffler is deterministic in its seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "melange/deal.hpp"

namespace melange::redteam {

// An unbiased draw in [0, s) from 32-bit words (Lemire's method), so that
// a flawed shuffler's flaw is its seeding, never its bounded integers.
template <class Words>
std::uint32_t bounded(Words& words, std::uint32_t s) {
  std::uint64_t m = static_cast<std::uint64_t>(static_cast<std::uint32_t>(words())) * s;
  if (static_cast<std::uint32_t>(m) < s) {
    const std::uint32_t t = static_cast<std::uint32_t>(-s) % s;
    while (static_cast<std::uint32_t>(m) < t) m = static_cast<std::uint64_t>(static_cast<std::uint32_t>(words())) * s;
  }
  return static_cast<std::uint32_t>(m >> 32);
}

template <class Words>
void fisher_yates(std::vector<std::uint16_t>& deck, Words& words) {
  for (std::size_t i = deck.size() - 1; i > 0; --i)
    std::swap(deck[i], deck[bounded(words, static_cast<std::uint32_t>(i + 1))]);
}

// java.util.Random as the JDK defines it: a 48-bit LCG, its seed scrambled
// with the multiplier; nextInt(bound) as in the JDK, and
// Collections.shuffle (from the last index down, swap with nextInt(i)).
class JavaRandom {
 public:
  explicit JavaRandom(std::int64_t seed) : seed_((static_cast<std::uint64_t>(seed) ^ kMultiplier) & kMask) {}
  std::int32_t next(int bits) {
    seed_ = (seed_ * kMultiplier + 0xB) & kMask;
    return static_cast<std::int32_t>(seed_ >> (48 - bits));
  }
  std::int32_t next_int(std::int32_t bound) {
    if ((bound & -bound) == bound)
      return static_cast<std::int32_t>((static_cast<std::int64_t>(bound) * next(31)) >> 31);
    std::int32_t bits, value;
    do {
      bits = next(31);
      value = bits % bound;
      // Java's int arithmetic wraps: the draw is redone when it would.
    } while (static_cast<std::int32_t>(static_cast<std::uint32_t>(bits) - static_cast<std::uint32_t>(value) +
                                       static_cast<std::uint32_t>(bound - 1)) < 0);
    return value;
  }
  void shuffle(std::vector<std::uint16_t>& list) {
    for (auto i = static_cast<std::int32_t>(list.size()); i > 1; --i) std::swap(list[i - 1], list[next_int(i)]);
  }

 private:
  static constexpr std::uint64_t kMultiplier = 0x5DEECE66Dull;
  static constexpr std::uint64_t kMask = (std::uint64_t{1} << 48) - 1;
  std::uint64_t seed_;
};

// The C standard's example rand(): x = x 1103515245 + 12345, 15 bits out.
class AnsiCRand {
 public:
  explicit AnsiCRand(std::uint32_t seed) : x_(seed) {}
  std::uint32_t operator()() {
    x_ = x_ * 1103515245u + 12345u;
    return (x_ >> 16) & 0x7FFF;
  }

 private:
  std::uint32_t x_;
};

// One Gilbert-Shannon-Reeds riffle: a Binomial(n, 1/2) cut, then cards
// dropped from each packet with probability proportional to its size.
template <class Rng>
void riffle(std::vector<std::uint16_t>& deck, Rng& rng) {
  const std::size_t n = deck.size();
  std::size_t cut = 0;
  for (std::size_t i = 0; i < n; ++i) cut += rng() & 1u;
  std::vector<std::uint16_t> out;
  out.reserve(n);
  std::size_t left = 0, right = cut;
  while (out.size() < n) {
    const std::size_t l = cut - left, r = n - right;
    if (bounded(rng, static_cast<std::uint32_t>(l + r)) < l) out.push_back(deck[left++]);
    else out.push_back(deck[right++]);
  }
  deck = std::move(out);
}

// A shuffler: records of k items of n (k = n: whole decks), one a call.
struct Shuffler {
  int n = 52;
  int k = 52;
  std::function<void(std::uint16_t*)> next;
};

inline std::vector<std::uint16_t> new_deck(int n) {
  std::vector<std::uint16_t> d(static_cast<std::size_t>(n));
  std::iota(d.begin(), d.end(), std::uint16_t{0});
  return d;
}

// The first k cards of a deck into a record.
inline void deal(const std::vector<std::uint16_t>& deck, int k, std::uint16_t* out) {
  std::copy(deck.begin(), deck.begin() + k, out);
}

// A new deck shuffled by Collections.shuffle(deck, new Random(seed)), dealt.
inline void java_deal(std::int64_t seed, std::vector<std::uint16_t>& deck, int k, std::uint16_t* out) {
  deck = new_deck(static_cast<int>(deck.size()));
  JavaRandom(seed).shuffle(deck);
  deal(deck, k, out);
}

// Each flaw by name; `k` below n deals the deck's first k cards.
inline Shuffler make_shuffler(std::string_view name, int n, int k, std::uint64_t seed) {
  Shuffler s{n, k, {}};
  auto fair = std::make_shared<std::mt19937_64>(seed);
  auto words = [fair] { return static_cast<std::uint32_t>((*fair)() >> 32); };
  auto deck = std::make_shared<std::vector<std::uint16_t>>(new_deck(n));
  if (name == "fair") {
    s.next = [=](std::uint16_t* out) mutable {
      *deck = new_deck(n);
      fisher_yates(*deck, words);
      deal(*deck, k, out);
    };
  } else if (name == "mt-seed32") {
    // A random 32-bit seed per deck: 2^32 possible decks.
    s.next = [=](std::uint16_t* out) mutable {
      std::mt19937 mt(static_cast<std::uint32_t>(words()));
      *deck = new_deck(n);
      fisher_yates(*deck, mt);
      deal(*deck, k, out);
    };
  } else if (name == "java-clock") {
    // new Random(System.currentTimeMillis()) per deck, a deck every 20 ms
    // or so on average: about 2.5% of consecutive decks share a millisecond.
    auto clock = std::make_shared<std::int64_t>(1'764'000'000'000 + static_cast<std::int64_t>(seed % 1000));
    s.next = [=](std::uint16_t* out) mutable {
      *clock += bounded(words, 40);
      java_deal(*clock, *deck, k, out);
    };
  } else if (name == "java-counter") {
    // new Random(deal number) per deck.
    auto counter = std::make_shared<std::int64_t>(static_cast<std::int64_t>(seed % 1'000'000));
    s.next = [=](std::uint16_t* out) mutable { java_deal((*counter)++, *deck, k, out); };
  } else if (name == "lcg-counter") {
    // srand(deal number); Fisher-Yates with rand() % (i + 1).
    auto counter = std::make_shared<std::uint32_t>(static_cast<std::uint32_t>(seed % 1'000'000));
    s.next = [=](std::uint16_t* out) mutable {
      AnsiCRand rand((*counter)++);
      *deck = new_deck(n);
      for (std::size_t i = deck->size() - 1; i > 0; --i) std::swap((*deck)[i], (*deck)[rand() % (i + 1)]);
      deal(*deck, k, out);
    };
  } else if (name == "cycle") {
    // Every order in turn, lexicographically: each exactly as often as the others.
    s.next = [=](std::uint16_t* out) mutable {
      deal(*deck, k, out);
      std::next_permutation(deck->begin(), deck->end());
    };
  } else if (name == "swap-walk") {
    // The previous deck with two cards (drawn fairly) swapped.
    s.next = [=](std::uint16_t* out) mutable {
      std::swap((*deck)[bounded(words, static_cast<std::uint32_t>(n))],
                (*deck)[bounded(words, static_cast<std::uint32_t>(n))]);
      deal(*deck, k, out);
    };
  } else if (name == "reuse") {
    // A fair generator whose state is put back to its start every 100,000 decks.
    auto dealt = std::make_shared<std::uint64_t>(0);
    s.next = [=](std::uint16_t* out) mutable {
      if ((*dealt)++ % 100'000 == 0) *fair = std::mt19937_64(seed);
      *deck = new_deck(n);
      fisher_yates(*deck, words);
      deal(*deck, k, out);
    };
  } else if (name == "riffle7-new") {
    // Seven riffles of a new deck each time.
    s.next = [=](std::uint16_t* out) mutable {
      *deck = new_deck(n);
      for (int r = 0; r < 7; ++r) riffle(*deck, words);
      deal(*deck, k, out);
    };
  } else if (name == "riffle3-previous") {
    // Three riffles of the previous deck.
    s.next = [=](std::uint16_t* out) mutable {
      for (int r = 0; r < 3; ++r) riffle(*deck, words);
      deal(*deck, k, out);
    };
  } else if (name == "sattolo") {
    // Sattolo's cyclic shuffle where Fisher-Yates was meant (j < i, never
    // j = i): a deck with no card left in place.
    s.next = [=](std::uint16_t* out) mutable {
      *deck = new_deck(n);
      for (std::size_t i = deck->size() - 1; i > 0; --i)
        std::swap((*deck)[i], (*deck)[bounded(words, static_cast<std::uint32_t>(i))]);
      deal(*deck, k, out);
    };
  } else if (name == "stuck-top") {
    // A fair shuffle, but 1 deck in 100 the last card sticks on top.
    s.next = [=](std::uint16_t* out) mutable {
      *deck = new_deck(n);
      fisher_yates(*deck, words);
      if (bounded(words, 100) == 0) {
        std::rotate(deck->begin(), std::find(deck->begin(), deck->end(), std::uint16_t(n - 1)),
                    std::find(deck->begin(), deck->end(), std::uint16_t(n - 1)) + 1);
      }
      deal(*deck, k, out);
    };
  } else if (name == "rigged-redeal") {
    // Five cards of a fair deck, dealt again from a new one half the times
    // they make a straight or better (k = 5 of 52).
    s.next = [=](std::uint16_t* out) mutable {
      *deck = new_deck(n);
      fisher_yates(*deck, words);
      if (poker_category(deck->data()) <= PokerCategory::straight && bounded(words, 2) == 0) {
        *deck = new_deck(n);
        fisher_yates(*deck, words);
      }
      deal(*deck, k, out);
    };
  } else if (name == "naive-swap") {
    // Each position swapped with any (j < n): each deck biased, every deck
    // independent of the others.
    s.next = [=](std::uint16_t* out) mutable {
      *deck = new_deck(n);
      for (std::size_t i = 0; i < deck->size(); ++i)
        std::swap((*deck)[i], (*deck)[bounded(words, static_cast<std::uint32_t>(n))]);
      deal(*deck, k, out);
    };
  } else if (name == "cut-previous") {
    // The previous deck cut at a fair point.
    s.next = [=](std::uint16_t* out) mutable {
      std::rotate(deck->begin(), deck->begin() + bounded(words, static_cast<std::uint32_t>(n)), deck->end());
      deal(*deck, k, out);
    };
  }
  return s;
}

inline constexpr std::string_view kShufflerNames[] = {
    "fair", "mt-seed32", "java-clock", "java-counter", "lcg-counter", "cycle",
    "swap-walk", "reuse", "riffle7-new", "riffle3-previous", "cut-previous", "sattolo", "stuck-top",
    "rigged-redeal", "naive-swap",
};

}  // namespace melange::redteam
