// `melange merge`: the results of one job over disjoint trial ranges whose
// union is contiguous become the result of one run over the union (contract
// §6; report::merge_results does the merging). This is how a job
// array without MPI splits an audit.
#include <algorithm>
#include <charconv>
#include <memory>
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
#include "melange/audit_plan.hpp"
#include "melange/exact.hpp"
#include "melange/checkpoint.hpp"
#include "melange/record_checkpoint.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/job_text.hpp"
#include "melange/report/merge.hpp"

namespace melange::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> files;
  AuditFiles out;
  double weak = kDefaultWeak, fail = kDefaultFail, alpha = kDefaultAlpha;
  bool fail_on_bias = false;
  std::string memory_cap = "1G";
  static_assert(kDefaultMemoryCap == std::uint64_t{1} << 30, "the default --memory-cap is written 1G");
  std::string model;  // "" : the one the pieces name
};

// The pieces' law: the one they name, or --model where they name none (a
// checkpoint does not); --model must agree with a law they name.
std::string merged_model(const MergeArgs& a, const MergePlan& plan) {
  if (!a.model.empty() && plan.model && *plan.model != a.model)
    throw UsageError("--model " + a.model + " is not the law the results were tested against (" +
                     (plan.model->empty() ? std::string("uniform") : *plan.model) +
                     "): leave out --model, or merge results of an audit against it");
  return a.model.empty() ? plan.model.value_or("") : a.model;
}

// The weights as the rationals their shortest decimals spell (the form
// the audit's document wrote them in).
std::vector<Rational> weight_rationals(const Job& job) {
  std::vector<Rational> w;
  for (double x : job.weights) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, x).ptr;
    w.push_back(decimal_rational(std::string(text, end)));
  }
  return w;
}

// The law named by `model` for the merged job, as `audit` builds it; a
// model file that is gone is refused by name.
std::shared_ptr<const ExactDistribution> merged_law(const std::string& model, const Job& job,
                                                    std::uint64_t memory_cap) {
  if (model.empty()) return nullptr;
  AuditRequest request;
  request.job = job;
  request.law = model == "exact"           ? ReferenceLaw::exact
                : model == "plackett-luce" ? ReferenceLaw::plackett_luce
                                           : ReferenceLaw::given;
  if (request.law == ReferenceLaw::given) request.given = read_model(model, memory_cap);
  if (request.law == ReferenceLaw::exact) check_exact_law(job.algorithm);
  AuditPlan plan;
  plan.job = job;
  return reference_law(request, plan, weight_rationals(job));
}

// Whether the pieces are audits of records (--checkpoint of a file audit):
// the first names the kind.
bool record_pieces(const std::vector<std::string>& files) {
  std::ifstream in(files.front(), std::ios::binary);
  return in && is_record_checkpoint(in);
}

// One piece of a log, read and checked as one of `first`'s log.
RecordCheckpoint read_piece(const std::string& path, std::uint64_t cap, const RecordCheckpoint* first) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError("'" + path + "' is not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read '" + path + "'");
  if (!is_record_checkpoint(in))
    throw UsageError("'" + path + "' is not the checkpoint of an audit of records, as '" + (first ? "the first" : path) +
                     "' is: merge pieces of one kind");
  RecordCheckpoint c = read_record_checkpoint(in, path, cap);
  if (!c.finished())
    throw UsageError("'" + path + "' stopped before the end of its records: finish it with 'melange audit ... "
                     "--resume " + path + "', then merge");
  if (!first) return c;
  Job theirs = c.job;
  theirs.trials = first->job.trials;
  std::string difference = job_difference(first->job, theirs, "in the first piece", "in '" + path + "'");
  if (difference.empty() && (c.format != first->format || c.base != first->base || c.lags != first->lags ||
                             c.hands != first->hands || c.position != first->position || c.rank != first->rank ||
                             c.labels != first->labels))
    difference = "records read another way (--format, --base, --lag, --hands, --position, --no-rank, --labels)";
  if (!difference.empty())
    throw UsageError("'" + path + "' is not a piece of the same audit as the first (" + difference +
                     "): merge pieces audited with the same flags");
  return c;
}

