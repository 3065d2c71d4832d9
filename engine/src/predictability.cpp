#include "melange/predictability.hpp"

#include <chrono>
#include <cmath>
#include <map>
#include <string>

#include "melange/internal/grouped_digits.hpp"
#include "melange/predict/search.hpp"

namespace melange {
namespace {

using predict::FamilyRow;
using predict::kMillisecondsADay;
using predict::kSecondsADay;
using predict::PredictabilityCheck;

// A window is searched only where chance alone gives at most this many
// seeds dealing the first record: each is dealt on through the others.
constexpr double kMostChanceMatches = 100;
// A match is searched for reseedings only once chance alone explains as
// much less than this often.
constexpr double kReseedBelowChance = 1e-3;
// Later records: reseedings within this many seeds of the last (a clock
// read again within the hour).
constexpr std::uint64_t kReseedWindow = 1 << 12;
// The records' chance under a fair dealer must be this far below one in
// a 32-bit space for a match to tell (kTellingChance over 2^32).
const double kLog10EnoughCards = std::log10(predict::kTellingChance) - 32 * std::log10(2.0);

struct Planned {
  const FamilyRow* family;
  predict::SeedRange range;
  std::string what;
};

class Pass {
 public:
  Pass(const predict::Observed& o, const PredictabilityPlan& plan) : observed_(o), plan_(plan) {
    options_.threads = plan.threads;
    options_.next_deals = 1;
    options_.reseed_window = kReseedWindow;
    options_.reseed_below_chance = kReseedBelowChance;
    options_.stop = plan.stop;
  }

  // Searches the window whole; false once a seed deals the records (or a stop).
  bool search(const Planned& w) {
    const auto start = std::chrono::steady_clock::now();
    const predict::FamilyResult r = predict::search_family(*w.family, observed_, w.range, options_);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rates_[w.family] = w.range.seeds() / std::max(took, 1e-6);
    if (!r.complete) {
      check.left.push_back(std::string(w.family->name) + ": " + w.what + " (stopped)");
      return false;
    }
    for (const predict::Match& m : r.matches)
      if (predict::telling(m, observed_)) {
        check.predictable = predict::verdict_of({r}, observed_).why + "; " + w.what;
        return false;
      }
    check.searched.push_back({std::string(w.family->name), w.range.first, w.range.last, w.what});
    return true;
  }

  // Whether chance alone would swamp the window with matches of the first record.
  bool too_many_chance_matches(const Planned& w) const {
    const int n = w.family->fixed_deck ? 52 : observed_.n;
    return w.range.seeds() * std::pow(10.0, predict::log10_chance(n, observed_.records[0])) > kMostChanceMatches;
  }

  std::optional<double> seconds_for(const Planned& w) const {
    const auto rate = rates_.find(w.family);
    if (rate == rates_.end()) return std::nullopt;
    return w.range.seeds() / rate->second;
  }

  PredictabilityCheck check;

 private:
  const predict::Observed& observed_;
  const PredictabilityPlan& plan_;
  predict::SearchOptions options_;
  std::map<const FamilyRow*, double> rates_;  // seeds a second, as last measured
};

std::vector<Planned> fixed_windows(int n, const PredictabilityPlan& plan) {
  std::vector<Planned> out;
  if (plan.records_time && *plan.records_time > static_cast<std::int64_t>(kSecondsADay)) {
    const auto t = static_cast<std::uint64_t>(*plan.records_time);
    for (const FamilyRow& f : predict::families())
      if (!f.fixed_deck) out.push_back({&f, {t - kSecondsADay, t}, "the day before the records' time, in seconds"});
  }
  if (n == 52)
    for (const FamilyRow& f : predict::families())
      if (f.fixed_deck) out.push_back({&f, {0, f.seed_space - 1}, "a day of milliseconds from midnight"});
  return out;
}

std::vector<Planned> extra_windows(const PredictabilityPlan& plan) {
  std::vector<Planned> out;
  if (plan.records_time && *plan.records_time > static_cast<std::int64_t>(kSecondsADay)) {
    const auto t = static_cast<std::uint64_t>(*plan.records_time) * 1000;
    for (const FamilyRow& f : predict::families())
      if (!f.fixed_deck)
        out.push_back({&f, {t - kMillisecondsADay, t}, "the day before the records' time, in milliseconds"});
  }
  for (const FamilyRow& f : predict::families())
    if (!f.fixed_deck) out.push_back({&f, {0, f.seed_space - 1}, "every seed"});
  return out;
}

}  // namespace

PredictabilityCheck check_predictability(const std::vector<std::vector<int>>& head, int n,
                                         const PredictabilityPlan& plan) {
  predict::Observed observed{n, head};
  Pass pass(observed, plan);
  pass.check.records = static_cast<int>(head.size());
  double log10_all = 0;
  for (const std::vector<int>& r : head) log10_all += predict::log10_chance(n, r);
  if (head.empty() || log10_all > kLog10EnoughCards) {
    pass.check.skipped = "the first " + std::to_string(head.size()) + " records show too few cards to name a 32-bit seed";
    return pass.check;
  }
  for (const Planned& w : fixed_windows(n, plan)) {
    if (pass.too_many_chance_matches(w)) continue;
    if (!pass.search(w)) return pass.check;
  }
  const auto start = std::chrono::steady_clock::now();
  for (const Planned& w : plan.extra_seconds > 0 ? extra_windows(plan) : std::vector<Planned>{}) {
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::optional<double> needs = pass.seconds_for(w);
    if (pass.too_many_chance_matches(w)) {
      pass.check.left.push_back(std::string(w.family->name) + ": " + w.what + " (its first record is too short)");
    } else if (needs && spent + *needs > plan.extra_seconds) {
      pass.check.left.push_back(std::string(w.family->name) + ": " + w.what + " (about " +
                                internal::grouped_digits(static_cast<std::uint64_t>(*needs)) + " s)");
    } else if (!pass.search(w)) {
      return pass.check;
    }
  }
  return pass.check;
}

void add_predictability(AuditReport& report, predict::PredictabilityCheck check) {
  if (check.predictable) {
    report.verdict = Verdict::fail;
    report.notes.insert(report.notes.begin(), *check.predictable);
  } else if (!check.skipped.empty()) {
    report.notes.push_back("predictability not searched: " + check.skipped);
  } else if (!check.searched.empty()) {
    std::string families;
    for (const predict::PredictabilityCheck::Window& w : check.searched)
      if (families.find(w.family) == std::string::npos) {
        if (!families.empty()) families += ", ";
        families += w.family;
      }
    report.notes.push_back("predictability: no seed searched deals the first " + std::to_string(check.records) +
                           " records (" + families + "; " + std::to_string(check.searched.size()) +
                           " windows); a dealer seeded otherwise is not ruled out (melange predict)");
  }
  report.predictability = std::move(check);
}

}  // namespace melange
