#include "melange/report/exact.hpp"

#include <filesystem>
#include <fstream>

#include <algorithm>
#include <bit>
#include <cmath>
#include <istream>
#include <sstream>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/rank.hpp"
#include "melange/stats.hpp"
#include "melange/report/format.hpp"
#include "melange/report/json.hpp"
#include "guarded_input.hpp"

namespace melange::report {

ExactPower exact_power(const ExactDistribution& d, double trials) {
  const std::vector<double> uniform = reference_probabilities(Shape{d.n, d.k}, nullptr);
  ExactPower p;
  p.df = static_cast<double>(uniform.size() - 1);
  p.noncentrality_per_trial = noncentrality_per_trial(d.probabilities(), uniform);
  p.expected_chi2 = expected_chi2(p.df, p.noncentrality_per_trial, trials);
  p.trials_to_detect = trials_to_detect(p.df, p.noncentrality_per_trial);
  // Power alone can name fewer trials than the rank test needs to run at
  // all (5 expected per order): the figure to plan by is the larger.
  const double minimum = std::ceil(kMinExpectedPerBin * static_cast<double>(uniform.size()));
  p.trials_needed = std::max(p.trials_to_detect, minimum);
  p.needed_by = std::isinf(p.trials_to_detect) ? "never (exactly uniform)"
                : p.trials_to_detect >= minimum ? "power" : "the rank test's minimum of 5 expected per order";
  return p;
}

Json exact_json(const ExactDistribution& d, double trials) {
  Json j = json_header("exact");
  add_shuffle_fields(j, d.algorithm, d.spec, d.shape);
  j["paths"] = d.paths;
  j["equally_likely_paths"] = d.equally_likely;
  j["mean_draws"] = static_cast<double>(d.mean_draws);
  j["mean_draws_exact"] = d.mean_draws.str();
  j["mean_words"] = d.mean_words;
  const ExactPower power = exact_power(d, trials);
  j["trials"] = trials;
  j["noncentrality_per_trial"] = json_number(power.noncentrality_per_trial);
  j["expected_chi2"] = json_number(power.expected_chi2);
  j["trials_to_detect"] = json_number(power.trials_to_detect);
  j["trials_needed"] = json_number(power.trials_needed);
  j["trials_needed_by"] = power.needed_by;
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
      for (int c : hand_unrank(r, d.n, d.k)) {
        label += label.empty() ? "" : " ";
        label += d.n == 52 ? card_name(c) : std::to_string(c);
      }
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
  if (j.is_object() && j.contains("rising_sequences") && !j.contains("distribution"))
    throw UsageError(Param::model,
                     "this model file holds riffle's law of the rising sequences, not a law of every order: audit "
                     "with {algorithm} riffle, {riffles} K and {model} exact, which tests the rising sequences");
  if (j.is_object() && j.contains("valleys") && !j.contains("distribution"))
    throw UsageError(Param::model,
                     "this model file holds shelf's law of the valleys, not a law of every order: audit with "
                     "{algorithm} shelf, {shelves} M, {passes} P and {model} exact, which tests the valleys");
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

std::string exact_json_text(const ExactDistribution& d, double trials) {
  return exact_json(d, trials).dump(2);
}

namespace {

// "ABD" for n <= 26, else the items' numbers.
std::string hand_label(const std::vector<int>& hand, int n) {
  std::string label;
  for (int c : hand) {
    if (n <= kMaxLabelItems) {
      label += static_cast<char>('A' + c);
      continue;
    }
    if (!label.empty()) label += ' ';
    label += std::to_string(c);
  }
  return label;
}

void law_header(std::ostream& o, const ExactDistribution& d, const std::string& weights) {
  const Shape shape{d.n, d.k};
  if (draw_kind(d.algorithm) == DrawKind::keys) {
    o << "melange exact: " << algorithm_name(d.algorithm) << ", n " << d.n << ", weights " << weights
      << "\n  the Plackett-Luce law: P(order) = product over places of w(item) / (sum of the weights not yet "
         "placed); "
      << (d.equally_likely ? "equal weights, every order alike" : "exact rationals") << ", stream words per trial "
      << fixed(d.mean_words, 0) << "\n\n";
    return;
  }
  o << "melange exact: " << algorithm_name(d.algorithm) << ", n " << d.n
    << (shape.whole() ? std::string() : ", k " + std::to_string(shape.k)) << ", " << method_name(d.spec.method) << "/"
    << d.spec.bits << "-bit\n  " << grouped(d.paths) << " paths ("
    << (d.equally_likely ? "equally likely" : "not equally likely") << "), "
    << (uses_coins(d.algorithm) ? "comparator calls" : "draws") << " per trial " << d.mean_draws.str() << " = "
    << fixed(static_cast<double>(d.mean_draws), 4) << ", stream words per trial " << fixed(d.mean_words, 6)
    << "\n\n";
}

// The outcomes (and a deal's hands) with their exact probabilities, while
// they are few enough to read.
void law_table(std::ostream& o, const ExactDistribution& d) {
  const Shape shape{d.n, d.k};
  const int width = std::max(6, shape.n <= kMaxLabelItems ? shape.k + 2 : 4 * shape.k + 2);
  constexpr std::uint64_t kMaxRows = 40'320;  // 8!: longer tables go to --json
  if (d.probability.size() <= kMaxRows) {
    o << "  " << pad(shape.whole() ? "order" : "deal", width) << pad("rank", 8) << pad("paths", 10, true) << "  "
      << pad("probability", 24) << "decimal\n";
    for (std::uint64_t r = 0; r < d.probability.size(); ++r)
      o << "  " << pad(outcome_label(r, shape.n, shape.k), width) << pad(std::to_string(r), 8)
        << pad(grouped(d.rank_paths[r]), 10, true) << "  " << pad(d.probability[r].str(), 24)
        << general(static_cast<double>(d.probability[r]), 8) << "\n";
  } else {
    o << "  " << grouped(d.probability.size()) << " " << (shape.whole() ? "orders" : "deals")
      << ": too many to list here; --json FILE has every one\n";
  }
  if (shape.whole()) return;
  const std::vector<Rational> hands = d.hand_probabilities();
  if (hands.size() > kMaxRows) return;
  o << "\n  " << pad("hand", width) << pad("rank", 8) << "  " << pad("probability", 24) << "decimal\n";
  for (std::uint64_t r = 0; r < hands.size(); ++r)
    o << "  " << pad(hand_label(hand_unrank(r, shape.n, shape.k), shape.n), width) << pad(std::to_string(r), 8)
      << "  " << pad(hands[r].str(), 24) << general(static_cast<double>(hands[r]), 8) << "\n";
}

}  // namespace

std::string exact_text(const ExactDistribution& d, double trials, const std::string& weights) {
  std::ostringstream o;
  law_header(o, d, weights);
  law_table(o, d);
  const ExactPower p = exact_power(d, trials);
  o << "\n  against uniform: noncentrality per trial " << general(p.noncentrality_per_trial, 6)
    << "\n  expected chi2 after " << grouped(static_cast<std::uint64_t>(trials))
    << " trials: " << (std::isfinite(p.expected_chi2) ? fixed(p.expected_chi2, 1) : "inf") << " (df "
    << d.probability.size() - 1 << ")\n  trials to detect at alpha " << general(kDetectAlpha, 3) << " with power "
    << general(kDetectPower, 3) << ": "
    << (std::isfinite(p.trials_to_detect) ? grouped(static_cast<std::uint64_t>(p.trials_to_detect))
                                          : "never (exactly uniform)")
    << (std::isfinite(p.trials_needed)
            ? "\n  trials an audit needs: " + grouped(static_cast<std::uint64_t>(p.trials_needed)) + " (set by " +
                  p.needed_by + ")"
            : std::string())
    << "\n";
  return o.str();
}

void write_poker_exact(std::ostream* json, std::ostream* text, const PokerLaw& law, const PokerLaw& fair,
                       BoundedSpec spec) {
  Json j = json_header("exact");
  add_shuffle_fields(j, Algorithm::partial, spec, Shape{52, 5});
  j["total"] = law.total;
  Json rows = Json::array();
  std::ostringstream o;
  o << "melange exact: partial, n 52, k 5 (a five-card deal), " << method_name(spec.method) << "/" << spec.bits
    << "-bit\n  every path of the 5 draws walked in integers; category weights out of " << grouped(law.total)
    << "\n  (the " << grouped(deal_count(52, 5)) << " ordered deals and " << grouped(hand_count(52, 5))
    << " hands are too many to list: sample them with melange audit --hands)\n\n  " << pad("category", 17)
    << pad("weight", 22, true) << pad("probability", 16, true) << pad("fair", 16, true) << pad("ratio", 10, true)
    << "\n";
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
  if (json) write_json(*json, j);
  if (text) *text << o.str();
}

namespace {

// A rational's decimal value, or "0"/"1" where it is exactly so.
std::string decimal(const Rational& q, int digits) {
  if (q == 0) return "0";
  if (q == 1) return "1";
  return general(static_cast<double>(q), digits);
}

// The rows worth printing: every value either law gives at least this much.
constexpr double kShownStatisticProbability = 1e-12;

// A card shuffle's law of its statistic beside the uniform law's: a text
// row for each value worth printing, and every value's JSON row under
// `key` (value, probability, exact, uniform_probability).
void write_statistic_rows(std::ostringstream& o, Json& j, const std::string& key, const std::string& symbol,
                          const std::string& shuffled, int first_value, const std::vector<Rational>& law,
                          const std::vector<Rational>& uniform) {
  o << "  " << pad(symbol, 6) << pad("P(" + symbol + "), " + shuffled, 16, true)
    << pad("P(" + symbol + "), uniform", 16, true) << pad("ratio", 12, true) << "\n";
  Json rows = Json::array();
  int hidden = 0;
  for (std::size_t at = 0; at < law.size(); ++at) {
    const int value = first_value + static_cast<int>(at);
    const double p = static_cast<double>(law[at]), u = static_cast<double>(uniform[at]);
    rows.push_back(Json{{key, value}, {"probability", p}, {"exact", law[at].str()}, {"uniform_probability", u}});
    if (p < kShownStatisticProbability && u < kShownStatisticProbability) {
      ++hidden;
      continue;
    }
    o << "  " << pad(std::to_string(value), 6) << pad(general(p, 6), 16, true) << pad(general(u, 6), 16, true)
      << pad(u > 0 ? general(p / u, 4) : std::string("-"), 12, true) << "\n";
  }
  if (hidden)
    o << "  (" << hidden << " values of " << symbol << " below " << general(kShownStatisticProbability, 1)
      << " under both laws: in --json)\n";
  j[key] = rows;
}

// The distances to uniform, in the text and the JSON.
void write_distances(std::ostringstream& o, Json& j, const Rational& total_variation, const Rational& separation) {
  j["total_variation"] = static_cast<double>(total_variation);
  j["total_variation_exact"] = total_variation.str();
  j["separation"] = static_cast<double>(separation);
  j["separation_exact"] = separation.str();
  o << "  total variation to uniform  " << decimal(total_variation, 6) << "\n"
    << "  separation from uniform     " << decimal(separation, 6) << "\n";
}

// The guessing test's means under a shelf law, beside a fair deck's H_n.
void write_guessing(std::ostringstream& o, Json& j, const ShelfLaw& law) {
  const ShelfGuessing g = shelf_guessing(law);
  double fair = 0;  // H_n, summed from its smallest terms up
  for (int c = law.n; c >= 1; --c) fair += 1.0 / c;
  j["guesses_mean"] = static_cast<double>(g.mean);
  j["guesses_mean_exact"] = g.mean.str();
  j["best_guesses_mean"] = static_cast<double>(g.best_mean);
  j["best_guesses_mean_exact"] = g.best_mean.str();
  o << "  mean correct guesses        " << fixed(static_cast<double>(g.mean), 4) << " (uniform: "
    << fixed(fair, 4) << "; the best any guesser can: " << fixed(static_cast<double>(g.best_mean), 4)
    << ")\n    the guessing test's rule: name the nearest unseen card the way the last step went\n";
}

}  // namespace

void write_riffle_exact(std::ostream* json, std::ostream* text, const RiffleLaw& law, BoundedSpec spec) {
  const int riffles = std::countr_zero(law.a);
  Json j = json_header("exact");
  add_shuffle_fields(j, Algorithm::riffle, spec, Shape{.n = law.n, .k = law.n, .riffles = riffles});
  j["mean_rising_sequences"] = static_cast<double>(law.mean_rises);
  j["mean_rising_sequences_exact"] = law.mean_rises.str();
  std::ostringstream o;
  o << "melange exact: riffle, n " << law.n << ", " << riffles << " riffles (a " << law.a
    << "-shuffle, Gilbert-Shannon-Reeds), " << method_name(spec.method) << "/" << spec.bits << "-bit\n"
    << "  a permutation with R rising sequences has probability C(a + n - R, n) / a^n (Bayer and Diaconis\n"
    << "  1992): R is all the law depends on, so its law below is the whole law, exactly\n\n";
  write_distances(o, j, law.total_variation, law.separation);
  o << "  mean rising sequences       " << fixed(static_cast<double>(law.mean_rises), 4) << " (uniform: "
    << fixed((law.n + 1) / 2.0, 1) << ")\n\n";
  write_statistic_rows(o, j, "rising_sequences", "R", "riffled", 1, law.rises, eulerian_law(law.n));
  if (json) write_json(*json, j);
  if (text) *text << o.str();
}

void write_shelf_exact(std::ostream* json, std::ostream* text, const ShelfLaw& law, BoundedSpec spec) {
  Json j = json_header("exact");
  add_shuffle_fields(j, Algorithm::shelf, spec,
                     Shape{.n = law.n, .k = law.n, .shelves = law.shelves, .passes = law.passes});
  j["one_pass_shelves"] = law.one_pass_shelves.str();
  j["mean_valleys"] = static_cast<double>(law.mean_valleys);
  j["mean_valleys_exact"] = law.mean_valleys.str();
  std::ostringstream o;
  o << "melange exact: shelf, n " << law.n << ", " << law.shelves << " shelves, " << law.passes
    << (law.passes == 1 ? " pass" : " passes") << " (a casino shelf shuffler), " << method_name(spec.method) << "/"
    << spec.bits << "-bit\n"
    << "  each pile rises, then falls: a permutation's probability depends on its valleys V alone\n"
    << "  (cards below both neighbours), so the law of V below is the whole law, exactly";
  if (law.passes > 1) o << ";\n  " << law.passes << " passes of " << law.shelves << " shelves are one pass of "
                        << law.one_pass_shelves.str() << " shelves";
  o << "\n\n";
  write_distances(o, j, law.total_variation, law.separation);
  o << "  mean valleys                " << fixed(static_cast<double>(law.mean_valleys), 4) << " (uniform: "
    << fixed(law.n >= 2 ? (law.n - 2) / 3.0 : 0.0, 4) << ")\n";
  if (law.n <= kShelfGuessingItems) write_guessing(o, j, law);
  o << "\n";
  write_statistic_rows(o, j, "valleys", "V", "shelved", 0, law.valleys, valley_law(law.n));
  if (json) write_json(*json, j);
  if (text) *text << o.str();
}

ExactDistribution read_exact_model(const std::string& path, std::uint64_t memory_cap) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError(Param::model, "{model} '" + path + "' is not a file; give 'exact' or a file written by "
                                   "'melange exact --json'");
  // A parsed number or short string takes at most this many bytes of
  // memory a byte of its text (a 16-byte value and its container's share
  // for "0," at worst).
  constexpr std::uint64_t kParsedBytesAByte = 16;
  const std::uint64_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes > memory_cap / kParsedBytesAByte)
    throw UsageError(Param::memory_cap, "{model} file '" + path + "' is " + std::to_string(bytes) +
                                            " bytes; read, it could take up to " + std::to_string(kParsedBytesAByte) +
                                            " times that, more than {memory_cap} allows: raise {memory_cap}");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UsageError(Param::model, "cannot read {model} file '" + path + "'");
  GuardedJsonInput guard(file, path);
  std::istream in(&guard);
  in.exceptions(std::ios::badbit);
  Json j;
  try {
    j = Json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(Param::model, "{model} file '" + path + "' is not JSON; write it with 'melange exact --json'");
  }
  return exact_from_json(j);
}

}  // namespace melange::report
