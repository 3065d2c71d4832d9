// The search against its own definition: for every family, the seeds a
// scan keeps (each dropped at its first card that differs; in vector lanes,
// or one by one) are exactly those whose whole deal, dealt by the family's
// Dealer, shows the record: for whole decks, short deals with many chance
// matches, and cards not seen, on one thread and two.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "melange/predict/search.hpp"
#include "generators.hpp"
#include "trace_lanes.hpp"

namespace melange::predict {
namespace {

constexpr std::uint64_t kSeed = 3'000'017, kWindow = 3000;

// Every seed of the range whose first deal, shuffled whole, shows `record`.
std::vector<std::uint64_t> by_whole_deals(const FamilyRow& f, int n, const std::vector<int>& record, SeedRange range) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t seed = range.first; seed <= range.last; ++seed) {
    const std::vector<std::uint16_t> deck = deal_decks(f, seed, n, 1)[0];
    bool shows = true;
    for (std::size_t i = 0; i < record.size(); ++i) shows = shows && (record[i] == kUnseen || record[i] == deck[i]);
    if (shows) out.push_back(seed);
  }
  return out;
}

SearchOptions on_threads(int threads, int next_deals) {
  SearchOptions options;
  options.threads = threads;
  options.next_deals = next_deals;
  return options;
}

std::vector<std::uint64_t> seeds_of(const FamilyResult& r) {
  std::vector<std::uint64_t> out;
  for (const Match& m : r.matches) out.push_back(m.seed);
  return out;
}

std::string text(const std::vector<std::uint64_t>& seeds) {
  std::string t;
  for (std::uint64_t s : seeds) t += std::to_string(s) + " ";
  return t;
}

TEST(Predict, EveryFamilysScanKeepsExactlyTheSeedsWhoseWholeDealShowsTheRecord) {
  const SeedRange range{kSeed - kWindow, kSeed + kWindow};
  for (const FamilyRow& f : families()) {
    for (const int n : {52, 13, 120}) {  // 120: past the outputs MT lanes make ahead
      if (f.fixed_deck && n != 52) continue;
      const std::vector<std::uint16_t> deck = deal_decks(f, kSeed, n, 1)[0];
      const std::vector<int> whole(deck.begin(), deck.end());
      const std::vector<int> two(deck.begin(), deck.begin() + 2);
      std::vector<int> unseen(deck.begin(), deck.begin() + 5);
      unseen[1] = unseen[3] = kUnseen;
      for (const std::vector<int>& record : {whole, two, unseen}) {
        const Observed observed{n, {record}};
        const std::vector<std::uint64_t> want = by_whole_deals(f, n, record, range);
        const FamilyResult one = search_family(f, observed, range, on_threads(1, 0));
        const FamilyResult two_threads = search_family(f, observed, range, on_threads(2, 0));
        SearchOptions scalar = on_threads(2, 0);
        scalar.one_by_one = true;
        const FamilyResult one_by_one = search_family(f, observed, range, scalar);
        SCOPED_TRACE(std::string(f.name) + " n " + std::to_string(n) + " cards " + std::to_string(record.size()));
        EXPECT_EQ(seeds_of(one), want) << "scan: " << text(seeds_of(one)) << "\nwhole: " << text(want);
        EXPECT_EQ(seeds_of(two_threads), want);
        EXPECT_EQ(seeds_of(one_by_one), want);
        EXPECT_TRUE(std::find(want.begin(), want.end(), kSeed) != want.end());
        if (record.size() == 2 && n == 13) {
          EXPECT_GT(want.size(), 1u) << "a 2-card deal of 13 matches by chance";
        }
      }
    }
  }
}

