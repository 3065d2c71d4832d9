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
  const Shape shape{a.n, can_deal(algo) ? a.k : a.n};
  // Five cards of 52: the deals are too many to walk one by one, but the
  // poker categories have their own exact walk (deal.hpp).
  if (can_deal(algo) && a.n == 52 && a.k == 5) {
    if (!svg.empty()) throw UsageError("--svg draws a distribution by deal; for 5 of 52 use --json");
    validate_bounded(spec, 52);
    const PokerLaw law = exact_poker_law(spec, threads);
    const PokerLaw fair = exact_poker_law(BoundedSpec{Method::lemire, 32}, 1);
    Json j = json_header("exact");
    j["algorithm"] = "partial";
    j["method"] = method_name(spec.method);
    j["bits"] = spec.bits;
    j["n"] = 52;
    j["k"] = 5;
    j["total"] = law.total;
    Json rows = Json::array();
    std::ostringstream o;
    o << "melange exact: partial, n 52, k 5 (a five-card deal), " << method_name(spec.method) << "/" << spec.bits
      << "-bit\n  every path of the 5 draws walked in integers; category weights out of " << grouped(law.total)
      << "\n  (the " << grouped(deal_count(52, 5)) << " ordered deals and " << grouped(hand_count(52, 5))
      << " hands are too many to list: sample them with melange audit --hands)\n\n  "
      << pad("category", 17) << pad("weight", 22, true) << pad("probability", 16, true) << pad("fair", 16, true)
      << pad("ratio", 10, true) << "\n";
    for (int c = 0; c < kPokerCategories; ++c) {
      const double p = static_cast<double>(law.weight[c]) / static_cast<double>(law.total);
      const double f = static_cast<double>(fair.weight[c]) / static_cast<double>(fair.total);
      const std::string name(poker_category_name(static_cast<PokerCategory>(c)));
      rows.push_back(Json{{"category", name}, {"weight", law.weight[c]}, {"probability", p},
                          {"fair_probability", f}, {"ratio_to_fair", p / f}});
      o << "  " << pad(name, 17) << pad(grouped(law.weight[c]), 22, true) << pad(general(p, 8), 16, true)
        << pad(general(f, 8), 16, true) << pad(fixed(p / f, 5), 10, true) << "\n";
    }
    j["poker_categories"] = rows;
    if (!a.json.empty()) write_json(outputs.open(a.json), j);
    if (a.json != "-") std::cout << o.str();
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
  const Json j = exact_json(d, trials);
  if (!a.json.empty()) write_json(outputs.open(a.json), j);
  if (!svg.empty()) outputs.write(svg, exact_svg(d));
  if (a.json == "-") {
    outputs.commit();
    return 0;
  }

  std::ostringstream o;
  if (draw_kind(algo) == DrawKind::keys) {
    o << "melange exact: " << algorithm_name(algo) << ", n " << a.n << ", weights " << a.weights
      << "\n  the Plackett-Luce law: P(order) = product over places of w(item) / (sum of the weights not yet "
         "placed); "
      << (d.equally_likely ? "equal weights, every order alike" : "exact rationals") << ", stream words per trial "
      << fixed(d.mean_words, 0) << "\n\n";
  } else {
    o << "melange exact: " << algorithm_name(algo) << ", n " << a.n
      << (shape.whole() ? std::string() : ", k " + std::to_string(shape.k)) << ", "
      << method_name(spec.method) << "/" << spec.bits << "-bit\n  " << grouped(d.paths)
      << " paths (" << (d.equally_likely ? "equally likely" : "not equally likely") << "), "
      << (uses_coins(algo) ? "comparator calls" : "draws") << " per trial "
      << d.mean_draws.str() << " = " << fixed(static_cast<double>(d.mean_draws), 4)
      << ", stream words per trial " << fixed(d.mean_words, 6) << "\n\n";
  }
  const int width = std::max(6, shape.n <= kMaxLabelItems ? shape.k + 2 : 4 * shape.k + 2);
  constexpr std::uint64_t kMaxRows = 40'320;  // 8!: longer tables go to --json
  if (d.probability.size() <= kMaxRows) {
    o << "  " << pad(shape.whole() ? "order" : "deal", width) << pad("rank", 8) << pad("paths", 10, true)
      << "  " << pad("probability", 24) << "decimal\n";
    for (std::uint64_t r = 0; r < d.probability.size(); ++r)
      o << "  " << pad(outcome_label(r, shape.n, shape.k), width) << pad(std::to_string(r), 8)
        << pad(grouped(d.rank_paths[r]), 10, true) << "  " << pad(d.probability[r].str(), 24)
        << general(static_cast<double>(d.probability[r]), 8) << "\n";
  } else {
    o << "  " << grouped(d.probability.size()) << " " << (shape.whole() ? "orders" : "deals")
      << ": too many to list here; --json FILE has every one\n";
  }
  if (!shape.whole()) {
    const std::vector<Rational> hands = d.hand_probabilities();
    if (hands.size() <= kMaxRows) {
      o << "\n  " << pad("hand", width) << pad("rank", 8) << "  " << pad("probability", 24) << "decimal\n";
      for (std::uint64_t r = 0; r < hands.size(); ++r) {
        std::string label;
        for (int c : hand_unrank(r, shape.n, shape.k))
          label += shape.n <= kMaxLabelItems ? std::string(1, static_cast<char>('A' + c))
                                             : (label.empty() ? "" : " ") + std::to_string(c);
        o << "  " << pad(label, width) << pad(std::to_string(r), 8) << "  " << pad(hands[r].str(), 24)
          << general(static_cast<double>(hands[r]), 8) << "\n";
      }
    }
  }
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
