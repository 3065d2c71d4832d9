#include "report.hpp"

#include <cmath>
#include <sstream>

#include "format.hpp"
#include "job_args.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/rank.hpp"
#include "output.hpp"

namespace melange::cli {
namespace {

// JSON has no infinity; an infinite statistic is written as null.
Json number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json fit_json(const GoodnessOfFit& g) {
  return Json{{"chi2", number(g.statistic)}, {"df", g.df},
              {"p_value", g.p_value},        {"p_lower", g.p_lower},
              {"log10_p", number(g.log10_p)}, {"critical", g.critical},
              {"g", number(g.g_statistic)},  {"g_p_value", number(g.g_p_value)},
              {"min_expected", number(g.min_expected)}, {"impossible", g.impossible}};
}

std::string line_for(const std::string& title, const TestResult& t, double alpha) {
  const GoodnessOfFit& g = t.fit;
  const Verdict v = t.verdict;
  std::ostringstream o;
  o << title << ": chi2 " << fixed(g.statistic, 1) << ", df " << fixed(g.df, 0) << ", p "
    << p_text(g.p_value, g.log10_p);
  o << ", critical " << fixed(g.critical, 2) << " at alpha " << general(alpha, 3) << ", G "
    << (std::isnan(g.g_statistic) ? std::string("n/a") : fixed(g.g_statistic, 1)) << ", Holm p " << p_text(t.p_holm, t.log10_p_holm) << " -> "
    << verdict_name(v);
  if (t.too_uniform) o << " (too uniform: Holm lower-tail p " << general(t.p_lower_holm, 3) << ")";
  if (g.impossible) o << "; " << g.impossible << " trials in orders the reference forbids";
  return o.str();
}

}  // namespace

namespace {

// What defines a shuffle, sampled or exact; k only for deals.
void add_shuffle_fields(Json& j, Algorithm a, BoundedSpec spec, int n, int k) {
  j["algorithm"] = algorithm_name(a);
  j["method"] = method_name(spec.method);
  j["bits"] = spec.bits;
  j["n"] = n;
  if (k != n) j["k"] = k;
}

Json test_json(const TestResult& t) {
  Json j = fit_json(t.fit);
  j["p_holm"] = t.p_holm;
  j["log10_p_holm"] = number(t.log10_p_holm);
  j["p_lower_holm"] = t.p_lower_holm;
  j["too_uniform"] = t.too_uniform;
  j["verdict"] = verdict_name(t.verdict);
  return j;
}

// Above this many hands the JSON document gives the hand test, not the counts.
constexpr std::uint64_t kMaxJsonHands = std::uint64_t{1} << 16;

}  // namespace

std::vector<CategoryRow> category_rows(const Tally& tally) {
  std::vector<CategoryRow> rows;
  const std::vector<double> p = fair_poker_probabilities();
  const double trials = static_cast<double>(tally.trials);
  for (std::size_t c = 0; c < tally.categories.size(); ++c)
    rows.push_back(CategoryRow{std::string(poker_category_name(static_cast<PokerCategory>(c))), tally.categories[c],
                               trials * p[c], std::sqrt(trials * p[c] * (1 - p[c]))});
  return rows;
}

std::string outcome_noun(const Job& job) { return is_deal(job) ? "deal" : "order"; }

std::vector<std::pair<std::string, std::string>> usage_rows(const Job& job, const AuditReport& report) {
  std::vector<std::pair<std::string, std::string>> rows;
  // A sort's comparator calls vary by trial and are the article's figure; a
  // swap algorithm's draws are fixed by its schedule.
  if (uses_coins(job.algorithm)) rows.emplace_back("comparator calls per trial", fixed(report.mean_draws, 4));
  rows.emplace_back("stream words per trial", fixed(report.mean_words, 4));
  return rows;
}

void add_job_fields(Json& j, const Job& job) {
  j["seed"] = job.seed;
  add_shuffle_fields(j, job.algorithm, job.spec, job.n, shape_of(job).k);
  if (!job.weights.empty()) j["weights"] = job.weights;
  j["trials"] = job.trials;
  j["first"] = job.first;
}

Json exact_json(const ExactDistribution& d, double trials) {
  Json j = json_header("exact");
  add_shuffle_fields(j, d.algorithm, d.spec, d.n, d.k);
  j["paths"] = d.paths;
  j["equally_likely_paths"] = d.equally_likely;
  j["mean_draws"] = static_cast<double>(d.mean_draws);
  j["mean_draws_exact"] = d.mean_draws.str();
  j["mean_words"] = d.mean_words;
  const std::vector<double> uniform = reference_probabilities(Shape{d.n, d.k}, nullptr);
  const double delta = noncentrality_per_trial(d.probabilities(), uniform);
  const double df = static_cast<double>(uniform.size() - 1);
  j["trials"] = trials;
  j["noncentrality_per_trial"] = number(delta);
  j["expected_chi2"] = number(expected_chi2(df, delta, trials));
  j["trials_to_detect"] = number(trials_to_detect(df, delta));
  // Power alone can name fewer trials than the rank test needs to run at
  // all (5 expected per order): the figure to plan by is the larger.
  const double minimum = std::ceil(kMinExpectedPerBin * static_cast<double>(uniform.size()));
  const double power = trials_to_detect(df, delta);
  j["trials_needed"] = number(std::max(power, minimum));
  j["trials_needed_by"] = std::isinf(power) ? "never (exactly uniform)"
                          : power >= minimum ? "power" : "the rank test's minimum of 5 expected per order";
  j["detect_alpha"] = kDetectAlpha;
  j["detect_power"] = kDetectPower;
  Json dist = Json::array();
  for (std::uint64_t r = 0; r < d.probability.size(); ++r) {
    const Rational& p = d.probability[r];
    dist.push_back(Json{{"rank", r},
                        {"label", outcome_label(r, d.n, d.k)},
                        {"numerator", boost::multiprecision::numerator(p).str()},
                        {"denominator", boost::multiprecision::denominator(p).str()},
                        {"probability", static_cast<double>(p)},
                        {"paths", d.rank_paths[r]}});
  }
  j["distribution"] = dist;
  if (d.k < d.n) {
    Json hands = Json::array();
    const std::vector<Rational> h = d.hand_probabilities();
    for (std::uint64_t r = 0; r < h.size(); ++r) {
      std::string label;
      for (int c : hand_unrank(r, d.n, d.k))
        label += (label.empty() ? "" : " ") + (d.n == 52 ? card_name(c) : std::to_string(c));
      hands.push_back(Json{{"rank", r},
                           {"hand", label},
                           {"numerator", boost::multiprecision::numerator(h[r]).str()},
                           {"denominator", boost::multiprecision::denominator(h[r]).str()},
                           {"probability", static_cast<double>(h[r])}});
    }
    j["hands"] = hands;
  }
  return j;
}

ExactDistribution exact_from_json(const Json& j) {
  try {
    ExactDistribution d{};
    const auto algo = parse_algorithm(j.at("algorithm").get<std::string>());
    const auto method = parse_method(j.at("method").get<std::string>());
    if (!algo || !method) throw UsageError("model names an unknown algorithm or method");
    d.algorithm = *algo;
    d.spec = BoundedSpec{*method, j.at("bits").get<int>()};
    d.n = j.at("n").get<int>();
    d.k = j.value("k", d.n);
    if (d.n < 1 || d.n > kMaxPositionItems || d.k < 1 || d.k > d.n || (d.k == d.n && d.n > kMaxRankItems))
      throw UsageError("model n or k is out of range");
    const std::uint64_t outcomes = d.k == d.n ? factorial(d.n) : deal_count(d.n, d.k);
    const auto& dist = j.at("distribution");
    if (outcomes == 0 || dist.size() != outcomes)
      throw UsageError("model has " + std::to_string(dist.size()) + " outcomes, but n = " + std::to_string(d.n) +
                       ", k = " + std::to_string(d.k) + " has " + std::to_string(outcomes));
    Rational total = 0;
    for (const auto& e : dist) {
      const boost::multiprecision::cpp_int num(e.at("numerator").get<std::string>());
      const boost::multiprecision::cpp_int den(e.at("denominator").get<std::string>());
      if (den <= 0 || num < 0) throw UsageError("model has a negative or zero-denominator entry");
      d.probability.emplace_back(num, den);
      total += d.probability.back();
      d.rank_paths.push_back(e.value("paths", std::uint64_t{0}));
    }
    if (total != 1) throw UsageError("model probabilities do not sum to 1");
    d.paths = j.value("paths", std::uint64_t{0});
    return d;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(std::string("model file is not a 'melange exact --json' result: ") + e.what());
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const UsageError*>(&e)) throw;
    throw UsageError(std::string("model file has a malformed number: ") + e.what());
  }
}

