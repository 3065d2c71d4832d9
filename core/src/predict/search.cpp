#include "melange/predict/search.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "melange/error.hpp"

namespace melange::predict {
namespace {

// Whether a dealt deck shows the record's cards, top first.
bool shows(const std::vector<std::uint16_t>& deck, const std::vector<int>& record) {
  if (record.size() > deck.size()) return false;
  for (std::size_t i = 0; i < record.size(); ++i)
    if (record[i] != kUnseen && record[i] != deck[i]) return false;
  return true;
}

std::vector<std::uint16_t> fresh_deck(const FamilyRow& family, int n) {
  std::vector<std::uint16_t> deck(static_cast<std::size_t>(family.fixed_deck ? 52 : n));
  for (std::size_t i = 0; i < deck.size(); ++i) deck[i] = static_cast<std::uint16_t>(i);
  return deck;
}

// Deals on from a matching seed: the records it explains, then the next deals.
Match deal_on(const FamilyRow& family, const Observed& observed, std::uint64_t seed, int next_deals) {
  Match m;
  m.seed = seed;
  const std::unique_ptr<Dealer> dealer = family.seeded(seed);
  for (const std::vector<int>& record : observed.records) {
    std::vector<std::uint16_t> deck = fresh_deck(family, observed.n);
    dealer->shuffle(deck);
    if (!shows(deck, record)) return m;
    ++m.explained;
  }
  for (int d = 0; d < next_deals; ++d) {
    std::vector<std::uint16_t> deck = fresh_deck(family, observed.n);
    dealer->shuffle(deck);
    m.next.push_back(std::move(deck));
  }
  return m;
}

}  // namespace

double log10_chance(int n, const std::vector<int>& record) {
  double log10_p = 0;
  int seen = 0;
  for (int card : record)
    if (card != kUnseen) log10_p -= std::log10(static_cast<double>(n - seen++));
  return log10_p;
}

void validate_observed(const Observed& o) {
  if (o.records.empty()) throw UsageError("no records to search: give at least one deal");
  if (o.n < 2 || o.n > 1 << 16) throw UsageError(Param::n, "{n} must be 2 to 65536 cards, got " + std::to_string(o.n));
  for (std::size_t r = 0; r < o.records.size(); ++r) {
    const std::vector<int>& record = o.records[r];
    if (record.empty() || static_cast<int>(record.size()) > o.n)
      throw UsageError(Param::n, "record " + std::to_string(r + 1) + " has " + std::to_string(record.size()) +
                                     " cards; a deal of a deck of {n} = " + std::to_string(o.n) + " has 1 to " +
                                     std::to_string(o.n));
    std::vector<bool> seen(static_cast<std::size_t>(o.n), false);
    for (int card : record) {
      if (card == kUnseen) continue;
      if (card < 0 || card >= o.n)
        throw UsageError(Param::n, "record " + std::to_string(r + 1) + " has card " + std::to_string(card) +
                                       ", outside 0.." + std::to_string(o.n - 1) + " ({n} " + std::to_string(o.n) + ")");
      if (seen[static_cast<std::size_t>(card)])
        throw UsageError("record " + std::to_string(r + 1) + " has card " + std::to_string(card) +
                         " twice: a deal shows each card once");
      seen[static_cast<std::size_t>(card)] = true;
    }
  }
}

FamilyResult search_family(const FamilyRow& family, const Observed& observed, SeedRange range, int threads,
                           int next_deals, const std::function<bool()>& stop) {
  FamilyResult result;
  result.family = &family;
  result.range = range;
  const int n = family.fixed_deck ? 52 : observed.n;
  const double space = static_cast<double>(range.size());
  result.chance_matches = space * std::pow(10.0, log10_chance(n, observed.records[0]));
  double all = 0;
  for (const std::vector<int>& r : observed.records) all += log10_chance(n, r);
  result.chance_matches_all = space * std::pow(10.0, all);
  if (family.fixed_deck && observed.n != 52) return result;  // it deals 52 cards, not n

  // Blocks of seeds handed out in order; each thread keeps its matches.
  constexpr std::uint64_t kBlock = 1 << 14;
  const std::uint64_t blocks = (range.size() - 1) / kBlock + 1;
  std::atomic<std::uint64_t> next_block{0};
  std::atomic<bool> stopped{false};
  std::mutex found_mutex;
  std::vector<std::uint64_t> found;
  const std::vector<int>& first = observed.records[0];
  const auto work = [&] {
    std::vector<std::uint16_t> deck = fresh_deck(family, n), identity = deck;
    std::vector<std::uint64_t> mine;
    for (std::uint64_t b; !stopped && (b = next_block.fetch_add(1)) < blocks;) {
      if (stop && stop()) {
        stopped = true;
        break;
      }
      const std::uint64_t lo = range.first + b * kBlock;
      const std::uint64_t hi = std::min(range.last, lo + (kBlock - 1));
      for (std::uint64_t seed = lo;; ++seed) {
        deck = identity;
        family.seeded(seed)->shuffle(deck);
        if (shows(deck, first)) mine.push_back(seed);
        if (seed == hi) break;
      }
    }
    std::lock_guard lock(found_mutex);
    found.insert(found.end(), mine.begin(), mine.end());
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, threads); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  result.complete = !stopped;
  std::sort(found.begin(), found.end());
  for (std::uint64_t seed : found) result.matches.push_back(deal_on(family, observed, seed, next_deals));
  return result;
}

int deck_size_of(const std::vector<int>& first) {
  std::vector<bool> seen(first.size(), false);
  for (int card : first) {
    if (card < 0 || card >= static_cast<int>(first.size()) || seen[static_cast<std::size_t>(card)]) return 52;
    seen[static_cast<std::size_t>(card)] = true;
  }
  return static_cast<int>(first.size());
}

bool telling(const FamilyResult& r, const Match& m, const Observed& o) {
  return m.explained == static_cast<int>(o.records.size()) && r.chance_matches_all < kTellingChance;
}

Verdict verdict_of(const std::vector<FamilyResult>& results, const Observed& o) {
  for (const FamilyResult& r : results)
    for (const Match& m : r.matches)
      if (telling(r, m, o)) {
        char chance[32];
        std::snprintf(chance, sizeof chance, "%.2g", r.chance_matches_all);
        return {"FAIL", "predictable: " + std::string(r.family->name) + " seeded with " + std::to_string(m.seed) +
                            " reproduces all " + std::to_string(o.records.size()) + " records; chance matches expected " +
                            chance};
      }
  for (const FamilyResult& r : results)
    if (!r.matches.empty()) return {"WEAK", "seeds match, but no more than chance gives: add records (more cards seen) to tell"};
  return {"PASS", "no seed in the searched spaces reproduces the records"};
}

}  // namespace melange::predict
