// The dealers melange can predict: a library's generator, seeded as its
// callers seed it, driving the library's own shuffle of a deck, bit for bit
// (docs/auditing.md, "Who could predict the next deal"). A family is its row: its name, its
// seed space, and its deal, which shuffles the items 0..n-1 from a seed and
// can go on dealing from where the last deal left the generator. Each row is
// checked against the real runtime (tests/predict/).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace melange::predict {

// A generator seeded once, dealing deck after deck: shuffle() takes the
// items in their order (0..n-1 for a fresh deck) and shuffles them as the
// library does, consuming the generator as the library does.
class Dealer {
 public:
  virtual ~Dealer() = default;
  virtual void shuffle(std::span<std::uint16_t> items) = 0;
};

struct FamilyRow {
  std::string_view name;         // kebab-case, as --family names it
  std::string_view library;      // what it models, in a line
  std::uint64_t seed_space;      // seeds 0 .. seed_space - 1 are its whole space
  std::string_view seeding;      // how callers seed it
  std::unique_ptr<Dealer> (*seeded)(std::uint64_t seed);
  bool fixed_deck = false;       // deals 52 cards whatever n is asked (asf-1999)
};

// Every family, in the order `melange predict` tries them.
std::span<const FamilyRow> families();
// The row named `name`; nullptr where there is none.
const FamilyRow* family_named(std::string_view name);
// "glibc-rand, delphi, ...".
std::string family_names(std::string_view separator);

// A fresh deck of n items dealt by `family` seeded with `seed`, then
// `more` decks after it from the same generator (each from a fresh deck).
std::vector<std::vector<std::uint16_t>> deal_decks(const FamilyRow& family, std::uint64_t seed, int n, int decks);

}  // namespace melange::predict