std::string audit_subject(const Job& job, const InputInfo* input) {
  if (input) return "records from " + (input->path == "-" ? std::string("standard input") : input->path);
  return std::string(algorithm_name(job.algorithm));
}

Json audit_json(const Job& job, const RunResult& run, const AuditReport& report, const InputInfo* input) {
  Json j = json_header("audit");
  if (input) {
    j["input"] = {{"path", input->path}, {"format", input->format}, {"base", input->base}};
    j["n"] = job.n;
    if (is_deal(job)) j["k"] = shape_of(job).k;
    j["records"] = job.trials;
    j["invalid_records"] = input->invalid;
    if (input->invalid) j["first_invalid"] = input->first_invalid;
  } else {
    add_job_fields(j, job);
  }
  j["threads"] = run.threads;
  if (!input) j["ranks"] = run.ranks;
  j["backend"] = run.backend;
  if (!run.arch.empty()) j["simd_arch"] = run.arch;
  if (!run.note.empty()) j["backend_note"] = run.note;
  if (!run.threads_note.empty()) j["threads_note"] = run.threads_note;
  j["reference"] = report.reference;
  if (!input) {
    j["words_consumed"] = run.tally.words;
    j["mean_words"] = report.mean_words;
    j["draws"] = run.tally.draws;
    j["mean_draws"] = report.mean_draws;
  }
  if (!run.tally.ranks.empty()) j["histogram"] = nullptr;  // n! counts: streamed by write_audit_json
  if (!run.tally.positions.empty()) {
    Json rows = Json::array();
    const int n = run.tally.positions.n(), k = run.tally.positions.k();
    for (int item = 0; item < n; ++item) {
      std::vector<std::uint64_t> row(k);
      for (int pos = 0; pos < k; ++pos) row[pos] = run.tally.positions.at(item, pos);
      rows.push_back(row);
    }
    j["position"] = rows;  // a deal's: item x slot
  }
  if (!run.tally.hands.empty()) {
    j["hand_bins"] = run.tally.hands.size();
    if (run.tally.hands.size() <= kMaxJsonHands) j["hands"] = run.tally.hands;
  }
  if (!run.tally.categories.empty()) {
    Json categories = Json::array();
    for (const CategoryRow& c : category_rows(run.tally))
      categories.push_back(Json{{"category", c.name}, {"count", c.count}, {"expected", c.expected}});
    j["poker_categories"] = categories;
  }
  Json stats = Json::object();
  if (report.rank) {
    stats = fit_json(report.rank->fit);
    stats["p_holm"] = report.rank->p_holm;
    stats["log10_p_holm"] = number(report.rank->log10_p_holm);
    stats["p_lower_holm"] = report.rank->p_lower_holm;
    stats["too_uniform"] = report.rank->too_uniform;
    stats["rank_verdict"] = verdict_name(report.rank->verdict);
  } else {
    stats["chi2"] = nullptr;
    stats["df"] = nullptr;
    stats["p_value"] = nullptr;
    stats["log10_p"] = nullptr;
  }
  stats["verdict"] = report.verdict ? Json(verdict_name(*report.verdict)) : Json(nullptr);
  if (report.summary) {
    stats["max_min_ratio"] = number(report.summary->max_min_ratio);
    stats["identity_count"] = report.summary->identity_count;
    Json most = Json::array(), least = Json::array();
    const Shape s = shape_of(job);
    for (auto [r, c] : report.summary->most)
      most.push_back(Json{{"rank", r}, {"label", outcome_label(r, s.n, s.k)}, {"count", c}});
    for (auto [r, c] : report.summary->least)
      least.push_back(Json{{"rank", r}, {"label", outcome_label(r, s.n, s.k)}, {"count", c}});
    stats["most_frequent"] = most;
    stats["least_frequent"] = least;
  }
  if (report.position) {
    Json pos = fit_json(report.position->fit);
    pos["p_holm"] = report.position->p_holm;
    pos["log10_p_holm"] = number(report.position->log10_p_holm);
    pos["p_lower_holm"] = report.position->p_lower_holm;
    pos["too_uniform"] = report.position->too_uniform;
    pos["verdict"] = verdict_name(report.position->verdict);
    pos["max_residual"] = number(report.position_detail->max_residual);
    pos["max_residual_item"] = report.position_detail->max_item;
    pos["max_residual_position"] = report.position_detail->max_position;
    stats["position"] = pos;
  }
  if (report.hand) stats["hand"] = test_json(*report.hand);
  if (report.category) stats["category"] = test_json(*report.category);
  stats["notes"] = report.notes;
  j["stats"] = stats;
  return j;
}

