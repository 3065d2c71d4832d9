// `melange merge`: the results of one job over disjoint trial ranges whose
// union is contiguous become the result of one run over the union (DESIGN.md
// section 8). Tallies are sums, so the merged report is the one a single
// run gives; this is how a job array without MPI splits an audit.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numeric>

#include "audit_files.hpp"
#include "command.hpp"
#include "exit_codes.hpp"
#include "format.hpp"
#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/checkpoint.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "output.hpp"
#include "report.hpp"

namespace melange::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> files;
  AuditFiles out;
  double weak = kDefaultWeak, fail = kDefaultFail, alpha = kDefaultAlpha;
  bool fail_on_bias = false;
};

// One result: the job over its own range and that range's tally.
struct Piece {
  std::string path;
  Job job;  // first and trials: this piece's range
  Tally tally;
  std::string backend;
  int threads = 1;
  std::vector<std::string> left_out;  // the audit's notes on tallies it left out
};

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

std::uint64_t sum(const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

// Reads the counts at `key` into `into`, which has the size the job gives.
void read_counts(const Json& j, const char* key, std::vector<std::uint64_t>& into, const std::string& path) {
  const Json& a = j.at(key);
  if (!a.is_array() || a.size() != into.size())
    throw UsageError(in_quotes(path) + " has " + std::to_string(a.is_array() ? a.size() : 0) + " counts in \"" + key +
                     "\" where its job has " + std::to_string(into.size()));
  for (std::size_t i = 0; i < into.size(); ++i) into[i] = a[i].get<std::uint64_t>();
}

Piece piece_from_json(const std::string& path, const Json& j) {
  const auto refuse = [&](const std::string& why) { return UsageError(in_quotes(path) + " " + why); };
  if (j.value("command", "") != "audit")
    throw refuse("is not the JSON of 'melange audit': merge takes 'audit --json' results and --checkpoint files");
  if (j.contains("input"))
    throw refuse("audits records from another program, which have no trial range: merge joins melange's own jobs");
  if (j.value("stream_version", 0) != kStreamVersion)
    throw refuse("was drawn with stream version " + std::to_string(j.value("stream_version", 0)) +
                 ", and this melange draws version " + std::to_string(kStreamVersion));
  Piece p;
  p.path = path;
  Job& job = p.job;
  job.seed = j.at("seed").get<std::uint64_t>();
  const auto algorithm = parse_algorithm(j.at("algorithm").get<std::string>());
  const auto method = parse_method(j.at("method").get<std::string>());
  if (!algorithm || !method) throw refuse("names an algorithm or method this melange does not know");
  job.algorithm = *algorithm;
  job.spec = BoundedSpec{*method, j.at("bits").get<int>()};
  job.n = j.at("n").get<int>();
  job.k = j.value("k", 0);
  if (j.contains("weights")) job.weights = j.at("weights").get<std::vector<double>>();
  job.first = j.at("first").get<std::uint64_t>();
  job.trials = j.at("trials").get<std::uint64_t>();
  job.rank_histogram = j.contains("histogram");
  job.position_matrix = j.contains("position");
  job.hand_histogram = j.contains("hand_bins");
  job.poker_categories = j.contains("poker_categories");
  try {
    validate(job);
  } catch (const UsageError& e) {
    throw refuse(std::string("holds a job this melange refuses: ") + e.what());
  }
  if (job.hand_histogram && !j.contains("hands"))
    throw refuse("gives the hand test but not the counts of its " + grouped(j.at("hand_bins").get<std::uint64_t>()) +
                 " hands (too many for JSON): merge the --checkpoint files of such runs instead");
  Tally& t = p.tally;
  t = Tally::for_job(job);
  if (job.rank_histogram) read_counts(j, "histogram", t.ranks.counts(), path);
  if (job.position_matrix) {
    const Json& rows = j.at("position");
    const int k = shape_of(job).k;
    if (!rows.is_array() || rows.size() != static_cast<std::size_t>(job.n))
      throw refuse("has a position matrix of the wrong size for its job");
    for (int item = 0; item < job.n; ++item) {
      if (!rows[item].is_array() || rows[item].size() != static_cast<std::size_t>(k))
        throw refuse("has a position matrix of the wrong size for its job");
      for (int pos = 0; pos < k; ++pos)
        t.positions.counts()[static_cast<std::size_t>(item) * k + pos] = rows[item][pos].get<std::uint64_t>();
    }
  }
  if (job.hand_histogram) read_counts(j, "hands", t.hands, path);
  if (job.poker_categories) {
    const Json& rows = j.at("poker_categories");
    if (!rows.is_array() || rows.size() != t.categories.size()) throw refuse("has the wrong number of poker categories");
    for (std::size_t c = 0; c < t.categories.size(); ++c) t.categories[c] = rows[c].at("count").get<std::uint64_t>();
  }
  t.trials = job.trials;
  t.words = j.at("words_consumed").get<std::uint64_t>();
  t.draws = j.at("draws").get<std::uint64_t>();
  const std::uint64_t slots = job.position_matrix ? static_cast<std::uint64_t>(shape_of(job).k) : 0;
  if ((job.rank_histogram && sum(t.ranks.counts()) != job.trials) ||
      (job.position_matrix && sum(t.positions.counts()) != job.trials * slots) ||
      (job.hand_histogram && sum(t.hands) != job.trials) || (job.poker_categories && sum(t.categories) != job.trials))
    throw refuse("has counts that do not add up to its " + grouped(job.trials) + " trials: it was changed or cut short");
  p.backend = j.value("backend", "");
  p.threads = j.value("threads", 1);
  // Why a histogram was left out is the audit's choice (its memory cap),
  // not the tallies': it carries over as the audit wrote it.
  if (j.contains("stats") && j["stats"].contains("notes"))
    for (const Json& note : j["stats"]["notes"])
      if (note.is_string() && note.get<std::string>().find(" left out: ") != std::string::npos)
        p.left_out.push_back(note.get<std::string>());
  return p;
}

Piece read_piece(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError(in_quotes(path) + " is not a file; give the results to merge as files");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read " + in_quotes(path));
  if (in.peek() == 'm') {
    // A checkpoint: its prefix done is its range.
    Checkpoint c = read_checkpoint(in, path);
    Piece p{path, std::move(c.job), std::move(c.tally), "checkpoint", 1, {}};
    p.job.trials = p.tally.trials;
    return p;
  }
  Json j;
  try {
    j = Json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(in_quotes(path) + " is neither JSON nor a checkpoint: give 'audit --json' results or --checkpoint files");
  }
  try {
    return piece_from_json(path, j);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(in_quotes(path) + " lacks a field of 'audit --json' results, or has one of the wrong type");
  }
}

std::string range_text(const Job& job) {
  return "trials " + std::to_string(job.first) + ".." + std::to_string(job.first + job.trials - 1);
}

int run_merge(const MergeArgs& a) {
  if (!(a.fail > 0 && a.fail <= a.weak && a.weak < 0.5))
    throw UsageError("thresholds need 0 < --fail <= --weak < 0.5");
  if (!(a.alpha > 0 && a.alpha < 1)) throw UsageError("--alpha must lie strictly between 0 and 1, such as 0.05");
  std::vector<Piece> pieces;
  for (const std::string& path : a.files) {
    for (const Piece& p : pieces)
      if (std::filesystem::equivalent(p.path, path))
        throw UsageError(in_quotes(p.path) + " and " + in_quotes(path) + " are the same file: give each piece once");
    pieces.push_back(read_piece(path));
    const Piece& p = pieces.back();
    if (p.job.trials == 0) throw UsageError(in_quotes(path) + " holds no trials yet: leave it out");
    Job same_range = p.job;
    same_range.first = pieces.front().job.first;
    same_range.trials = pieces.front().job.trials;
    const std::string difference = job_difference(pieces.front().job, same_range, "in " + in_quotes(pieces.front().path),
                                                  "in " + in_quotes(path));
    if (!difference.empty())
      throw UsageError(in_quotes(pieces.front().path) + " and " + in_quotes(path) + " are different jobs (" + difference +
                       "): merge pieces of one job");
  }
  std::sort(pieces.begin(), pieces.end(), [](const Piece& x, const Piece& y) { return x.job.first < y.job.first; });
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    const Job& before = pieces[i - 1].job;
    const Job& after = pieces[i].job;
    const std::uint64_t end = before.first + before.trials;  // validated: no wrap past 2^64
    if (after.first < end || (end == 0 && before.trials > 0))
      throw UsageError(in_quotes(pieces[i - 1].path) + " (" + range_text(before) + ") and " + in_quotes(pieces[i].path) +
                       " (" + range_text(after) + ") overlap: each trial must be in one piece");
    if (after.first > end)
      throw UsageError("trials " + std::to_string(end) + ".." + std::to_string(after.first - 1) + " are in no piece (" +
                       in_quotes(pieces[i - 1].path) + " ends before them, " + in_quotes(pieces[i].path) +
                       " starts after them): run them and merge that piece too");
  }

  Job job = pieces.front().job;
  RunResult run;
  run.tally = std::move(pieces.front().tally);
  run.backend = pieces.front().backend;
  run.threads = pieces.front().threads;
  std::string from = pieces.front().path + " (" + range_text(pieces.front().job) + ")";
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    job.trials += pieces[i].job.trials;
    run.tally.merge(pieces[i].tally);
    if (pieces[i].backend != run.backend) run.backend = "mixed";
    run.threads = std::max(run.threads, pieces[i].threads);
    from += ", " + pieces[i].path + " (" + range_text(pieces[i].job) + ")";
    pieces[i].tally = Tally{};  // memory goes as the merge goes
  }
  run.note = "merged from " + std::to_string(pieces.size()) + (pieces.size() == 1 ? " result: " : " results: ") + from;

  Outputs outputs;
  const DeclaredAuditFiles files = declare_audit_files(outputs, a.out, job);
  AuditOptions audit;
  audit.thresholds = Thresholds{a.weak, a.fail};
  audit.alpha = a.alpha;
  AuditReport report = analyze(job, run.tally, audit);
  report.notes.insert(report.notes.begin(), pieces.front().left_out.begin(), pieces.front().left_out.end());
  const AuditView view{job, run, report, nullptr, "", nullptr};
  write_audit_files(outputs, files, view);
  if (a.out.json != "-") std::cout << audit_text(job, run, report, nullptr);
  outputs.commit();
  return a.fail_on_bias && report.verdict == Verdict::fail ? kExitBiased : 0;
}

}  // namespace

