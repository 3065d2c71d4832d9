// Who could predict the next deal: the seeds of a family whose deals
// reproduce the records seen. A pure function of (records, family, seed
// range): the same matches for any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "melange/predict/families.hpp"
#include "melange/predict/probe.hpp"

namespace melange::predict {

// The records as dealt, in order: each the first cards of a shuffled deck
// of n (a whole deck: n of them), kUnseen where a card was not seen.
struct Observed {
  int n = 52;
  std::vector<std::vector<int>> records;
};

struct SeedRange {
  std::uint64_t first = 0, last = 0;  // inclusive
  std::uint64_t size() const { return last - first + 1; }  // 0 for all 2^64 seeds
  double seeds() const { return static_cast<double>(last - first) + 1.0; }
};

// How a record a match explains was dealt: from `seed`, by the generator
// going on from the record before (reseeded false) or seeded afresh.
struct Dealt {
  std::uint64_t seed = 0;
  bool reseeded = false;
};

// A seed whose generator reproduces the first record; the records it
// explains (records[0 .. dealt.size())), each dealt on or reseeded; the
// seeds expected to explain as much by chance; the seed pattern in words;
// and the next deals it predicts (none where the pattern does not say the
// next seed).
struct Match {
  std::uint64_t seed = 0;
  std::vector<Dealt> dealt;
  double chance = 0;         // 0 where it underflows: log10_chance says how small
  double log10_chance = 0;
  std::string pattern;
  std::optional<std::uint64_t> next_seed;  // a reseeded dealer's next seed, where its steps say it
  std::vector<std::vector<std::uint16_t>> next;
  int explained() const { return static_cast<int>(dealt.size()); }
};

struct FamilyResult {
  const FamilyRow* family = nullptr;
  SeedRange range;
  std::vector<Match> matches;  // by seed
  // Seeds expected to reproduce the first record by chance: the range's size
  // times the chance a random deck shows its seen cards.
  double chance_matches = 0;
  // The same for every record, as one seeding dealing on.
  double chance_matches_all = 0;
  bool complete = true;  // false: stopped before the range's end
};

// The probability that a uniformly random deck of n shows `record`'s seen
// cards, as log10.
double log10_chance(int n, const std::vector<int>& record);

struct SearchOptions {
  int threads = 1;
  int next_deals = 1;
  // A later record the generator going on does not deal is searched as a
  // reseeding among the seeds within this distance of the last one (0: no
  // reseeding).
  std::uint64_t reseed_window = std::uint64_t{1} << 20;
  // A match is searched for reseedings only while the seeds expected to
  // explain as much by chance stay below this (a bound on the work chance
  // matches of a short first record would make).
  double reseed_below_chance = std::numeric_limits<double>::infinity();
  std::function<bool()> stop;  // may be empty; polled between blocks of seeds
  // Each seed dealt on its own by the family's dealer (Dealing's
  // scan_one_by_one), not the fast scan: the same seeds, slower.
  bool one_by_one = false;
};

// The seeds of a range whose first deal shows the first record: the
// search's costly part, which threads (and MPI ranks, each given a share
// of the range) split.
struct Scanned {
  std::vector<std::uint64_t> seeds;  // in order
  bool complete = true;              // false: stopped before the range's end
};
Scanned scan_family(const FamilyRow& family, const Observed& observed, SeedRange range, const SearchOptions& options);

// The result over `range` from the seeds its scan found: each dealt on
// through the later records (or reseeded near its last seed), with the
// chance matches and the next deals.
FamilyResult explain(const FamilyRow& family, const Observed& observed, SeedRange range, const Scanned& scanned,
                     const SearchOptions& options);

// Searches `range` of `family` for seeds that reproduce observed.records[0]
// (cards kUnseen match anything), and explains each: scan_family, then
// explain. A later record is tried as the generator going on, then as a
// reseeding within the window, then (kSearchWholeBelowChance) as any seed
// of the range.
FamilyResult search_family(const FamilyRow& family, const Observed& observed, SeedRange range,
                           const SearchOptions& options);

// An expected count in words: "3.3e-20", or "1e-1061" below a double's range.
std::string chance_text(double log10_chance);

// A later record that neither dealing on nor a reseeding near the last
// seed explains is searched over the whole range where the match so far
// is this unlikely by chance (a dealer seeded afresh from unrelated seeds).
inline constexpr double kSearchWholeBelowChance = 1e-3;

// A chance this small makes a match evidence, as an audit's FAIL level.
inline constexpr double kTellingChance = 1e-6;

// A match is evidence where it explains every record and so few seeds
// would do that by chance.
bool telling(const Match& match, const Observed& observed);

// The verdict on a search: FAIL where a match is telling (a seed predicts
// the deals), WEAK where seeds match no more than chance gives, PASS where
// no seed in the searched ranges reproduces the records; `why` in words.
struct Verdict {
  std::string verdict, why;
};
Verdict verdict_of(const std::vector<FamilyResult>& results, const Observed& observed);

// The deck a first record is dealt from where its size is not given: a
// record that holds each of 0..len-1 once is a whole deck of len; anything
// else is dealt from a deck of 52.
int deck_size_of(const std::vector<int>& first);

// Throws UsageError unless the records are cards 0..n-1, each at most once
// a record, no longer than n (a fixed-deck family deals 52).
void validate_observed(const Observed& observed);

}  // namespace melange::predict
