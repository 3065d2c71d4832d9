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
#include "melange/report/format.hpp"
#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/checkpoint.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "merge_pieces.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/job_text.hpp"

namespace melange::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> files;
  AuditFiles out;
  double weak = kDefaultWeak, fail = kDefaultFail, alpha = kDefaultAlpha;
  bool fail_on_bias = false;
  std::string memory_cap = std::to_string(kDefaultMemoryCap);
};

std::string range_text(const Job& job) {
  return "trials " + std::to_string(job.first) + ".." + std::to_string(job.first + job.trials - 1);
}

// The pieces' jobs and ranges: one job, ranges that join without gaps or
// overlaps; sorted by range.
std::vector<MergePiece> read_plan(const std::vector<std::string>& files) {
  std::vector<MergePiece> pieces;
  for (const std::string& path : files) {
    for (const MergePiece& p : pieces)
      if (std::filesystem::equivalent(p.path, path))
        throw UsageError(in_quotes(p.path) + " and " + in_quotes(path) + " are the same file: give each piece once");
    pieces.push_back(read_piece_job(path));
    const MergePiece& p = pieces.back();
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
  std::sort(pieces.begin(), pieces.end(),
            [](const MergePiece& x, const MergePiece& y) { return x.job.first < y.job.first; });
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
  return pieces;
}

int run_merge(const MergeArgs& a) {
  if (!(a.fail > 0 && a.fail <= a.weak && a.weak < 0.5))
    throw UsageError("thresholds need 0 < --fail <= --weak < 0.5");
  if (!(a.alpha > 0 && a.alpha < 1)) throw UsageError("--alpha must lie strictly between 0 and 1, such as 0.05");
  const std::uint64_t cap = parse_count(a.memory_cap, "--memory-cap", ~std::uint64_t{0});
  const std::vector<MergePiece> pieces = read_plan(a.files);

  Job job = pieces.front().job;
  for (std::size_t i = 1; i < pieces.size(); ++i) job.trials += pieces[i].job.trials;
  // The merged tally, and each later piece's as it is read: two tallies at
  // most, whatever the number of pieces; checked before either is made.
  const std::uint64_t tallies = tally_bytes(job) * (pieces.size() > 1 ? 2 : 1);
  const std::uint64_t reserve = output_reserve(cap);
  if (tallies > cap - reserve)
    throw UsageError("merging pieces of n = " + std::to_string(job.n) + " holds " +
                     (pieces.size() > 1 ? "two tallies" : "a tally") + " of " +
                     (tally_bytes(job) >= (~std::uint64_t{0} >> 2) ? std::string("more than 2^62")
                                                                   : grouped(tally_bytes(job))) +
                     " bytes, above --memory-cap " + grouped(cap) + " (less " + grouped(reserve) +
                     " for the outputs): raise --memory-cap");
  Outputs outputs;
  const DeclaredAuditFiles files = declare_audit_files(outputs, a.out, job);

  RunResult run;
  run.tally = read_piece_tally(pieces.front(), cap - reserve);
  run.backend = pieces.front().backend;
  run.threads = pieces.front().threads;
  std::string from = pieces.front().path + " (" + range_text(pieces.front().job) + ")";
  for (std::size_t i = 1; i < pieces.size(); ++i) {
    run.tally.merge(read_piece_tally(pieces[i], cap - reserve - tally_bytes(job)));
    if (pieces[i].backend != run.backend) run.backend = "mixed";
    run.threads = std::max(run.threads, pieces[i].threads);
    from += ", " + pieces[i].path + " (" + range_text(pieces[i].job) + ")";
  }
  run.note = "merged from " + std::to_string(pieces.size()) + (pieces.size() == 1 ? " result: " : " results: ") + from;

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
  cmd->add_option("--memory-cap", a->memory_cap,
                  "bytes the merge may hold: the merged tally and the piece being read (pieces are streamed)")
      ->capture_default_str();
  cmd->footer("The result equals one 'melange audit' over the union of the ranges, tested against uniform.\n"
              "Exit status: 0 merged; 3 with --fail-on-bias when a test FAILed; 2 pieces that are not one job, "
              "that overlap or leave a gap, or other usage errors; 1 runtime error.");
  cmd->callback([a, &action] { action = [a] { return run_merge(*a); }; });
}

}  // namespace melange::cli
