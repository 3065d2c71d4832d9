// Who could predict the next deal: the seeds of a family whose deals
// reproduce the records seen. A pure function of (records, family, seed
// range): the same matches for any thread count.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "melange/predict/families.hpp"

namespace melange::predict {

// A card not seen (a '?' in a record).
inline constexpr int kUnseen = -1;

// The records as dealt, in order: each the first cards of a shuffled deck
// of n (a whole deck: n of them), kUnseen where a card was not seen.
struct Observed {
  int n = 52;
  std::vector<std::vector<int>> records;
};

struct SeedRange {
  std::uint64_t first = 0, last = 0;  // inclusive
  std::uint64_t size() const { return last - first + 1; }
};

// A seed whose generator reproduces the first record, and how many of the
// records it explains dealing on (records[0 .. explained)), and the next
// deals it would make.
struct Match {
  std::uint64_t seed = 0;
  int explained = 0;
  std::vector<std::vector<std::uint16_t>> next;
};

struct FamilyResult {
  const FamilyRow* family = nullptr;
  SeedRange range;
  std::vector<Match> matches;  // by seed
  // Seeds expected to reproduce the first record by chance: the range's size
  // times the chance a random deck shows its seen cards.
  double chance_matches = 0;
  // The same for every record a match explains (all of them).
  double chance_matches_all = 0;
  bool complete = true;  // false: stopped before the range's end
};

// The probability that a uniformly random deck of n shows `record`'s seen
// cards, as log10.
double log10_chance(int n, const std::vector<int>& record);

// Searches `range` of `family` for seeds that reproduce observed.records[0]
// (cards kUnseen match anything), on `threads` threads; each match is then
// dealt on through the other records and `next_deals` more. `stop` (may be
// empty) is polled between blocks of seeds.
FamilyResult search_family(const FamilyRow& family, const Observed& observed, SeedRange range, int threads,
                           int next_deals, const std::function<bool()>& stop = {});

// A chance this small makes a match evidence, as an audit's FAIL level.
inline constexpr double kTellingChance = 1e-6;

// A match is evidence where it explains every record and so few seeds of
// the range would do that by chance.
bool telling(const FamilyResult& result, const Match& match, const Observed& observed);

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
