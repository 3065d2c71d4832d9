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

// A day, the span clock seeds are searched over: in seconds, and in the
// milliseconds of a clock that ticks a thousand times a second.
inline constexpr std::uint64_t kSecondsADay = 86'400;
inline constexpr std::uint64_t kMillisecondsADay = kSecondsADay * 1000;

// A generator seeded once, dealing deck after deck: shuffle() takes the
// items in their order (0..n-1 for a fresh deck) and shuffles them as the
// library does, consuming the generator as the library does.
class Dealer {
 public:
  virtual ~Dealer() = default;
  virtual void shuffle(std::span<std::uint16_t> items) = 0;
};

class Probe;  // melange/predict/probe.hpp

// The seeds first..last whose first deal agrees with a probe, appended in
// order, each dropped at its first card that differs.
using Scan = void (*)(const Probe& probe, std::uint64_t first, std::uint64_t last, std::vector<std::uint64_t>& matches);

// A family's dealer in its uses: seeded, dealing on as the library would;
// scanning seeds, as fast as the family allows (vector lanes of seeds, a
// generator's closed form); and scanning them one by one with the dealer
// itself, the scalar definition the fast scan must agree with. All come
// from one definition of the library's shuffle.
struct Dealing {
  std::unique_ptr<Dealer> (*seeded)(std::uint64_t seed);
  Scan scan;
  Scan scan_one_by_one;
};

struct FamilyRow {
  std::string_view name;         // kebab-case, as --family names it
  std::string_view library;      // what it models, in a line
  std::uint64_t seed_space;      // seeds 0 .. seed_space - 1: what is searched by default
  std::string_view seeding;      // how callers seed it, and how a wider seed is taken
  Dealing dealing;
  bool fixed_deck = false;       // deals 52 cards whatever n is asked (asf-1999)
};

// Every family, in the order `melange predict` tries them.
std::span<const FamilyRow> families();
// The row named `name`; nullptr where there is none.
const FamilyRow* family_named(std::string_view name);
// The rows named, in the order given (none named: every family); throws
// UsageError naming {family} and the choices for a name with no row.
std::vector<const FamilyRow*> families_named(const std::vector<std::string>& names);
// "glibc-rand, delphi, ...".
std::string family_names(std::string_view separator);

// The items 0..n-1 in order, as a family's shuffle takes them (52 of them
// for a fixed-deck family, whatever n).
std::vector<std::uint16_t> fresh_deck(const FamilyRow& family, int n);

// A fresh deck of n items dealt by `family` seeded with `seed`, then
// `more` decks after it from the same generator (each from a fresh deck).
std::vector<std::vector<std::uint16_t>> deal_decks(const FamilyRow& family, std::uint64_t seed, int n, int decks);

}  // namespace melange::predict
