#include "reproduce_predict.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "melange/predict/search.hpp"
#include "melange/report/format.hpp"
#include "predict_clock.hpp"
#include "progress.hpp"

namespace melange::cli {

Claim asf_claim(std::uint64_t seed, int threads, bool quiet) {
  const predict::FamilyRow& asf = *predict::family_named("asf-1999");
  const std::uint64_t dealt_at = seed % asf.seed_space;
  const std::vector<std::uint16_t> deck = predict::deal_decks(asf, dealt_at, 52, 1)[0];
  const predict::Observed seen{52, {std::vector<int>(deck.begin(), deck.begin() + 5)}};
  predict::SearchOptions options;
  options.threads = threads;
  options.next_deals = 0;
  options.reseed_window = 0;
  ProgressLine progress("reproduce: ASF's deck from five cards, a day's seeds", quiet);
  progress.update(0, 1);
  const auto start = std::chrono::steady_clock::now();
  const predict::FamilyResult r = predict::search_family(asf, seen, {0, asf.seed_space - 1}, options);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  progress.clear();
  const bool found = std::any_of(r.matches.begin(), r.matches.end(),
                                 [&](const predict::Match& m) { return m.seed == dealt_at; });
  Claim c;
  c.claim = "ASF's shuffle (1999): the deck named by five cards among a day's seeds";
  c.article = "86,400,000 possible decks; the deck recovered from the two hole cards and the flop, in real time";
  c.expected = "the deck dealt at " + clock_time(dealt_at, Clock{1000, true}) + " among the matches; " +
               report::general(r.chance_matches, 3) + " others expected by chance (86,400,000 / 52*51*50*49*48)";
  c.measured = std::string(found ? "found" : "not found") + ", with " + std::to_string(r.matches.size() - found) +
               " other match" + (r.matches.size() - found == 1 ? "" : "es");
  c.agrees = found && r.complete;
  char note[160];
  std::snprintf(note, sizeof note, "the day's 86,400,000 seeds searched in %.2f s on %d thread%s (%.3g seeds/s)", took,
                threads, threads == 1 ? "" : "s", static_cast<double>(asf.seed_space) / took);
  c.note = note;
  return c;
}

}  // namespace melange::cli
