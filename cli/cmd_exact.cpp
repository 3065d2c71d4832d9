// `melange exact`: the exact distribution of an algorithm over every random path.
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "command.hpp"
#include "format.hpp"
#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/rank.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "artifacts.hpp"
#include "progress.hpp"
#include "report.hpp"

namespace melange::cli {
namespace {

int run_exact(const JobArgs& a, const std::string& svg, bool quiet) {
  const Algorithm algo = parse_algorithm_arg(a.algo);
  const BoundedSpec spec = parse_spec_args(a);
  const double trials = static_cast<double>(parse_count(a.trials, "--trials", ~std::uint64_t{0}));
  if (trials < 1) throw UsageError("--trials must be at least 1");
  const int threads = thread_count(a);
  Outputs outputs;
  outputs.declare("--json", a.json);
  outputs.declare("--svg", svg);
  ProgressLine progress("exact", quiet, "subtrees");
  std::function<void(std::uint64_t, std::uint64_t)> report;
  if (progress.enabled())
    report = [&progress](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };
  const ExactDistribution d = exact_distribution(algo, a.n, spec, threads, report);
  progress.clear();
  const Json j = exact_json(d, trials);
  if (!a.json.empty()) write_json(outputs.open(a.json), j);
  if (!svg.empty()) outputs.write(svg, exact_svg(d));
  if (a.json == "-") {
    outputs.commit();
    return 0;
  }

  std::ostringstream o;
  o << "melange exact: " << algorithm_name(algo) << ", n " << a.n << ", "
    << method_name(spec.method) << "/" << spec.bits << "-bit\n  " << grouped(d.paths)
    << " paths (" << (d.equally_likely ? "equally likely" : "not equally likely") << "), "
    << (uses_coins(algo) ? "comparator calls" : "draws") << " per trial "
    << d.mean_draws.str() << " = " << fixed(static_cast<double>(d.mean_draws), 4)
    << ", stream words per trial " << fixed(d.mean_words, 6) << "\n\n";
  o << "  " << pad("order", std::max(6, a.n + 2)) << pad("rank", 8) << pad("paths", 10, true)
    << "  " << pad("probability", 24) << "decimal\n";
  for (std::uint64_t r = 0; r < d.probability.size(); ++r)
    o << "  " << pad(rank_label(r, a.n), std::max(6, a.n + 2)) << pad(std::to_string(r), 8)
      << pad(grouped(d.rank_paths[r]), 10, true) << "  " << pad(d.probability[r].str(), 24)
      << general(static_cast<double>(d.probability[r]), 8) << "\n";
  o << "\n  against uniform: noncentrality per trial " << general(j["noncentrality_per_trial"].is_null() ? INFINITY : j["noncentrality_per_trial"].get<double>(), 6)
    << "\n  expected chi2 after " << grouped(static_cast<std::uint64_t>(trials)) << " trials: "
    << (j["expected_chi2"].is_null() ? "inf" : fixed(j["expected_chi2"].get<double>(), 1))
    << " (df " << d.probability.size() - 1 << ")\n  trials to detect at alpha " << general(kDetectAlpha, 3)
    << " with power " << general(kDetectPower, 3) << ": "
    << (j["trials_to_detect"].is_null() ? "never (exactly uniform)"
                                        : grouped(j["trials_to_detect"].get<std::uint64_t>()))
    << (j["trials_needed"].is_null()
            ? std::string()
            : "\n  trials an audit needs: " + grouped(j["trials_needed"].get<std::uint64_t>()) + " (set by " +
                  j["trials_needed_by"].get<std::string>() + ")")
    << "\n";
  std::cout << o.str();
  outputs.commit();
  return 0;
}

}  // namespace

void add_exact_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<JobArgs>();
  auto* cmd = app.add_subcommand(
      "exact", "Exact distribution of an algorithm by walking every random outcome");
  add_job_options(cmd, *a,
                  JobOptionSet{.trials = false, .seed = false, .first = false, .threads = true, .backend = false});
  cmd->add_option("--trials", a->trials, "trials for the expected chi-square")->capture_default_str();
  cmd->add_option("--json", a->json, "write the result as JSON to FILE ('-': JSON on stdout only)");
  auto svg = std::make_shared<std::string>();
  cmd->add_option("--svg", *svg, "write the probabilities against uniform as a chart to FILE");
  auto quiet = std::make_shared<bool>(false);
  cmd->add_flag("--quiet", *quiet, "no progress line on the terminal");
  // Walking every path draws no random word: a seed would be silently
  // ignored, so it is refused with the reason.
  auto seed = std::make_shared<std::string>();
  cmd->add_option("--seed", *seed, "not taken: exact uses no random words")->check(CLI::Validator(
      [](std::string&) { return std::string("exact walks every random path and uses no seed; leave it out"); },
      "", "NOSEED"));
  cmd->callback([a, svg, quiet, &action] { action = [a, svg, quiet] { return run_exact(*a, *svg, *quiet); }; });
}

}  // namespace melange::cli
