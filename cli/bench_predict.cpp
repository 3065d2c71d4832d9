#include "bench_predict.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "melange/predict/search.hpp"
#include "melange/report/bench.hpp"
#include "melange/report/format.hpp"
#include "melange/report/json.hpp"
#include "melange/trial.hpp"
#include "output.hpp"
#include "progress.hpp"

namespace melange::cli {
namespace {

constexpr int kRepeats = 5;
constexpr std::uint64_t kFirstSeeds = 1 << 14;

// The records searched: a fair deck of 52 (Philox, seed 1), whole or its
// first five cards: what no seed of a family deals, so every seed is
// tried and dropped, as in a search that finds nothing.
predict::Observed fair_records(int cards) {
  Job job;
  job.n = 52;
  job.seed = 1;
  std::vector<std::uint16_t> deck(52);
  sample_trials(job, 0, 1, deck.data());
  return predict::Observed{52, {std::vector<int>(deck.begin(), deck.begin() + cards)}};
}

double seconds_searching(const predict::FamilyRow& f, const predict::Observed& o, std::uint64_t first,
                         std::uint64_t seeds, int threads) {
  predict::SearchOptions options;
  options.threads = threads;
  options.next_deals = 0;
  options.reseed_window = 0;
  const auto start = std::chrono::steady_clock::now();
  predict::search_family(f, o, {first, first + seeds - 1}, options);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Row {
  const predict::FamilyRow* family;
  int cards, threads;
  std::uint64_t seeds = 0;  // a run's
  double rate = 0, spread = 0;
};

// Doubles a run's seeds until it takes `share` seconds, then times
// kRepeats runs (each over fresh seeds) and keeps the median.
void measure(Row& r, double share) {
  const predict::Observed o = fair_records(r.cards);
  std::uint64_t first = 0;
  r.seeds = kFirstSeeds;
  while (seconds_searching(*r.family, o, first, r.seeds, r.threads) < share / (kRepeats + 2) &&
         r.seeds < r.family->seed_space / 4) {
    first += r.seeds;
    r.seeds *= 2;
  }
  std::vector<double> rates;
  for (int i = 0; i < kRepeats; ++i) {
    first = (first + r.seeds) % (r.family->seed_space - r.seeds);
    rates.push_back(static_cast<double>(r.seeds) / std::max(seconds_searching(*r.family, o, first, r.seeds, r.threads), 1e-9));
  }
  std::sort(rates.begin(), rates.end());
  r.rate = rates[kRepeats / 2];
  r.spread = 50 * (rates.back() - rates.front()) / r.rate;
}

std::string duration_text(double seconds) {
  char text[32];
  if (seconds < 120) std::snprintf(text, sizeof text, "%.1f s", seconds);
  else if (seconds < 7200) std::snprintf(text, sizeof text, "%.1f min", seconds / 60);
  else if (seconds < 172800) std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  else std::snprintf(text, sizeof text, "%.1f days", seconds / 86400);
  return text;
}

report::Json rows_json(const std::vector<Row>& rows, const report::BenchMachine& m, const PredictBenchArgs& a) {
  report::Json j = report::json_header("bench");
  j["format"] = "melange-bench-predict";
  j["machine"] = {{"cpu", m.cpu}, {"compiler", m.compiler}};
  j["seconds"] = a.seconds;
  j["repeats"] = kRepeats;
  report::Json out = report::Json::array();
  for (const Row& r : rows)
    out.push_back(report::Json{{"family", std::string(r.family->name)},
                               {"cards_seen", r.cards},
                               {"threads", r.threads},
                               {"seeds_a_run", std::to_string(r.seeds)},
                               {"seeds_per_second", r.rate},
                               {"seeds_per_second_per_thread", r.rate / r.threads},
                               {"spread_percent", r.spread},
                               {"space", std::to_string(r.family->seed_space)},
                               {"space_seconds", static_cast<double>(r.family->seed_space) / r.rate}});
  j["rows"] = out;
  return j;
}

}  // namespace

int run_predict_bench(const PredictBenchArgs& a) {
  const std::vector<const predict::FamilyRow*> families = predict::families_named(a.families);
  Outputs outputs;
  outputs.declare("--json", a.json);
  std::vector<Row> rows;
  for (const predict::FamilyRow* f : families)
    for (int cards : {52, 5})
      for (int threads : a.threads) rows.push_back(Row{f, cards, threads});
  const report::BenchMachine machine = report::probe_machine();
  std::ostream& text = a.json == "-" ? std::cerr : std::cout;
  text << "melange bench --mode predict: seeds searched per second (median of " << kRepeats << "), " << machine.cpu
       << "; a fair deck, whole or its first 5 cards, so that every seed is tried\n";
  ProgressLine progress("bench", a.quiet || a.json == "-", "rows");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    progress.update(i, rows.size(), std::string(rows[i].family->name));
    measure(rows[i], a.seconds / static_cast<double>(rows.size()));
  }
  progress.clear();
  text << "  family       seen  threads  seeds/s    per thread  spread  whole space\n";
  for (const Row& r : rows) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-12s %4d  %7d  %-9s  %-9s  %5.1f%%  %s of %s\n", std::string(r.family->name).c_str(),
                  r.cards, r.threads, report::general(r.rate, 3).c_str(), report::general(r.rate / r.threads, 3).c_str(),
                  r.spread, duration_text(static_cast<double>(r.family->seed_space) / r.rate).c_str(),
                  report::general(static_cast<double>(r.family->seed_space), 3).c_str());
    text << line;
  }
  if (!a.json.empty()) report::write_json(outputs.open(a.json), rows_json(rows, machine, a));
  outputs.commit();
  return 0;
}

}  // namespace melange::cli