void add_merge_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<MergeArgs>();
  auto* cmd = app.add_subcommand(
      "merge", "Join the results of one audit job over disjoint trial ranges into the result of one run");
  cmd->add_option("files", a->files,
                  "'audit --json' results or --checkpoint files of one job whose trial ranges join up "
                  "without gaps or overlaps, in any order")
      ->required();
  cmd->add_option("--json", a->out.json, "write the merged result as JSON to FILE ('-': JSON on stdout only)");
  cmd->add_option("--svg", a->out.svg, "write the charts to FILE");
  cmd->add_option("--csv", a->out.csv, "write the tables to FILE (parts beside it, as audit does)");
  cmd->add_option("--report", a->out.report_dir, "write a self-contained HTML report to DIR/index.html");
  cmd->add_option("--weak", a->weak, "p below this (or above 1 - it) is WEAK")->capture_default_str();
  cmd->add_option("--fail", a->fail, "p below this (or above 1 - it) is FAIL")->capture_default_str();
  cmd->add_option("--alpha", a->alpha, "level of the printed critical values")->capture_default_str();
  cmd->add_flag("--fail-on-bias", a->fail_on_bias, "exit with status 3 when a test FAILs after Holm");
  cmd->footer("The result equals one 'melange audit' over the union of the ranges, tested against uniform.\n"
              "Exit status: 0 merged; 3 with --fail-on-bias when a test FAILed; 2 pieces that are not one job, "
              "that overlap or leave a gap, or other usage errors; 1 runtime error.");
  cmd->callback([a, &action] { action = [a] { return run_merge(*a); }; });
}

}  // namespace melange::cli
