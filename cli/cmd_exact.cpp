// `melange exact`: the exact distribution of an algorithm over every random path.
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "command.hpp"
#include "melange/report/format.hpp"
#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "artifacts.hpp"
#include "progress.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/job_text.hpp"

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
  check_exact_law(algo);
  if (draw_kind(algo) != DrawKind::keys && !a.weights.empty())
    throw UsageError("--weights are for --algo weighted (and weighted-int-power); " + a.algo + " takes none");
  if (!can_deal(algo) && a.k != 0 && a.k != a.n)
    throw UsageError("--k (a deal of k of the n items) is for --algo partial; " + a.algo + " shuffles all n items");
  if (can_deal(algo) && (a.k < 1 || a.k > a.n))
    throw UsageError("--algo partial deals --k of the --n items: give 1 <= k <= n, such as --n 52 --k 5");
  Job card_job;
  card_job.algorithm = algo;
  card_job.n = a.n;
  apply_card_args(a, card_job);
  const Shape cards = shape_of(card_job);
  validate_card_parameters(algo, cards);
  const std::optional<TallyKind> statistic = closed_form_statistic(algo);
  if (statistic && closed_form_holds(algo, cards, spec)) {
    // Any n: the law of the statistic the closed form depends on, exact
    // where every draw is uniform (else the walk below gives the law).
    if (!svg.empty())
      throw UsageError("--svg draws a law by permutation; " + a.algo + "'s is by " +
                       std::string(row_of(*statistic).title) + ": use --json");
    validate_closed_form(algo, cards);
    validate_bounded(spec, max_draw_range(algo, cards));
    std::ostream* json = a.json.empty() ? nullptr : &outputs.open(a.json);
    std::ostream* text = a.json == "-" ? nullptr : &std::cout;
    if (algo == Algorithm::riffle)
      write_riffle_exact(json, text, riffles_law(a.n, cards.riffles), spec);
    else
      write_shelf_exact(json, text, shelf_law(a.n, cards.shelves, cards.passes), spec);
    outputs.commit();
    return 0;
  }
  Shape shape = cards;  // with its card parameters, whichever law is walked
  shape.k = can_deal(algo) ? a.k : a.n;
  // Five cards of 52: the deals are too many to walk one by one, but the
  // poker categories have their own exact walk (deal.hpp).
  if (can_deal(algo) && a.n == 52 && a.k == 5) {
    if (!svg.empty()) throw UsageError("--svg draws a distribution by deal; for 5 of 52 use --json");
    validate_bounded(spec, 52);
    const PokerLaw law = exact_poker_law(spec, threads);
    const PokerLaw fair = exact_poker_law(BoundedSpec{Method::lemire, 32}, 1);
    write_poker_exact(a.json.empty() ? nullptr : &outputs.open(a.json), a.json == "-" ? nullptr : &std::cout, law,
                      fair, spec);
    outputs.commit();
    return 0;
  }
  const ExactDistribution d = draw_kind(algo) == DrawKind::keys
                                  ? plackett_luce_distribution(algo, [&] {
                                      const std::vector<Rational> w = weight_rationals(a);
                                      if (w.size() != static_cast<std::size_t>(a.n))
                                        throw UsageError("--weights has " + std::to_string(w.size()) +
                                                         " entries for --n " + std::to_string(a.n) +
                                                         ": give one weight per item");
                                      return w;
                                    }())
                                  : exact_distribution(algo, shape, spec, threads, report);
  progress.clear();
  if (!a.json.empty()) outputs.open(a.json) << exact_json_text(d, trials) << "\n";
  if (!svg.empty()) outputs.write(svg, exact_svg(d));
  if (a.json != "-") std::cout << exact_text(d, trials, a.weights);
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
  // ignored, so it is refused with the reason, and kept out of the help
  // (which lists only what the command takes).
  auto seed = std::make_shared<std::string>();
  cmd->add_option("--seed", *seed)->group("");
  cmd->callback([a, svg, quiet, seed, cmd, &action] {  // seed: the option writes to it
    if (cmd->count("--seed"))
      action = []() -> int { throw UsageError("--seed: exact walks every random path and uses no seed; leave it out"); };
    else
      action = [a, svg, quiet] { return run_exact(*a, *svg, *quiet); };
  });
}

}  // namespace melange::cli