// Pieces of one log, each audited with --checkpoint, in the log's order:
// each appended to the ones before (the pairs across each cut counted
// once), reported as one audit of the whole log.
int run_record_merge(const MergeArgs& a, std::uint64_t cap) {
  RecordCheckpoint first = read_piece(a.files.front(), cap, nullptr);
  AuditRequest request;
  request.job = first.job;
  request.job.trials = 0;
  request.records = true;
  request.position = first.position;
  request.rank = first.rank;
  request.hands = first.hands;
  request.stream_tests = !first.lags.empty();
  if (!first.lags.empty()) request.lags = first.lags;
  request.law = a.model.empty()                ? ReferenceLaw::uniform
                : a.model == "exact"           ? ReferenceLaw::exact
                : a.model == "plackett-luce"   ? ReferenceLaw::plackett_luce
                                               : ReferenceLaw::given;
  request.memory_cap = cap;
  request.reserve = program_reserve(cap);
  request.held_states = 2;  // the piece being read: its words, and it restored
  if (request.law == ReferenceLaw::given) request.given = read_model(a.model, cap);
  const AuditPlan plan = plan_audit(request);
  if (plan.job.tallies != first.job.tallies)
    throw UsageError("'" + a.files.front() + "' was counted with other tallies than this melange plans for it: "
                     "merge with the melange that audited the pieces");
  Outputs outputs;
  const DeclaredAuditFiles files = declare_audit_files(outputs, a.out, plan.job);
  for (const std::string& path : a.files) outputs.refuse_reading("merge piece", path);

  const std::shared_ptr<const ExactDistribution> law = merged_law(a.model, plan.job, cap);
  const std::optional<StatisticLaw> statistic_law = statistic_model(request, plan);
  AuditOptions audit = planned_options(plan, law.get(), statistic_law);
  audit.thresholds = Thresholds{a.weak, a.fail};
  audit.alpha = a.alpha;
  audit.records = true;
  // A piece's auditor from its words, which go once it holds them (the
  // plan holds a piece's words and the piece beside the total).
  const auto restored = [&](RecordCheckpoint& c) {
    auto auditor = std::make_unique<RecordAuditor>(plan.job, audit, RecordLooks{}, plan.stream);
    try {
      auditor->restore(c.state);
    } catch (const Error& e) {
      throw UsageError(std::string("a piece cannot be merged: ") + e.what());
    }
    std::vector<std::uint64_t>().swap(c.state);
    return auditor;
  };
  const std::unique_ptr<RecordAuditor> total = restored(first);
  InputInfo input{first.inputs.front().path, first.format, first.base, first.invalid, first.first_invalid, "",
                  first.labels};
  for (const RecordCheckpoint::Input& i : first.inputs) input.files.push_back(i.path);
  for (std::size_t p = 1; p < a.files.size(); ++p) {
    RecordCheckpoint c = read_piece(a.files[p], cap, &first);
    total->append(*restored(c));
    input.invalid += c.invalid;
    if (input.first_invalid.empty()) input.first_invalid = c.first_invalid;
    for (const RecordCheckpoint::Input& i : c.inputs) input.files.push_back(i.path);
  }
  if (input.files.size() == 1) input.files.clear();
  const Job job = total->job();
  const RunResult run = total->result();
  const auto stream = total->stream();
  audit.stream = stream.get();
  AuditReport report = planned_report(plan, job, run.tally, audit, a.model);
  report.reproduce = "melange merge";
  for (const std::string& path : a.files) report.reproduce += " " + shell_word(path);
  if (!a.model.empty()) report.reproduce += " --model " + shell_word(a.model);
  report.notes.push_back(std::to_string(a.files.size()) + " pieces of one log, in the order given: the records "
                         "across each cut are read as one stream (the lags, serial pairs, gaps and repeats across "
                         "it counted once)");
  report.notes.push_back("no seed search on merged pieces: 'melange predict' on the log's first records runs it");
  const AuditView view{job, run, report, law.get(), a.model, &input, audit.statistic_model};
  write_audit_files(outputs, files, view);
  if (a.out.json != "-") std::cout << audit_text(job, run, report, law.get(), &input);
  outputs.commit();
  return a.fail_on_bias && report.verdict == Verdict::fail ? kExitBiased : 0;
}

