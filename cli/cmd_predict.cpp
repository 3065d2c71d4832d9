// `melange predict`: who could predict the next deal. The records are
// searched for a seed of each family (a library's generator and shuffle,
// melange/predict/families.hpp) whose deals reproduce them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <fstream>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "exit_codes.hpp"
#include "job_args.hpp"
#include "list_args.hpp"
#include "melange/error.hpp"
#include "melange/internal/fnv1a.hpp"
#include "melange/predict/search.hpp"
#include "melange/report/format.hpp"
#include "melange/report/json.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "predict_clock.hpp"
#include "checkpoint_lock.hpp"
#include "predict_checkpoint.hpp"
#include "progress.hpp"
#include "record_input.hpp"
#include "signals.hpp"
#include "team.hpp"
#include "melange/ranks.hpp"

namespace melange::cli {
namespace {

using predict::FamilyResult;
using predict::FamilyRow;

struct PredictArgs {
  std::string file, families, seeds, clock, clock_unit, threads, json, deal, labels, backend = "simd";
  std::string checkpoint, resume;
  double checkpoint_every = 60;
  int base = 0;
  std::string reseed_window = "1048576";
  int n = 0;  // 0: the first record's length
  int next = 1;
  bool since_midnight = false, fail_on_bias = false, quiet = false;
};

// A card as a record line writes it: '?' or '-' for one not seen, a label
// (--labels), or a number (0-based, or 1-based with --base 1).
int card_of(const std::string& word, const std::vector<std::string>& labels, int base, std::size_t line,
            const std::string& path) {
  if (word == "?" || word == "-") return predict::kUnseen;
  if (!labels.empty()) {
    const auto at = std::find(labels.begin(), labels.end(), word);
    if (at == labels.end())
      throw UsageError("line " + std::to_string(line) + " of '" + path + "' has '" + word +
                       "', not one of --labels: write each card by its label, or ? for one not seen");
    return static_cast<int>(at - labels.begin());
  }
  char* end = nullptr;
  const long card = std::strtol(word.c_str(), &end, 10) - base;
  if (*end != '\0' || word.empty() || card < 0 || card > 65535)
    throw UsageError("line " + std::to_string(line) + " of '" + path + "' has '" + word + "': cards are " +
                     (base ? "1" : "0") + "-based numbers (--base), labels (--labels cards), or ? for a card not seen");
  return static_cast<int>(card);
}

// Records as text: a deal a line, cards separated by spaces, commas,
// semicolons or tabs; '#' starts a comment.
predict::Observed read_observed(const std::string& path, int n, const std::vector<std::string>& labels, int base) {
  std::ifstream file;
  if (path != "-") {
    file.open(path);
    if (!file) throw UsageError("cannot read '" + path + "': give a file of deals, a deal a line, or - for standard input");
  }
  std::istream& in = path == "-" ? std::cin : file;
  predict::Observed o;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    for (char& c : line)
      if (c == ',' || c == ';' || c == '\t' || c == '\r') c = ' ';
    std::istringstream words(line);
    std::vector<int> record;
    for (std::string w; words >> w;) record.push_back(card_of(w, labels, base, number, path));
    if (!record.empty()) o.records.push_back(std::move(record));
  }
  if (o.records.empty()) throw UsageError("'" + path + "' holds no deal: a deal a line, cards 0-based");
  o.n = n > 0 ? n : !labels.empty() ? static_cast<int>(labels.size()) : predict::deck_size_of(o.records[0]);
  predict::validate_observed(o);
  return o;
}

// What --seeds, --clock or --since-midnight asks for; none: each family's
// whole space.
struct SeedChoice {
  std::optional<predict::SeedRange> range;
  std::optional<Clock> clock;
};

SeedChoice seed_choice(const PredictArgs& a) {
  const int given = !a.seeds.empty() + !a.clock.empty() + a.since_midnight;
  if (given > 1) throw UsageError("give one of --seeds, --clock and --since-midnight");
  if (!a.clock_unit.empty() && a.clock.empty() && !a.since_midnight)
    throw UsageError("--clock-unit goes with --clock or --since-midnight");
  SeedChoice choice;
  if (!a.clock.empty() || a.since_midnight) {
    Clock clock;
    clock.since_midnight = a.since_midnight;
    clock.per_second = clock_ticks_per_second(a.clock_unit.empty() ? (a.since_midnight ? "ms" : "s") : a.clock_unit);
    choice.range = a.since_midnight ? since_midnight_seeds(clock) : clock_seeds(a.clock, clock);
    choice.clock = clock;
  } else if (!a.seeds.empty()) {
    const auto dots = a.seeds.find("..");
    if (dots == std::string::npos) throw UsageError("--seeds takes LO..HI, such as --seeds 0..4294967295");
    const std::uint64_t lo = parse_seed(a.seeds.substr(0, dots), "--seeds");
    const std::uint64_t hi = parse_seed(a.seeds.substr(dots + 2), "--seeds");
    if (hi < lo) throw UsageError("--seeds " + a.seeds + " ends before it starts: give LO..HI with LO <= HI");
    choice.range = predict::SeedRange{lo, hi};
  }
  return choice;
}

// A seed as written: the number, and the time it stands for on a clock.
std::string seed_text(std::uint64_t seed, const SeedChoice& choice) {
  return std::to_string(seed) + (choice.clock ? " (" + clock_text(seed, *choice.clock) + ")" : "");
}

std::vector<const FamilyRow*> chosen_families(const std::string& list) {
  return predict::families_named(list.empty() ? std::vector<std::string>{} : split_list(list, "--family", 64, true));
}

// How the records name cards, for the decks a match predicts: by label, or
// by number from --base.
struct CardNames {
  std::vector<std::string> labels;
  int base = 0;
};

std::string deck_text(const std::vector<std::uint16_t>& deck, const CardNames& names) {
  std::string text;
  for (std::size_t i = 0; i < deck.size(); ++i) {
    if (i) text += ' ';
    text += deck[i] < names.labels.size() ? names.labels[deck[i]] : std::to_string(deck[i] + names.base);
  }
  return text;
}

report::Json match_json(const predict::Match& m, const predict::Observed& o, const SeedChoice& choice) {
  report::Json dealt = report::Json::array();
  for (const predict::Dealt& d : m.dealt)
    dealt.push_back(report::Json{{"seed", std::to_string(d.seed)}, {"reseeded", d.reseeded}});
  report::Json records = report::Json::array();  // the records it explains: always the first ones
  for (int r = 1; r <= m.explained(); ++r) records.push_back(r);
  report::Json j{{"seed", std::to_string(m.seed)},
                 {"records", records},
                 {"explained", m.explained()},
                 {"dealt", dealt},
                 {"pattern", m.pattern},
                 {"chance", m.chance},
                 {"log10_chance", m.log10_chance},
                 {"telling", predict::telling(m, o)},
                 {"next_seed", m.next_seed ? report::Json(std::to_string(*m.next_seed)) : report::Json()},
                 {"next", m.next}};
  if (choice.clock) j["clock"] = clock_text(m.seed, *choice.clock);
  return j;
}

report::Json result_json(const std::vector<FamilyResult>& results, const predict::Observed& o, const std::string& verdict,
                         const SeedChoice& choice) {
  report::Json j = report::json_header("predict");
  j["verdict"] = verdict;
  j["n"] = o.n;
  j["records"] = o.records.size();
  report::Json families = report::Json::array();
  for (const FamilyResult& r : results) {
    report::Json matches = report::Json::array();
    for (const predict::Match& m : r.matches) matches.push_back(match_json(m, o, choice));
    families.push_back(report::Json{{"family", std::string(r.family->name)},
                                    {"searched", {{"first", std::to_string(r.range.first)},
                                                  {"last", std::to_string(r.range.last)},
                                                  {"complete", r.complete}}},
                                    {"chance_matches", r.chance_matches},
                                    {"chance_matches_all", r.chance_matches_all},
                                    {"matches", matches}});
  }
  j["families"] = families;
  return j;
}

std::string result_text(const std::vector<FamilyResult>& results, const predict::Observed& observed,
                        const SeedChoice& choice, const CardNames& names) {
  std::ostringstream o;
  std::size_t seen = 0;
  for (const auto& r : observed.records)
    for (int c : r) seen += c != predict::kUnseen;
  o << "melange predict: " << observed.records.size() << " record" << (observed.records.size() == 1 ? "" : "s")
    << " of a deck of " << observed.n << " (" << seen << " cards seen)\n";
  for (const FamilyResult& r : results) {
    o << "  " << r.family->name << ": seeds " << r.range.first << ".." << r.range.last
      << (r.complete ? "" : " (stopped before the end)") << ", " << r.matches.size() << " match"
      << (r.matches.size() == 1 ? "" : "es") << "; chance matches expected " << report::general(r.chance_matches, 3)
      << " for the first record, " << report::general(r.chance_matches_all, 3) << " for all\n";
    for (const predict::Match& m : r.matches) {
      o << "    seed " << seed_text(m.seed, choice) << " reproduces " << m.explained() << " of "
        << observed.records.size() << " records: " << m.pattern << "; chance matches expected "
        << predict::chance_text(m.log10_chance) << (predict::telling(m, observed) ? "" : " (no more than chance gives)") << "\n";
      for (std::size_t i = 1; i < m.dealt.size(); ++i)
        if (m.dealt[i].reseeded) o << "      record " << i + 1 << " reseeded with " << seed_text(m.dealt[i].seed, choice) << "\n";
      if (m.next_seed) o << "    next seed: " << seed_text(*m.next_seed, choice) << "\n";
      for (const auto& deck : m.next) o << "    next deal: " << deck_text(deck, names) << "\n";
    }
  }
  return o.str();
}

// --deal SEED: the decks a family deals from a seed, a line each, as the
// library would (what a match's "next deal" is made of).
int show_deals(const PredictArgs& a, const std::vector<const FamilyRow*>& families, const CardNames& names) {
  if (families.size() != 1) throw UsageError("--deal shows one family's deals: give one --family");
  const std::uint64_t seed = parse_seed(a.deal, "--deal");
  for (const auto& deck : predict::deal_decks(*families[0], seed, a.n > 0 ? a.n : 52, std::max(a.next, 1)))
    std::cout << deck_text(deck, names) << "\n";
  return 0;
}

// What every MPI rank must be given alike: the records, the deck, the
// families and their ranges, what is dealt on.
Team::Fingerprint rank_fingerprint(const predict::Observed& o, const std::vector<const FamilyRow*>& families,
                                   const std::vector<predict::SeedRange>& ranges, const predict::SearchOptions& options) {
  // FNV-1a: the same on every rank and build (a checkpoint outlives a build).
  std::uint64_t records = internal::kFnvOffset;
  for (const std::vector<int>& r : o.records) {
    for (int card : r) records = internal::fnv1a_step(records, static_cast<std::uint64_t>(card + 2));
    records = internal::fnv1a_step(records, 0);  // the record's end
  }
  Team::Fingerprint f{{"records", records},
                      {"n", static_cast<std::uint64_t>(o.n)},
                      {"next", static_cast<std::uint64_t>(options.next_deals)},
                      {"reseed window", options.reseed_window},
                      {"backend", options.one_by_one ? 1u : 0u}};
  for (std::size_t i = 0; i < families.size(); ++i) {
    f.emplace_back("family " + std::to_string(i), internal::fnv1a(families[i]->name));
    f.emplace_back("seeds from", ranges[i].first);
    f.emplace_back("seeds to", ranges[i].last);
  }
  return f;
}

// One family's scan: the whole range here, or under MPI this rank's share
// of it (contract §6's split), the seeds found gathered at rank 0 in order.
predict::Scanned scan(const Team& team, const FamilyRow& family, const predict::Observed& observed,
                      predict::SeedRange range, const predict::SearchOptions& options) {
  if (!team.many()) return predict::scan_family(family, observed, range, options);
  const Share share = share_of(range.first, range.size(), team.ranks()->rank(), team.size());
  predict::Scanned mine;
  if (share.trials > 0) mine = predict::scan_family(family, observed, {share.first, share.first + share.trials - 1}, options);
  std::vector<std::vector<std::uint64_t>> to_rank(static_cast<std::size_t>(team.size()));
  to_rank[0] = mine.seeds;
  predict::Scanned all;
  all.seeds = team.ranks()->all_to_all(to_rank);
  std::int64_t stopped[1] = {mine.complete ? 0 : 1};
  team.ranks()->max_all(stopped);
  all.complete = stopped[0] == 0;
  return all;
}

// Seeds a chunk: each family's range is scanned a chunk at a time, so that a
// checkpoint is saved between chunks and a stop loses at most the one under way.
constexpr std::uint64_t kChunkSeeds = std::uint64_t{1} << 22;

// Where the search starts: afresh, or where --resume's file left it (read
// at rank 0, its place in each range handed to every rank).
PredictProgress starting_progress(const PredictArgs& a, const Team& team, const Team::Fingerprint& search,
                                  const std::vector<predict::SeedRange>& ranges) {
  PredictProgress p;
  for (const predict::SeedRange& r : ranges) p.families.push_back({r.first, false, {}});
  if (a.resume.empty()) return p;
  if (team.root()) p = read_predict_checkpoint(a.resume, search);
  if (team.many()) {
    std::vector<std::uint64_t> places;
    for (const PredictProgress::Family& f : p.families) places.insert(places.end(), {f.next, f.done ? 1u : 0u});
    team.ranks()->broadcast(places);
    for (std::size_t i = 0; i < p.families.size(); ++i) p.families[i] = {places[2 * i], places[2 * i + 1] != 0, p.families[i].found};
  }
  return p;
}

// Every family's scan, chunk by chunk, saved to --checkpoint (by rank 0)
// every --checkpoint-every seconds, when stopped, and at the end.
std::vector<predict::Scanned> scan_all(const PredictArgs& a, const Team& team, const std::vector<const FamilyRow*>& families,
                                       const predict::Observed& observed, const std::vector<predict::SeedRange>& ranges,
                                       const predict::SearchOptions& options, const Team::Fingerprint& search) {
  PredictProgress progress = starting_progress(a, team, search, ranges);
  const bool saving = !a.checkpoint.empty() && team.root();
  auto last_save = std::chrono::steady_clock::now();
  ProgressLine line("predict", a.quiet || !team.root(), "families");
  bool stopped = false;
  for (std::size_t i = 0; i < families.size() && !stopped; ++i) {
    PredictProgress::Family& f = progress.families[i];
    while (!f.done) {
      line.update(i, families.size(), std::string(families[i]->name));
      const predict::SeedRange chunk{f.next, ranges[i].last - f.next < kChunkSeeds ? ranges[i].last : f.next + (kChunkSeeds - 1)};
      const predict::Scanned s = scan(team, *families[i], observed, chunk, options);
      if (!s.complete) {
        stopped = true;  // the chunk under way is scanned again on --resume
        break;
      }
      f.found.insert(f.found.end(), s.seeds.begin(), s.seeds.end());
      f.done = chunk.last == ranges[i].last;
      f.next = f.done ? chunk.last : chunk.last + 1;
      if (saving && std::chrono::steady_clock::now() - last_save >= std::chrono::duration<double>(a.checkpoint_every)) {
        save_predict_checkpoint(a.checkpoint, search, progress);
        last_save = std::chrono::steady_clock::now();
      }
    }
  }
  line.clear();
  if (saving) save_predict_checkpoint(a.checkpoint, search, progress);
  std::vector<predict::Scanned> out;
  for (PredictProgress::Family& f : progress.families) out.push_back({std::move(f.found), f.done});
  return out;
}

int run_predict(const PredictArgs& a, Team& team) {
  if (a.next < 0 || a.next > 1000) throw UsageError("--next takes 0 to 1000 deals");
  if (a.backend != "simd" && a.backend != "scalar")
    throw UsageError("--backend takes simd (seeds in vector lanes where a family has them) or scalar, got '" + a.backend + "'");
  const std::vector<const FamilyRow*> families = chosen_families(a.families);
  if (a.base != 0 && a.base != 1) throw UsageError("--base takes 0 or 1");
  const CardNames names{a.labels.empty() ? std::vector<std::string>{} : parse_labels(a.labels, 1 << 20), a.base};
  if (!a.deal.empty()) return show_deals(a, families, names);
  if (a.file.empty()) throw UsageError("give the deals: a FILE, or - for standard input");
  const int threads = thread_count(a.threads);
  Outputs outputs;
  if (!(a.checkpoint_every > 0)) throw UsageError("--checkpoint-every takes seconds above 0");
  if (!a.resume.empty() && a.checkpoint.empty())
    throw UsageError("--resume goes with --checkpoint (the file to go on saving to, often the same one)");
  if (team.root()) {  // rank 0 alone writes
    outputs.declare("--json", a.json);
    outputs.declare("--checkpoint", a.checkpoint);
    if (a.file != "-") outputs.refuse_reading("FILE", a.file);
  }
  const SeedChoice choice = seed_choice(a);
  const predict::Observed observed = read_observed(a.file, a.n, names.labels, a.base);
  predict::SearchOptions options;
  options.threads = threads;
  options.next_deals = a.next;
  options.reseed_window = parse_count(a.reseed_window, "--reseed-window", std::uint64_t{1} << 40);
  options.stop = [] { return signals::interrupted() != 0; };
  options.one_by_one = a.backend == "scalar";
  std::vector<predict::SeedRange> ranges;
  for (const FamilyRow* f : families) ranges.push_back(choice.range.value_or(predict::SeedRange{0, f->seed_space - 1}));

  const Team::Fingerprint search = rank_fingerprint(observed, families, ranges, options);
  CheckpointLock lock;
  if (team.root() && !a.checkpoint.empty()) lock = CheckpointLock(a.checkpoint);
  team.agree(search);

  if (!a.checkpoint.empty()) signals::defer_interrupt(true);  // a Ctrl-C saves, then stops
  const std::vector<predict::Scanned> scanned = scan_all(a, team, families, observed, ranges, options, search);
  signals::defer_interrupt(false);
  std::vector<FamilyResult> results;
  if (team.root())
    for (std::size_t i = 0; i < families.size(); ++i)
      results.push_back(predict::explain(*families[i], observed, ranges[i], scanned[i], options));
  if (!team.root()) return 0;  // rank 0 reports for every rank

  const auto [verdict, why] = predict::verdict_of(results, observed);
  std::string text = result_text(results, observed, choice, names) + "verdict: " + verdict + ": " + why + "\n";
  if (verdict == "PASS")
    text += "  (a PASS rules out only the families and seeds searched; a dealer seeded otherwise, or from more bits, "
            "is not ruled out)\n";
  if (!a.json.empty()) report::write_json(outputs.open(a.json), result_json(results, observed, verdict, choice));
  if (a.json != "-") std::cout << text;
  outputs.commit();
  if (signals::interrupted()) return 128 + signals::interrupted();
  return a.fail_on_bias && verdict == "FAIL" ? kExitBiased : 0;
}

}  // namespace

