// `melange sample`: the permutations themselves, for Monte Carlo code.
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "job_args.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "report.hpp"

namespace melange::cli {
namespace {

constexpr std::uint64_t kMaxSampleItemsOut = 1'000'000'000;  // items one call may print

int run_sample(const JobArgs& a) {
  Job job = make_job(a, "--count");
  if (job.trials * static_cast<std::uint64_t>(std::max(job.n, 1)) > kMaxSampleItemsOut)
    throw UsageError("--count x --n must stay within 1e9 items; sample in pieces with --first");
  RunOptions options;
  options.threads = thread_count(a);
  options.backend = backend_arg(a);
  const SampleResult result = sample(job, options);
  const std::vector<std::uint16_t>& perms = result.permutations;

  const auto n = static_cast<std::size_t>(job.n);
  if (!a.json.empty()) {
    Json j = json_header("sample");
    add_job_fields(j, job);
    j["count"] = job.trials;
    j["backend"] = backend_name(result.backend);
    if (!result.note.empty()) j["backend_note"] = result.note;
    Json rows = Json::array();
    for (std::size_t t = 0; t < job.trials; ++t)
      rows.push_back(std::vector<std::uint16_t>(perms.begin() + t * n, perms.begin() + (t + 1) * n));
    j["permutations"] = rows;
    emit_json(a.json, j);
  }
  if (a.json == "-") return 0;
  std::string out = "# melange sample: " + describe(job) + ", trials " + std::to_string(job.first) +
                    ".." + std::to_string(job.first + job.trials - 1) + ", backend " +
                    std::string(backend_name(result.backend)) +
                    (result.note.empty() ? "" : " (" + result.note + ")") + "\n";
  for (std::size_t t = 0; t < job.trials; ++t) {
    for (std::size_t i = 0; i < n; ++i) {
      out += std::to_string(perms[t * n + i]);
      out += i + 1 < n ? ' ' : '\n';
    }
    if (out.size() > (1u << 20)) {
      std::cout << out;
      out.clear();
    }
  }
  std::cout << out << std::flush;
  return 0;
}

}  // namespace

void add_sample_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<JobArgs>();
  a->trials = "10";
  auto* cmd = app.add_subcommand(
      "sample", "Print permutations of trials F..F+C-1, one per line (item at each position)");
  add_job_options(cmd, *a, JobOptionSet{.trials = false});
  cmd->add_option("--count", a->trials, "permutations to print (1e6 notation works)")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "write the result as JSON to FILE ('-': JSON on stdout only)");
  cmd->callback([a, &action] { action = [a] { return run_sample(*a); }; });
}

}  // namespace melange::cli
