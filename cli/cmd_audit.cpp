// `melange audit`: run a job, tally it, test it, grade it.
#include <fstream>
#include <iostream>
#include <memory>

#include "command.hpp"
#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "artifacts.hpp"
#include "progress.hpp"
#include "report.hpp"

namespace melange::cli {
namespace {

struct AuditArgs {
  JobArgs job;
  bool position = false;
  bool no_rank = false;
  std::string model;  // "exact" or a file written by `melange exact --json`
  std::string memory_cap = "1073741824";
  double weak = 0.005, fail = 1e-6, alpha = 0.05;
  std::string svg, csv, report_dir;
  bool fail_on_bias = false, quiet = false;
};

constexpr int kExitBiased = 3;

// With both tallies, the rank table goes to FILE and the matrix to FILE's
// name with "-position" before the extension.
std::string position_csv_path(const std::string& csv, bool has_ranks) {
  if (!has_ranks) return csv;
  const auto dot = csv.rfind('.');
  const auto slash = csv.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return csv + "-position";
  return csv.substr(0, dot) + "-position" + csv.substr(dot);
}

int run_audit(const AuditArgs& a) {
  Job job = make_job(a.job);
  job.position_matrix = a.position;
  job.rank_memory_cap = parse_count(a.memory_cap, "--memory-cap", ~std::uint64_t{0});
  // With --position, n beyond the rank histogram's reach simply skips it.
  job.rank_histogram =
      !a.no_rank && !(a.position && job.n > max_rank_items(job.rank_memory_cap));
  if (!(a.fail > 0 && a.fail <= a.weak && a.weak < 0.5))
    throw UsageError("thresholds need 0 < --fail <= --weak < 0.5");
  RunOptions options;
  options.threads = thread_count(a.job);
  options.backend = backend_arg(a.job);
  // run() and analyze() check these too; checking here fails a bad request
  // before the exact model or the trials are computed.
  validate(job);

  std::unique_ptr<ExactDistribution> model;
  if (a.model == "exact") {
    model = std::make_unique<ExactDistribution>(
        exact_distribution(job.algorithm, job.n, job.spec, options.threads));
  } else if (!a.model.empty()) {
    std::ifstream in(a.model);
    if (!in) throw UsageError("cannot read --model file '" + a.model + "'");
    Json j;
    try {
      j = Json::parse(in);
    } catch (const nlohmann::json::exception&) {
      throw UsageError("--model file '" + a.model + "' is not JSON");
    }
    model = std::make_unique<ExactDistribution>(exact_from_json(j));
  }
  if (model && model->n != job.n)
    throw UsageError("--model is for n = " + std::to_string(model->n) + " but the audit has n = " +
                     std::to_string(job.n) + "; make the model with the same --n");

  ProgressLine progress("audit", a.quiet);
  if (progress.enabled())
    options.progress = [&progress](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };
  const RunResult run = melange::run(job, options);
  progress.clear();
  AuditOptions audit;
  audit.thresholds = Thresholds{a.weak, a.fail};
  audit.alpha = a.alpha;
  audit.model = model.get();
  const AuditReport report = analyze(job, run.tally, audit);

  const AuditView view{job, run, report, model.get(), a.model};
  emit_json(a.job.json, audit_json(job, run, report));
  if (!a.svg.empty()) write_output(a.svg, audit_svg(view));
  if (!a.csv.empty()) {
    if (job.rank_histogram) write_output(a.csv, audit_rank_csv(view));
    if (job.position_matrix)
      write_output(position_csv_path(a.csv, job.rank_histogram), audit_position_csv(view));
  }
  if (!a.report_dir.empty()) write_output(report_page(a.report_dir), audit_html(view));
  if (a.job.json != "-") std::cout << audit_text(job, run, report, model.get()) << std::flush;
  return a.fail_on_bias && report.verdict == Verdict::fail ? kExitBiased : 0;
}

}  // namespace

void add_audit_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<AuditArgs>();
  auto* cmd = app.add_subcommand(
      "audit", "Run a shuffle many times, tally the orders, and test them for bias");
  add_job_options(cmd, a->job);
  cmd->add_flag("--position", a->position, "also tally the item x position matrix (any n <= 1024)");
  cmd->add_flag("--no-rank", a->no_rank, "skip the n! rank histogram (with --position)");
  cmd->add_option("--model", a->model,
                  "test against 'exact' (the algorithm's exact distribution) or a FILE written by "
                  "'melange exact --json', instead of uniform");
  cmd->add_option("--memory-cap", a->memory_cap, "bytes the n! rank bins may take")
      ->capture_default_str();
  cmd->add_option("--weak", a->weak, "p below this (or above 1 - it) is WEAK")->capture_default_str();
  cmd->add_option("--fail", a->fail, "p below this (or above 1 - it) is FAIL")->capture_default_str();
  cmd->add_option("--alpha", a->alpha, "level of the printed critical values")->capture_default_str();
  cmd->add_option("--json", a->job.json, "write the result as JSON to FILE ('-': JSON on stdout only)");
  cmd->add_option("--svg", a->svg, "write the charts to FILE: orders against the expected line and "
                                   "its 3-sigma band, and the position heatmap");
  cmd->add_option("--csv", a->csv, "write rank,label,count,expected,residual to FILE (and the matrix "
                                   "to FILE-position.csv, or to FILE with --no-rank)");
  cmd->add_option("--report", a->report_dir, "write a self-contained HTML report to DIR/index.html");
  cmd->add_flag("--fail-on-bias", a->fail_on_bias, "exit with status 3 when a test FAILs after Holm");
  cmd->add_flag("--quiet", a->quiet, "no progress line on the terminal");
  cmd->footer("Exit status: 0 ran (PASS/WEAK, or no verdict); 3 with --fail-on-bias when a test "
              "FAILed; 2 usage error; 1 runtime error.");
  cmd->callback([a, &action] { action = [a] { return run_audit(*a); }; });
}

}  // namespace melange::cli