int run_merge(const MergeArgs& a) {
  if (!(a.fail > 0 && a.fail <= a.weak && a.weak < 0.5))
    throw UsageError("thresholds need 0 < --fail <= --weak < 0.5");
  if (!(a.alpha > 0 && a.alpha < 1)) throw UsageError("--alpha must lie strictly between 0 and 1, such as 0.05");
  if (record_pieces(a.files)) return run_record_merge(a, parse_bytes(a.memory_cap, "--memory-cap"));
  const std::uint64_t cap = parse_bytes(a.memory_cap, "--memory-cap");
  const std::uint64_t reserve = program_reserve(cap);
  const MergePlan plan = plan_merge(a.files, cap - reserve);
  merged_model(a, plan);  // a --model that disagrees is refused before the counts are read
  Outputs outputs;
  const DeclaredAuditFiles files = declare_audit_files(outputs, a.out, plan.job);
  const MergedResult merged = merge(plan);
  const Job& job = merged.job;
  const RunResult& run = merged.run;

  const std::string model = merged_model(a, plan);
  const std::shared_ptr<const ExactDistribution> law = merged_law(model, plan.job, plan.memory_cap);
  AuditOptions audit;
  audit.thresholds = Thresholds{a.weak, a.fail};
  audit.alpha = a.alpha;
  audit.model = law.get();
  AuditReport report = analyze(job, run.tally, audit);
  report.model = model;
  report.notes.insert(report.notes.begin(), merged.left_out.begin(), merged.left_out.end());
  if (!plan.model && model.empty())
    report.notes.push_back("tested against uniform: checkpoints do not record a model; merge with --model to "
                           "test against one");
  if (has_serial_kinds(job.tallies) && !job.tallies.has(TallyKind::ranks) && !job.tallies.has(TallyKind::hands))
    report.notes.push_back("repeats test not merged: without a histogram of every record the repeats are the "
                           "trials' fingerprints, which pieces do not keep; run the whole range in one audit "
                           "(MPI ranks and --resume keep it)");
  const AuditView view{job, run, report, law.get(), model, nullptr};
  write_audit_files(outputs, files, view);
  if (a.out.json != "-") std::cout << audit_text(job, run, report, law.get());
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
                  "without gaps or overlaps, in any order; or the --checkpoint files of audits of consecutive "
                  "pieces of one log of records, in the log's order")
      ->required();
  cmd->add_option("--json", a->out.json, "write the merged result as JSON to FILE ('-': JSON on stdout only)");
  cmd->add_option("--svg", a->out.svg, "write the charts to FILE");
  cmd->add_option("--csv", a->out.csv, "write the tables to FILE (parts beside it, as audit does)");
  cmd->add_option("--report", a->out.report_dir, "write a self-contained HTML report to DIR/index.html");
  cmd->add_option("--model", a->model,
                  "the law to test the merged counts against, where the results do not name one "
                  "(checkpoints): 'exact', 'plackett-luce' or a FILE from 'melange exact --json'; by default "
                  "the one the audits' JSON names");
  cmd->add_option("--weak", a->weak, "p below this (or above 1 - it) is WEAK")->capture_default_str();
  cmd->add_option("--fail", a->fail, "p below this (or above 1 - it) is FAIL")->capture_default_str();
  cmd->add_option("--alpha", a->alpha, "level of the printed critical values")->capture_default_str();
  cmd->add_flag("--fail-on-bias", a->fail_on_bias, "exit with status 3 when a test FAILs after Holm");
  cmd->add_option("--memory-cap", a->memory_cap,
                  "bytes the merge may hold (2G, 512M: K, M, G, T are powers of 1024): the program itself, the "
                  "merged tally and the piece being read (pieces are streamed)")
      ->type_name("BYTES")
      ->capture_default_str();
  cmd->footer("The result equals one 'melange audit' over the union of the ranges, tested against uniform.\n"
              "Exit status: 0 merged; 3 with --fail-on-bias when a test FAILed; 2 pieces that are not one job, "
              "that overlap or leave a gap, or other usage errors; 1 runtime error.");
  cmd->callback([a, &action] { action = [a] { return run_merge(*a); }; });
}

}  // namespace melange::cli
