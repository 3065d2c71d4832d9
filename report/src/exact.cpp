#include "melange/report/exact.hpp"

#include <cmath>
#include <istream>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/rank.hpp"
#include "melange/stats.hpp"
#include "melange/report/json.hpp"

namespace melange::report {

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
  j["noncentrality_per_trial"] = json_number(delta);
  j["expected_chi2"] = json_number(expected_chi2(df, delta, trials));
  j["trials_to_detect"] = json_number(trials_to_detect(df, delta));
  // Power alone can name fewer trials than the rank test needs to run at
  // all (5 expected per order): the figure to plan by is the larger.
  const double minimum = std::ceil(kMinExpectedPerBin * static_cast<double>(uniform.size()));
  const double power = trials_to_detect(df, delta);
  j["trials_needed"] = json_number(std::max(power, minimum));
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

ExactDistribution read_exact_model(std::istream& in) {
  Json j;
  try {
    j = Json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw UsageError("model file is not JSON; write it with 'melange exact --json'");
  }
  return exact_from_json(j);
}

}  // namespace melange::report