void write_audit_json(std::ostream& to, const Job& job, const RunResult& run, const AuditReport& report,
                      const InputInfo* input) {
  const auto& counts = run.tally.ranks.counts();
  write_json(to, audit_json(job, run, report, input), "histogram", [&](std::ostream& out, const std::string& indent) {
    std::string text;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      text += indent + std::to_string(counts[r]);
      if (r + 1 < counts.size()) text += ",\n";
      if (text.size() > (1u << 20)) {
        out << text;
        text.clear();
      }
    }
    out << text;
  });
}

std::string audit_text(const Job& job, const RunResult& run, const AuditReport& report,
                       const ExactDistribution* model, const InputInfo* input) {
  std::ostringstream o;
  if (input) {
    o << "melange audit: " << audit_subject(job, input) << " (" << input->format
      << (input->format == "text" ? ", " + std::to_string(input->base) + "-based" : std::string()) << "), n "
      << job.n << (is_deal(job) ? ", deals of k " + std::to_string(shape_of(job).k) : std::string())
      << "\n  records " << grouped(job.trials) << ", reference " << report.reference << "\n";
    if (input->invalid)
      o << "  note: " << grouped(input->invalid) << " invalid records skipped; the first: " << input->first_invalid
        << "\n";
  } else {
    o << "melange audit: " << describe(job) << "\n  trials " << grouped(job.trials) << " from " << job.first
      << ", backend " << backend_text(run.backend, run.arch) << ", "
      << (run.ranks > 1 ? std::to_string(run.ranks) + " MPI ranks × " : std::string()) << run.threads
      << (run.threads == 1 ? " thread" : " threads") << (run.ranks > 1 ? " each" : "") << ", reference "
      << report.reference << "\n";
  }
  if (!run.note.empty()) o << "  note: " << run.note << "\n";
  if (!run.threads_note.empty()) o << "  note: " << run.threads_note << "\n";
  const auto& h = run.tally.ranks;
  const Shape shape = shape_of(job);
  const std::string noun = outcome_noun(job);
  if (!h.empty()) {
    const int width = std::max(6, shape.n <= kMaxLabelItems ? shape.k + 2 : 3 * shape.k + 2);
    auto row = [&](std::uint64_t r) {
      const double e = static_cast<double>(job.trials) * reference_probability(shape, model, r);
      const double c = static_cast<double>(h.counts()[r]);
      o << "  " << pad(outcome_label(r, shape.n, shape.k), width) << pad(std::to_string(r), 10)
        << pad(grouped(h.counts()[r]), 14, true) << pad(fixed(e, 1), 14, true)
        << pad(e > 0 ? fixed((c - e) / std::sqrt(e), 2) : "-", 10, true) << "\n";
    };
    o << "\n  " << pad(noun, width) << pad("rank", 10) << pad("count", 14, true)
      << pad("expected", 14, true) << pad("residual", 10, true) << "\n";
    if (h.bins() <= 120) {
      for (std::uint64_t r = 0; r < h.bins(); ++r) row(r);
    } else {
      o << "  most frequent:\n";
      for (auto [r, c] : report.summary->most) row(r);
      o << "  least frequent:\n";
      for (auto [r, c] : report.summary->least) row(r);
    }
    o << "\n  max/min ratio " << fixed(report.summary->max_min_ratio, 3) << ", "
      << (shape.whole() ? "identity" : "first deal") << " (" << outcome_label(0, shape.n, shape.k) << ") "
      << grouped(report.summary->identity_count) << "\n";
  }
  if (!run.tally.categories.empty()) {
    o << "\n  " << pad("poker category", 18) << pad("count", 14, true) << pad("expected", 16, true)
      << pad("ratio", 9, true) << pad("z", 9, true) << "\n";
    for (const CategoryRow& c : category_rows(run.tally))
      o << "  " << pad(c.name, 18) << pad(grouped(c.count), 14, true) << pad(fixed(c.expected, 1), 16, true)
        << pad(c.expected > 0 ? fixed(static_cast<double>(c.count) / c.expected, 4) : "-", 9, true)
        << pad(c.sigma > 0 ? fixed((static_cast<double>(c.count) - c.expected) / c.sigma, 2) : "-", 9, true) << "\n";
  }
  if (!input)
    for (const auto& [label, value] : usage_rows(job, report)) o << "  " << label << " " << value << "\n";
  o << "\n";
  if (report.rank)
    o << "  " << line_for(std::string(shape.whole() ? "rank" : "deal") + " test (" + grouped(h.bins()) + " " + noun + "s)",
                          *report.rank, report.alpha)
      << "\n";
  if (report.position) {
    const PositionTest& p = *report.position_detail;
    const std::string column = shape.whole() ? "position" : "slot";
    o << "  " << line_for(column + " test (" + std::to_string(shape.n) + "x" + std::to_string(shape.k) + ")",
                          *report.position, report.alpha)
      << "\n    largest standardized residual " << fixed(p.max_residual, 2) << " (item "
      << p.max_item << " at " << column << " " << p.max_position << ")\n";
  }
  if (report.hand)
    o << "  " << line_for("hand test (" + grouped(run.tally.hands.size()) + " hands)", *report.hand, report.alpha)
      << "\n";
  if (report.category)
    o << "  " << line_for("poker category test (10 categories, fair law)", *report.category, report.alpha) << "\n";
  for (const auto& n : report.notes) o << "  note: " << n << "\n";
  o << "verdict: " << (report.verdict ? std::string(verdict_name(*report.verdict)) : "none")
    << "\n";
  return o.str();
}

}  // namespace melange::cli