// CPython's seeds past 2^32 are two key words: a run of lanes across 2^32
// is seeded one by one, and the matches are the same. Past 2^31, a C int
// seed is negative (glibc's srand, .NET's Random).
TEST(Predict, SeedsAcross2To31And2To32AreSearchedAsTheLibrarySeedsThem) {
  // 0: srand takes it as 1.
  const std::uint64_t seeds[] = {0, (std::uint64_t{1} << 31) + 7, (std::uint64_t{1} << 32) + 7, 0xffffff00};
  for (const std::uint64_t seed : seeds) {
    for (const FamilyRow& f : families()) {
      const SeedRange range{seed < 300 ? 0 : seed - 300, seed + 300};
      const std::vector<std::uint16_t> deck = deal_decks(f, seed, 52, 1)[0];
      const std::vector<int> two(deck.begin(), deck.begin() + 2);
      SCOPED_TRACE(std::string(f.name) + " near seed " + std::to_string(seed));
      EXPECT_EQ(seeds_of(search_family(f, Observed{52, {two}}, range, on_threads(2, 0))),
                by_whole_deals(f, 52, two, range));
    }
  }
}

// A dealer seeded afresh from unrelated seeds: each later record, neither
// dealt on nor near the last seed, is found over the whole range once the
// first record has made the match unlikely by chance.
TEST(Predict, ARecordDealtFromAnUnrelatedSeedIsFoundOverTheWholeRange) {
  const FamilyRow& f = *family_named("php-mt");
  const std::uint64_t seeds[] = {1000, 77777, 31337};
  Observed observed{52, {}};
  for (const std::uint64_t seed : seeds) {
    const std::vector<std::uint16_t> deck = deal_decks(f, seed, 52, 1)[0];
    observed.records.emplace_back(deck.begin(), deck.end());
  }
  SearchOptions options = on_threads(2, 1);
  options.reseed_window = 16;
  const FamilyResult r = search_family(f, observed, {0, 99'999}, options);
  ASSERT_EQ(r.matches.size(), 1u);
  const Match& m = r.matches[0];
  ASSERT_EQ(m.explained(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(m.dealt[i].seed, seeds[i]);
    EXPECT_EQ(m.dealt[i].reseeded, i > 0);
  }
  EXPECT_TRUE(telling(m, observed));
  EXPECT_EQ(m.pattern, "reseeded every deal from unrelated seeds, steps -46440 to +76777: the next seed is not predicted");
  EXPECT_TRUE(m.next.empty());
  // A short first record leaves the match as likely by chance: no whole search.
  Observed short_first = observed;
  short_first.records[0].resize(2);
  const FamilyResult weak = search_family(f, short_first, {0, 99'999}, options);
  for (const Match& chance : weak.matches) EXPECT_EQ(chance.explained(), 1) << chance.seed;
}

// The trace lanes divide by a multiply: exact for every 31-bit numerator,
// checked at each divisor's multiples and their neighbours, the top and a
// spread of others.
TEST(Predict, TheLanesDivisionByMultiplyIsExactFor31BitNumerators) {
  for (std::uint32_t d = 1; d <= 4099; ++d) {
    const internal::Divisor m = internal::divisor_of(d);
    std::vector<std::uint32_t> xs = {0, 1, 0x7fffffffu, 0x7ffffffeu};
    for (std::uint32_t q : {1u, 2u, 1000u, 0x7fffffffu / m.d}) {
      const std::uint32_t x = q * m.d;
      xs.insert(xs.end(), {x - 1, x, x + 1 > 0x7fffffffu ? x : x + 1});
    }
    for (std::uint32_t x = 12345; x < 0x7fff0000u; x += 0x0ff1u * 1171u) xs.push_back(x);
    for (const std::uint32_t x : xs) {
      const auto q = static_cast<std::uint32_t>((std::uint64_t{x} * m.magic) >> m.shift);
      ASSERT_EQ(q, x / m.d) << x << " / " << m.d << ": magic " << m.magic << " shift " << m.shift;
    }
  }
}

// Seeds whose first deal has a rare rejected draw, which the lanes leave
// to the dealer. Java's nextInt(52) rejects next(31) in its last partial
// multiple: a seed made by running the LCG back from such a state.
std::uint64_t java_rejecting_seed() {
  constexpr std::uint64_t kMultiplier = 0x5DEECE66Du, kMask = (std::uint64_t{1} << 48) - 1;
  std::uint64_t inverse = 1;  // kMultiplier^-1 mod 2^48, by Newton's iteration
  for (int i = 0; i < 6; ++i) inverse *= 2 - kMultiplier * inverse;
  const std::uint64_t rejected = (std::uint64_t{0x7fffffff} << 17) | 12345;  // next(31) = 2^31 - 1
  return (((rejected - 0xB) * inverse) & kMask) ^ kMultiplier;
}
// libstdc++ downscales minstd_rand's words for its first draw, below 2,
// rejecting 2^31 - 3 and up: the seed whose first word is 2^31 - 2.
std::uint64_t minstd_rejecting_seed() {
  constexpr std::uint64_t kP = 2147483647;
  std::uint64_t inverse = 1, power = 48271;  // 48271^(p-2) mod p
  for (std::uint64_t e = kP - 2; e > 0; e >>= 1, power = power * power % kP)
    if (e & 1) inverse = inverse * power % kP;
  const std::uint64_t seed = (kP - 1) * inverse % kP;
  EXPECT_GE(internal::Minstd(seed).next() - 1, 2147483644u);
  return seed;
}
// Lemire's multiply rejects one mt19937 word in millions: the first seed
// with a rejection in a whole deck's draws, found by a search for it.
std::uint64_t mt19937_rejecting_seed() {
  constexpr std::uint64_t kSeed = 29117;
  const std::vector<int> deck(52, 0);
  const internal::TracePlan plan = internal::trace_plan(Probe(52, deck), internal::Swaps::upward, 0xffffffffu);
  internal::Mt19937 g(kSeed);
  bool rejected = false;
  for (const internal::UpwardCall& c : plan.calls)
    rejected = rejected || static_cast<std::uint32_t>(std::uint64_t{g.next()} * c.range) < c.threshold;
  EXPECT_TRUE(rejected);
  return kSeed;
}

TEST(Predict, RareRejectedDrawsAreDealtAsTheLibraryDealsThem) {
  const std::pair<const char*, std::uint64_t> rejecting[] = {
      {"java", java_rejecting_seed()}, {"cpp-minstd", minstd_rejecting_seed()}, {"cpp-mt19937", mt19937_rejecting_seed()}};
  for (const auto& [name, seed] : rejecting) {
    const FamilyRow& f = *family_named(name);
    const std::vector<std::uint16_t> deck = deal_decks(f, seed, 52, 1)[0];
    const SeedRange range{seed - 200, seed + 200};
    for (const std::vector<int>& record : {std::vector<int>(deck.begin(), deck.end()),
                                           std::vector<int>(deck.begin(), deck.begin() + 5)}) {
      SCOPED_TRACE(std::string(name) + " seed " + std::to_string(seed) + " cards " + std::to_string(record.size()));
      const std::vector<std::uint64_t> found =
          seeds_of(search_family(f, Observed{52, {record}}, range, on_threads(1, 0)));
      EXPECT_EQ(found, by_whole_deals(f, 52, record, range));
      EXPECT_TRUE(std::find(found.begin(), found.end(), seed) != found.end());
    }
  }
}

TEST(Predict, AMatchDealsOnThroughTheRecordsAndPredictsTheNextDeal) {
  for (const FamilyRow& f : families()) {
    const std::vector<std::vector<std::uint16_t>> decks = deal_decks(f, kSeed, 52, 4);
    Observed observed{52, {}};
    for (int d = 0; d < 3; ++d) observed.records.emplace_back(decks[d].begin(), decks[d].begin() + 5);
    const FamilyResult r = search_family(f, observed, {kSeed - 100, kSeed + 100}, on_threads(2, 1));
    SCOPED_TRACE(std::string(f.name));
    const auto m = std::find_if(r.matches.begin(), r.matches.end(), [](const Match& x) { return x.seed == kSeed; });
    ASSERT_NE(m, r.matches.end());
    EXPECT_EQ(m->explained(), 3);
    EXPECT_EQ(m->pattern, "one seeding, dealt on");
    ASSERT_EQ(m->next.size(), 1u);
    EXPECT_EQ(m->next[0], decks[3]);
    EXPECT_TRUE(telling(*m, observed));
  }
}

}  // namespace
}  // namespace melange::predict
