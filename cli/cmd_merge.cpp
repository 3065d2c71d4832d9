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

int run_merge(const MergeArgs& a) {
  if (!(a.fail > 0 && a.fail <= a.weak && a.weak < 0.5))
    throw UsageError("thresholds need 0 < --fail <= --weak < 0.5");
  if (!(a.alpha > 0 && a.alpha < 1)) throw UsageError("--alpha must lie strictly between 0 and 1, such as 0.05");
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
                  "without gaps or overlaps, in any order")
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