void add_predict_command(CLI::App& app, Action& action, Team& team) {
  auto a = std::make_shared<PredictArgs>();
  auto* cmd = app.add_subcommand("predict", "Find the seed behind a dealer built on a library shuffle, from its deals");
  cmd->add_option("file", a->file, "deals, a line each (cards 0-based, ? for one not seen), or - for standard input");
  cmd->add_option("--family", a->families, "families to search (default: all): " + predict::family_names(", "));
  cmd->add_option("--seeds", a->seeds, "LO..HI: the seeds to search (default: each family's whole space)");
  cmd->add_option("--clock", a->clock, "FROM..TO: search the clock's ticks between two times (Unix seconds or UTC dates)");
  cmd->add_option("--clock-unit", a->clock_unit, "s, ms or us: the tick of --clock (default s) or --since-midnight (default ms)");
  cmd->add_flag("--since-midnight", a->since_midnight, "search a day's ticks counted from midnight (Delphi's Randomize)");
  cmd->add_option("--reseed-window", a->reseed_window,
                  "W: a later record not dealt on is searched as a reseeding within W of the last seed (default 2^20; 0: none)");
  cmd->add_option("--n", a->n, "cards in the deck (default: the first record's length where it is a whole deck, else 52)");
  cmd->add_option("--next", a->next, "deals a match predicts after the records (default 1)");
  cmd->add_option("--labels", a->labels, "cards (2c..As: 52 names), a comma-separated list or a FILE: the records' cards by name");
  cmd->add_option("--base", a->base, "0 or 1: the number of the first card (default 0)");
  cmd->add_option("--threads", a->threads, "threads (default: one per hardware thread)");
  cmd->add_option("--json", a->json, "write the result as JSON to FILE (- for standard output)");
  cmd->add_option("--deal", a->deal, "SEED: show the --next decks (default 1) one --family deals from SEED, and stop");
  cmd->add_flag("--fail-on-bias", a->fail_on_bias, "exit 3 when a seed predicts the deals (verdict FAIL)");
  cmd->add_flag("--quiet", a->quiet, "no progress line");
  cmd->add_option("--checkpoint", a->checkpoint,
                  "FILE: save the search as it goes (every --checkpoint-every seconds, and on Ctrl-C or SIGTERM)");
  cmd->add_option("--checkpoint-every", a->checkpoint_every, "seconds between saves (default 60)");
  cmd->add_option("--resume", a->resume, "FILE: go on from a --checkpoint file of the same search");
  cmd->add_option("--backend", a->backend,
                  "simd (default: seeds in vector lanes where a family has them) or scalar (each seed dealt alone)");
  cmd->footer("Under 'mpirun -np K' each family's seeds are split over K ranks and rank 0 reports; the matches are "
              "the same.\nExit status: 0 searched; 3 a seed predicts the deals, with --fail-on-bias; 2 usage error; "
              "1 runtime error.");
  cmd->callback([a, &action, &team] { action = [a, &team] { return run_predict(*a, team); }; });
}

}  // namespace melange::cli
