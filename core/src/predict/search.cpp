#include "melange/predict/search.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
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

int dealt_deck_size(const FamilyRow& family, const Observed& observed) {
  return family.fixed_deck ? 52 : observed.n;
}

// The seeds of `range` whose first deal shows `record`, in blocks handed
// out in order to `threads` threads; sorted, so the same for any count.
Scanned scan_range(const FamilyRow& family, int n, const std::vector<int>& record, SeedRange range,
                   const SearchOptions& options) {
  const Scan scan = options.one_by_one ? family.dealing.scan_one_by_one : family.dealing.scan;
  constexpr std::uint64_t kBlock = 1 << 14;
  const std::uint64_t blocks = (range.last - range.first) / kBlock + 1;
  std::atomic<std::uint64_t> next_block{0};
  std::atomic<bool> stopped{false};
  std::mutex found_mutex;
  Scanned out;
  const Probe probe(n, record);
  const auto work = [&] {
    std::vector<std::uint64_t> mine;
    for (std::uint64_t b; !stopped && (b = next_block.fetch_add(1)) < blocks;) {
      if (options.stop && options.stop()) {
        stopped = true;
        break;
      }
      const std::uint64_t lo = range.first + b * kBlock;
      scan(probe, lo, std::min(range.last, lo + (kBlock - 1)), mine);
    }
    std::lock_guard lock(found_mutex);
    out.seeds.insert(out.seeds.end(), mine.begin(), mine.end());
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::max(1, options.threads); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  out.complete = !stopped;
  std::sort(out.seeds.begin(), out.seeds.end());
  return out;
}

// The seeds within `window` of `last`, clipped to the 64-bit seeds.
SeedRange window_around(std::uint64_t last, std::uint64_t window) {
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  return {last > window ? last - window : 0, top - last > window ? last + window : top};
}

// The seed nearest `last` (ties to the later) whose first deal shows the record.
std::optional<std::uint64_t> nearest(const std::vector<std::uint64_t>& seeds, std::uint64_t last) {
  std::optional<std::uint64_t> best;
  const auto distance = [last](std::uint64_t s) { return s > last ? s - last : last - s; };
  for (std::uint64_t s : seeds)
    if (!best || distance(s) < distance(*best) || (distance(s) == distance(*best) && s > *best)) best = s;
  return best;
}

std::string signed_text(std::int64_t v) {
  std::string text = std::to_string(v);
  if (v >= 0) text.insert(text.begin(), '+');
  return text;
}

// The reseedings' pattern in words, and the next seed where every record
// after the first was a reseeding by one constant step.
void name_pattern(Match& m) {
  std::vector<std::int64_t> steps;
  for (std::size_t i = 1; i < m.dealt.size(); ++i)
    if (m.dealt[i].reseeded)
      steps.push_back(static_cast<std::int64_t>(m.dealt[i].seed - m.dealt[i - 1].seed));
  if (steps.empty()) {
    m.pattern = m.dealt.size() == 1 ? "one deal" : "one seeding, dealt on";
    return;
  }
  const bool every_deal = steps.size() + 1 == m.dealt.size();
  const auto [low, high] = std::minmax_element(steps.begin(), steps.end());
  if (every_deal && *low == *high) {
    m.pattern = "reseeded every deal, the seed stepping by " + signed_text(*low) +
                (steps.size() == 1 ? " (one step seen)" : "");
    m.next_seed = m.dealt.back().seed + static_cast<std::uint64_t>(*low);
  } else if (every_deal && *low > 0) {
    m.pattern = "reseeded every deal with rising seeds, steps " + signed_text(*low) + " to " + signed_text(*high) +
                " (a clock or a counter): the next seed is later than " + std::to_string(m.dealt.back().seed);
  } else if (every_deal) {
    m.pattern = "reseeded every deal from unrelated seeds, steps " + signed_text(*low) + " to " + signed_text(*high) +
                ": the next seed is not predicted";
  } else {
    m.pattern = "dealt on, reseeded " + std::to_string(steps.size()) + " time" + (steps.size() == 1 ? "" : "s") +
                " (steps " + signed_text(*low) + " to " + signed_text(*high) + ")";
  }
}

// The next deals: a dealer that went on goes on; one reseeded by a
// constant step is seeded with the next seeds; any other says nothing.
void predict_next(const FamilyRow& family, int n, std::unique_ptr<Dealer>& dealer, Match& m, int deals) {
  const bool reseeds = std::any_of(m.dealt.begin(), m.dealt.end(), [](const Dealt& d) { return d.reseeded; });
  for (int d = 0; d < deals; ++d) {
    if (reseeds && !m.next_seed) return;
    if (reseeds) {
      const std::uint64_t step = *m.next_seed - m.dealt.back().seed;
      dealer = family.dealing.seeded(*m.next_seed + step * static_cast<std::uint64_t>(d));
    }
    std::vector<std::uint16_t> deck = fresh_deck(family, n);
    dealer->shuffle(deck);
    m.next.push_back(std::move(deck));
  }
}

// Deals on from a matching seed through the later records, reseeding near
// the last seed where going on does not deal one; then the next deals.
// Where a record the generator going on does not deal was dealt from: a
// reseeding within the window of the last seed (the nearest), else, for a
// match that chance alone explains less than once in a thousand so far,
// any seed of the range (the first). With the log10 of the seeds searched.
struct Reseeding {
  std::uint64_t seed;
  double log10_searched;
};
std::optional<Reseeding> reseeding(const FamilyRow& family, int n, const std::vector<int>& record, std::uint64_t last,
                                   SeedRange range, double log10_so_far, const SearchOptions& options, bool& complete) {
  if (options.reseed_window > 0 && log10_so_far < std::log10(options.reseed_below_chance)) {
    const SeedRange window = window_around(last, options.reseed_window);
    const Scanned near = scan_range(family, n, record, window, options);
    complete = complete && near.complete;
    if (const std::optional<std::uint64_t> seed = nearest(near.seeds, last)) return Reseeding{*seed, std::log10(window.seeds())};
  }
  if (log10_so_far >= std::log10(kSearchWholeBelowChance)) return std::nullopt;
  const Scanned whole = scan_range(family, n, record, range, options);
  complete = complete && whole.complete;
  if (whole.seeds.empty()) return std::nullopt;
  return Reseeding{whole.seeds.front(), std::log10(range.seeds())};
}

// Deals on from a matching seed through the later records, reseeding where
// going on does not deal one (reseeding()); then the next deals.
Match deal_on(const FamilyRow& family, const Observed& observed, std::uint64_t seed, SeedRange range,
              const SearchOptions& options, bool& complete) {
  const int n = dealt_deck_size(family, observed);
  Match m;
  m.seed = seed;
  m.dealt.push_back({seed, false});
  double log10_chance_all = std::log10(range.seeds()) + log10_chance(n, observed.records[0]);
  std::unique_ptr<Dealer> dealer = family.dealing.seeded(seed);
  std::vector<std::uint16_t> deck = fresh_deck(family, n);
  dealer->shuffle(deck);
  for (std::size_t r = 1; r < observed.records.size(); ++r) {
    const std::vector<int>& record = observed.records[r];
    deck = fresh_deck(family, n);
    dealer->shuffle(deck);
    if (shows(deck, record)) {
      m.dealt.push_back({m.dealt.back().seed, false});
      log10_chance_all += log10_chance(n, record);
      continue;
    }
    const std::optional<Reseeding> reseed =
        reseeding(family, n, record, m.dealt.back().seed, range, log10_chance_all, options, complete);
    if (!reseed) break;
    m.dealt.push_back({reseed->seed, true});
    log10_chance_all += log10_chance(n, record) + reseed->log10_searched;
    dealer = family.dealing.seeded(reseed->seed);
    deck = fresh_deck(family, n);
    dealer->shuffle(deck);
  }
  m.chance = std::pow(10.0, log10_chance_all);
  m.log10_chance = log10_chance_all;
  name_pattern(m);
  predict_next(family, n, dealer, m, options.next_deals);
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

Scanned scan_family(const FamilyRow& family, const Observed& observed, SeedRange range, const SearchOptions& options) {
  if (family.fixed_deck && observed.n != 52) return {};  // it deals 52 cards, not n
  return scan_range(family, dealt_deck_size(family, observed), observed.records[0], range, options);
}

FamilyResult explain(const FamilyRow& family, const Observed& observed, SeedRange range, const Scanned& scanned,
                     const SearchOptions& options) {
  FamilyResult result;
  result.family = &family;
  result.range = range;
  result.complete = scanned.complete;
  const int n = dealt_deck_size(family, observed);
  const double log10_space = std::log10(range.seeds());
  result.chance_matches = std::pow(10.0, log10_space + log10_chance(n, observed.records[0]));
  double all = log10_space;
  for (const std::vector<int>& r : observed.records) all += log10_chance(n, r);
  result.chance_matches_all = std::pow(10.0, all);
  for (std::uint64_t seed : scanned.seeds)
    result.matches.push_back(deal_on(family, observed, seed, range, options, result.complete));
  return result;
}

FamilyResult search_family(const FamilyRow& family, const Observed& observed, SeedRange range,
                           const SearchOptions& options) {
  return explain(family, observed, range, scan_family(family, observed, range, options), options);
}

int deck_size_of(const std::vector<int>& first) {
  std::vector<bool> seen(first.size(), false);
  for (int card : first) {
    if (card < 0 || card >= static_cast<int>(first.size()) || seen[static_cast<std::size_t>(card)]) return 52;
    seen[static_cast<std::size_t>(card)] = true;
  }
  return static_cast<int>(first.size());
}

std::string chance_text(double log10_chance) {
  char text[32];
  if (log10_chance > -300) std::snprintf(text, sizeof text, "%.2g", std::pow(10.0, log10_chance));
  else std::snprintf(text, sizeof text, "1e%.0f", std::floor(log10_chance));
  return text;
}

bool telling(const Match& m, const Observed& o) {
  return m.explained() == static_cast<int>(o.records.size()) && m.chance < kTellingChance;
}

Verdict verdict_of(const std::vector<FamilyResult>& results, const Observed& o) {
  for (const FamilyResult& r : results)
    for (const Match& m : r.matches)
      if (telling(m, o)) {
        const std::string chance = chance_text(m.log10_chance);
        const std::string what =
            o.records.size() == 1 ? "the record" : "all " + std::to_string(o.records.size()) + " records";
        return {"FAIL", "predictable: " + std::string(r.family->name) + " seeded with " + std::to_string(m.seed) +
                            " reproduces " + what + " (" + m.pattern + "); chance matches expected " + chance};
      }
  for (const FamilyResult& r : results)
    if (!r.matches.empty()) return {"WEAK", "seeds match, but no more than chance gives: add records (more cards seen) to tell"};
  return {"PASS", "no seed in the searched spaces reproduces the records"};
}

}  // namespace melange::predict
