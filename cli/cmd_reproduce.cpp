// `melange reproduce`: every measurable claim of the article melange was
// built from, next to its exact or expected value and melange's measurement.
// A sampled figure agrees when it lies within five standard deviations of
// the value the exact model predicts; an exact figure agrees when it is equal.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <limits>
#include <iostream>
#include <memory>

#include "artifacts.hpp"
#include "command.hpp"
#include "exit_codes.hpp"
#include "melange/report/format.hpp"
#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/deal.hpp"
#include "melange/engine.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"
#include "melange/sampled_laws.hpp"
#include "melange/stream.hpp"
#include "melange/reach.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "progress.hpp"
#include "reproduce_predict.hpp"
#include "reproduce_tables.hpp"

namespace melange::cli {
namespace {

constexpr double kSigmas = 5;  // agreement window for one sampled figure

// The window for a claim over k figures at once (sampled_laws.hpp).
double sigmas_for(int k) { return family_sigmas(k, kSigmas); }
constexpr std::uint64_t kRatioReplicates = 1'000'000;  // simulated audits per max/min window

struct ReproduceArgs {
  bool quick = false, quiet = false;
  std::string seed, json, report_dir, threads, seeds;
};

// What the claims need that no seed changes, worked out once per run of the
// command: the simulated max/min windows (they depend on the model and the
// trials), and the poker categories of all 2,598,960 hands.
struct SeedFree {
  std::map<std::string, RatioLaw> windows;
  std::optional<std::array<std::uint64_t, kPokerCategories>> poker_counts;
  std::optional<std::array<double, 10>> riffle_distances;  // 52 cards, k = 1..10 riffles
  std::optional<std::array<double, 2>> shelf_distances;    // 52 cards, 10 shelves, one and two passes
  std::optional<std::array<ShelfGuessing, 2>> shelf_guessing;  // the same machines' guessing means
  std::optional<Claim> asf;  // a day's search: once a command, for its first seed
};

struct Sampled {
  Job job;
  RunResult run;
  AuditReport uniform;
};

class Reproduction {
 public:
  Reproduction(std::uint64_t seed, std::uint64_t runs, int threads, bool quiet, SeedFree& seed_free)
      : seed_(seed), runs_(runs), threads_(threads), quiet_(quiet), seed_free_(seed_free) {}

  std::vector<Claim> claims;
  std::unique_ptr<Sampled> one_liner;  // for the report's chart
  std::unique_ptr<ExactDistribution> one_liner_model;

  // Every group of claims, in the article's order (kGroups).
  void all() {
    for (const Group measure : kGroups) (this->*measure)();
  }

 private:
  // A job of this run's seed; `setup` sets what else it needs (a deal, weights, tallies).
  template <class Setup = void (*)(Job&)>
  Sampled audit(Algorithm a, int n, std::uint64_t trials, const ExactDistribution* model = nullptr,
                Setup setup = [](Job&) {}) {
    Sampled s{Job{}, {}, {}};
    s.job.seed = seed_;
    s.job.algorithm = a;
    s.job.n = n;
    s.job.trials = trials;
    setup(s.job);
    RunOptions o;
    o.threads = threads_;
    ProgressLine progress("reproduce: " + describe(s.job), quiet_);
    if (progress.enabled()) o.progress = [&](std::uint64_t d, std::uint64_t t) { progress.update(d, t); };
    s.run = run(s.job, o);
    AuditOptions ao;
    ao.model = model;
    s.uniform = analyze(s.job, s.run.tally, ao);
    return s;
  }

  void add(std::string claim, std::string article, std::string expected, std::string measured,
           bool agrees, std::string note = "") {
    claims.push_back({std::move(claim), std::move(article), std::move(expected),
                      std::move(measured), std::move(note), agrees});
  }

  void chi2_claim(const std::string& what, const std::string& article, const ExactDistribution& d,
                  const Sampled& s) {
    const auto [mean, sd] =
        pearson_law(d.probabilities(), reference_probabilities(d.n, nullptr), static_cast<double>(s.job.trials));
    const double chi2 = s.uniform.rank->fit.statistic;
    add(what, article, fixed(mean, 1) + " \u00b1 " + fixed(sd, 1), fixed(chi2, 1),
        std::fabs(chi2 - mean) <= kSigmas * sd);
  }

  void one_liner_claims() {
    const auto model = exact_distribution(Algorithm::sort_binary_insertion, 4);
    one_liner_model = std::make_unique<ExactDistribution>(model);
    one_liner = std::make_unique<Sampled>(audit(Algorithm::sort_binary_insertion, 4, runs_));
    const Sampled& s = *one_liner;
    const double n = static_cast<double>(runs_);
    chi2_claim("one-liner (binary insertion), n=4: chi-square vs uniform", "125,397 at 10^6",
               model, s);
    const double critical = chi2_critical(23, 0.05);
    add("its chi-square is far beyond the 5% critical value (df 23)", "27.32",
        fixed(critical, 2), "chi2 / critical = " + fixed(s.uniform.rank->fit.statistic / critical, 0),
        s.uniform.rank->fit.statistic > critical && s.uniform.verdict == Verdict::fail,
        "27.32 is not the 5% point of chi-square with 23 df; that is " + fixed(critical, 2));
    // Two clusters: every order within 5 sigma of 1/16 or 1/32 as the model says.
    bool clusters = true;
    double heavy_sum = 0, light_sum = 0;
    int heavy = 0, light = 0;
    for (std::uint64_t r = 0; r < 24; ++r) {
      const double p = model.probability_of(r);
      const auto [e, sd] = count_law(p, n);
      const double c = static_cast<double>(s.run.tally[TallyKind::ranks].counts()[r]);
      clusters = clusters && std::fabs(c - e) <= sigmas_for(24) * sd;
      (p > 0.05 ? heavy_sum : light_sum) += c;
      (p > 0.05 ? heavy : light) += 1;
    }
    add("eight orders near 1/16, sixteen near 1/32 (mean counts)", "62,500 and 31,250",
        fixed(n / 16, 0) + " (x" + std::to_string(heavy) + ") and " + fixed(n / 32, 0) + " (x" +
            std::to_string(light) + ")",
        fixed(heavy_sum / heavy, 0) + " and " + fixed(light_sum / light, 0), clusters,
        "every one of the 24 counts within " + fixed(sigmas_for(24), 2) +
            " sd of its exact expectation (5 sd for the 24 together)");
    const auto [abcd, abcd_sd] = count_law(model.probability_of(0), n);
    const double abcd_count = static_cast<double>(s.run.tally[TallyKind::ranks].counts()[0]);
    add("ABCD appears", "about 62,485", fixed(abcd, 0) + " \u00b1 " + fixed(abcd_sd, 0),
        grouped(s.run.tally[TallyKind::ranks].counts()[0]), std::fabs(abcd_count - abcd) <= kSigmas * abcd_sd);
    const double calls = static_cast<double>(s.run.tally.draws) / n;
    add("comparator calls per shuffle", "4.5", model.mean_draws.str() + " (exact)",
        fixed(calls, 4), std::fabs(calls - 4.5) <= kSigmas * 0.5 / std::sqrt(n),
        "each shuffle makes 4 or 5 calls, so the sd of the mean is at most 0.5/sqrt(runs)");
    ratio_claim("one-liner max/min ratio", "about 2.026", model, s);
  }

  // The max/min ratio agrees when it lies within the range of the ratios of
  // kRatioReplicates simulated audits of the exact model: a correct sampler
  // falls outside with probability 2 / (kRatioReplicates + 1).
  void ratio_claim(const std::string& what, const std::string& article, const ExactDistribution& model,
                   const Sampled& s) {
    auto it = seed_free_.windows.find(what);
    if (it == seed_free_.windows.end())
      it = seed_free_.windows
               .emplace(what, simulate_max_min_ratio(model.probabilities(), static_cast<double>(s.job.trials),
                                                     kRatioReplicates, threads_))
               .first;
    const RatioLaw law = it->second;
    const double ratio = s.uniform.summary->max_min_ratio;
    add(what, article,
        fixed(law.mean, 3) + " (simulated mean; window " + fixed(law.low, 3) + ".." + fixed(law.high, 3) + ")",
        fixed(ratio, 3), ratio >= law.low && ratio <= law.high);
  }

  void two_valued_fit() {
    const Sampled s = audit(Algorithm::sort_binary_insertion, 4, 4 * runs_, one_liner_model.get());
    const GoodnessOfFit& g = s.uniform.rank->fit;
    add("4x runs tested against the two-valued model: a good fit", "chi2 about 19.7, df 23",
        "23 \u00b1 6.8 (chi-square, 23 df)",
        fixed(g.statistic, 1) + ", p " + general(g.p_value, 3),
        s.uniform.verdict.has_value() && *s.uniform.verdict != Verdict::fail);
  }

  void fisher_yates_claims() {
    const auto model = exact_distribution(Algorithm::fisher_yates, 4);
    const Sampled s = audit(Algorithm::fisher_yates, 4, runs_);
    const GoodnessOfFit& g = s.uniform.rank->fit;
    add("Fisher-Yates, n=4: chi-square near its df", "10.3", "23 \u00b1 6.8",
        fixed(g.statistic, 1) + ", p " + general(g.p_value, 3), *s.uniform.verdict != Verdict::fail);
    ratio_claim("Fisher-Yates, n=4: max/min ratio", "about 1.011", model, s);
  }

  void five_items() {
    const auto sort_model = exact_distribution(Algorithm::sort_binary_insertion, 5);
    const Sampled sort = audit(Algorithm::sort_binary_insertion, 5, runs_);
    chi2_claim("one-liner, n=5: chi-square vs uniform", "229,683", sort_model, sort);
    const Sampled fy = audit(Algorithm::fisher_yates, 5, runs_);
    add("Fisher-Yates, n=5: chi-square near its df", "89.0", "119 \u00b1 15.4",
        fixed(fy.uniform.rank->fit.statistic, 1) + ", p " + general(fy.uniform.rank->fit.p_value, 3),
        *fy.uniform.verdict != Verdict::fail);
  }

  void naive_swap_claims() {
    const auto model = exact_distribution(Algorithm::naive_swap, 4);
    const Sampled s = audit(Algorithm::naive_swap, 4, runs_);
    const double n = static_cast<double>(runs_);
    chi2_claim("naive swap, n=4: chi-square vs uniform", "29,913", model, s);
    const auto p = model.probabilities();
    const auto [lo_p, hi_p] = std::minmax_element(p.begin(), p.end());
    const auto [hi, hi_sd] = count_law(*hi_p, n);
    const auto [lo, lo_sd] = count_law(*lo_p, n);
    const auto& summary = *s.uniform.summary;
    add("naive swap: most frequent order", "58,698", fixed(hi, 0) + " \u00b1 " + fixed(hi_sd, 0) + " (15/256)",
        grouped(summary.most[0].second) + " (" + rank_label(summary.most[0].first, 4) + ")",
        std::fabs(static_cast<double>(summary.most[0].second) - hi) <= sigmas_for(24) * hi_sd);
    add("naive swap: least frequent order", "31,233", fixed(lo, 0) + " \u00b1 " + fixed(lo_sd, 0) + " (8/256)",
        grouped(summary.least[0].second) + " (" + rank_label(summary.least[0].first, 4) + ")",
        std::fabs(static_cast<double>(summary.least[0].second) - lo) <= sigmas_for(24) * lo_sd);

    const auto three = exact_distribution(Algorithm::naive_swap, 3);
    int fives = 0, fours = 0;
    for (auto c : three.rank_paths) fives += c == 5, fours += c == 4;
    add("naive swap, n=3: paths and orders", "27 paths; 3 orders x 5, 3 x 4", "exact walk",
        std::to_string(three.paths) + " paths; " + std::to_string(fives) + " x 5, " +
            std::to_string(fours) + " x 4",
        three.paths == 27 && fives == 3 && fours == 3);
    const auto [mn, mx] = std::minmax_element(model.rank_paths.begin(), model.rank_paths.end());
    add("naive swap, n=4: paths and counts", "256 paths; counts 8 to 15", "exact walk",
        std::to_string(model.paths) + " paths; counts " + std::to_string(*mn) + " to " + std::to_string(*mx),
        model.paths == 256 && *mn == 8 && *mx == 15);
  }

  void modulo_claims() {
    const std::uint64_t t32 = (std::uint64_t{1} << 32) % 52;
    add("2^32 mod 52", "48", "48", std::to_string(t32), t32 == 48);
    const DrawLaw law = draw_law(52, BoundedSpec{Method::modulo, 8});
    int five = 0, four = 0;
    std::vector<double> p(52);
    for (std::uint64_t v = 0; v < 52; ++v) {
      five += law.weight(v) == 5, four += law.weight(v) == 4;
      p[v] = static_cast<double>(law.weight(v)) / 256.0;
    }
    add("8-bit source, range 52, modulo: preimages per value", "48 values x 5, 4 x 4 (25% excess)",
        "48 x 5, 4 x 4 (5/4 = 1.25)", std::to_string(five) + " x 5, " + std::to_string(four) + " x 4",
        five == 48 && four == 4);
    // The draws needed to see it, and a check that that many draws do.
    const double delta = noncentrality_per_trial(p, std::vector<double>(52, 1.0 / 52));
    // Sized so that a correct source misses the verdict once in a million
    // seeds at most: power 1 - 1e-6, not 0.99.
    const auto draws = static_cast<std::uint64_t>(trials_to_detect(51, delta, kDetectAlpha, 1 - 1e-6));
    PhiloxStream words(seed_, 0);
    std::vector<std::uint64_t> counts(52, 0);
    for (std::uint64_t i = 0; i < draws; ++i) ++counts[bounded(words, 52, BoundedSpec{Method::modulo, 8})];
    const GoodnessOfFit g = chi_square_uniform(counts);
    const auto glimpse = static_cast<std::uint64_t>(trials_to_detect(51, delta, 0.05, 0.5));
    add("draws to see the 8-bit modulo bias", "a few thousand",
        grouped(glimpse) + " at alpha 0.05 (power 0.5); " + grouped(draws) + " at alpha 1e-6 (power 1 - 1e-6)",
        "p = " + general(g.p_value, 3) + " after " + grouped(draws) + " draws",
        glimpse < 10'000 && g.p_value < 1e-6,
        "a few thousand draws show the excess at the 5% level; a verdict at 1e-6 takes tens of thousands");
    const std::uint64_t reject = internal::reject_threshold(52, 32);
    add("rejection at 32 bits discards 48 of 2^32 words", "about 1 draw in 90 million",
        "48 / 2^32 = 1 in " + grouped(static_cast<std::uint64_t>(std::llround(4294967296.0 / 48))),
        std::to_string(reject) + " words rejected", reject == 48);
  }

  void deck_claims() {
    const Reach r = reach(52, 128);
    add("52! orders", "8.07e67 = 2^225.6", "exact", general(std::exp2(r.log2_orders), 3) + " = 2^" + fixed(r.log2_orders, 2),
        std::fabs(r.log2_orders - 225.58) < 0.01);
    add("share of orders a 128-bit state reaches", "at most 4.2e-30", "2^128 / 52!",
        general(r.fraction, 3), std::fabs(r.fraction / 4.2e-30 - 1) < 0.01);
    const Deal d = deal(52, 5, 128);
    add("five-card deals and hands", "311,875,200 ordered; 2,598,960 hands; ~10^30 states each",
        "52*51*50*49*48; C(52,5); 2^128 / deals",
        grouped(static_cast<std::uint64_t>(d.ordered)) + "; " + grouped(static_cast<std::uint64_t>(d.hands)) +
            "; " + general(d.states_per_deal, 3),
        d.ordered == 311875200.0 && d.hands == 2598960.0 && std::fabs(std::log10(d.states_per_deal) - 30) < 0.5);
  }

  // Bayer and Diaconis's table for 52 cards ("Trailing the dovetail shuffle
  // to its lair", 1992): the total variation distance to uniform after k
  // riffles, k = 1..10, from their closed form, exactly (riffle_law).
  void riffle_claims() {
    const double table[] = {1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043};
    std::string article, measured;
    bool agrees = true;
    int below_half = 0;  // the fewest riffles whose distance is under 1/2
    auto& distances = seed_free_.riffle_distances;
    if (!distances) {
      distances.emplace();
      for (int k = 1; k <= 10; ++k) (*distances)[k - 1] = static_cast<double>(riffles_law(52, k).total_variation);
    }
    for (int k = 1; k <= 10; ++k) {
      const double tv = (*distances)[k - 1];
      const std::string sep = k == 1 ? "" : ", ";
      article += sep + fixed(table[k - 1], 3);
      measured += sep + fixed(tv, 3);
      agrees = agrees && fixed(tv, 3) == fixed(table[k - 1], 3);
      if (below_half == 0 && tv < 0.5) below_half = k;
    }
    add("52 cards riffled k = 1..10 times: total variation to uniform", article,
        "exact: C(2^k + 52 - R, 52) / 2^52k by rising sequences R", measured, agrees);
    add("riffles before the distance falls below 1/2", "seven", "the first k above",
        std::to_string(below_half), below_half == 7);
    riffle_sample_claims();
  }

  // Sampled riffles against the law: the mean rising sequences of
  // kRiffleDecks decks of 52 after seven riffles, and of kDecksToTell such
  // decks against a uniform deck's (the audit's one-sided z on the mean).
  static constexpr std::uint64_t kRiffleDecks = 20'000, kDecksToTell = 200;
  // The share of `decks` decks of 52 in each bin of `kind`, from trial
  // `first`: a card shuffle (its algorithm and parameters in `job`) sampled.
  std::vector<double> deck_shares(Job job, TallyKind kind, std::uint64_t first, std::uint64_t decks) {
    job.seed = seed_;
    job.n = 52;
    job.first = first;
    job.trials = decks;
    job.tallies = TallySet{kind};
    RunOptions o;
    o.threads = threads_;
    const std::vector<std::uint64_t> counts = run(job, o).tally[kind].counts();
    std::vector<double> shares(counts.size());
    for (std::size_t b = 0; b < counts.size(); ++b)
      shares[b] = static_cast<double>(counts[b]) / static_cast<double>(decks);
    return shares;
  }
  // The mean rising sequences of `decks` decks riffled seven times.
  double riffled_mean(std::uint64_t decks, std::uint64_t first) {
    Job job;
    job.algorithm = Algorithm::riffle;
    job.riffles = 7;
    return moments_of(deck_shares(job, TallyKind::rises, first, decks)).mean + 1;  // bin r - 1
  }
  void riffle_sample_claims() {
    const Moments law = moments_of(to_doubles(riffles_law(52, 7).rises));  // bin r - 1
    const double expected = law.mean + 1, sd = std::sqrt(law.variance / static_cast<double>(kRiffleDecks));
    const double mean = riffled_mean(kRiffleDecks, 0);
    add("mean rising sequences, 52 cards riffled 7 times (" + grouped(kRiffleDecks) + " decks)",
        "E R = a - (n+1)/a^n sum r^n", fixed(expected, 3) + " \u00b1 " + fixed(sd, 3), fixed(mean, 3),
        std::fabs(mean - expected) <= kSigmas * sd);
    // Against a uniform deck: R has mean (n + 1) / 2, variance (n + 1) / 12.
    const double few = riffled_mean(kDecksToTell, kRiffleDecks);
    const double z = (few - 26.5) / std::sqrt(53.0 / 12.0 / static_cast<double>(kDecksToTell));
    const GoodnessOfFit fit = z_test(z, Tail::lower);
    add("seven riffles told apart from uniform in " + grouped(kDecksToTell) + " decks (mean R, one-sided z)",
        "seven shuffles are not yet uniform", "p <= 1e-6 (FAIL)", "z " + fixed(z, 1) + ", p " + general(fit.p_value, 2),
        fit.p_value <= 1e-6);
  }

  // Diaconis, Fulman and Holmes, "Analysis of casino shelf shuffling
  // machines" (2013): one pass of a 10-shelf machine is far from uniform,
  // a guesser who follows its piles names about 9.5 cards of 52, and the
  // maker's answer, a second pass, is one pass of 200 shelves.
  static constexpr std::uint64_t kShelfDecks = 10'000;
  // The shelf guesser's mean score over kShelfDecks decks of `passes`
  // passes, and its standard error.
  std::pair<double, double> shelf_guessed(int passes, std::uint64_t first) {
    Job job;
    job.algorithm = Algorithm::shelf;
    job.shelves = 10;
    job.passes = passes;
    const Moments m = moments_of(deck_shares(job, TallyKind::shelf_guesses, first, kShelfDecks));
    return {m.mean, std::sqrt(m.variance / kShelfDecks)};
  }
  void shelf_claims() {
    auto& distances = seed_free_.shelf_distances;
    if (!distances)
      distances = {{static_cast<double>(shelf_law(52, 10, 1).total_variation),
                    static_cast<double>(shelf_law(52, 10, 2).total_variation)}};
    const ShelfLaw two = shelf_law(52, 10, 2);
    add("52 cards, 10 shelves: total variation to uniform after one pass and two",
        "one pass is far from uniform; two passes are one pass of 200 shelves",
        "exact, by valleys: (2 x 10)^2 / 2 = 200 shelves",
        fixed((*distances)[0], 6) + ", " + fixed((*distances)[1], 4) + "; " + two.one_pass_shelves.str() + " shelves",
        (*distances)[0] > 0.9999 && (*distances)[1] < 0.05 && two.one_pass_shelves == 200);
    const Moments fair = moments_of(correct_guesses_law(52));
    auto& guessing = seed_free_.shelf_guessing;
    if (!guessing) guessing = {{shelf_guessing(shelf_law(52, 10, 1)), shelf_guessing(two)}};
    const double exact_one = static_cast<double>((*guessing)[0].mean);
    const auto [one, sd] = shelf_guessed(1, 0);
    add("cards of 52 a guesser names after one pass of 10 shelves (" + grouped(kShelfDecks) + " decks)",
        "about 9.5 (a fair deck: H_52 = 4.54)",
        fixed(exact_one, 4) + " (exact; the best any guesser can: " +
            fixed(static_cast<double>((*guessing)[0].best_mean), 4) + ")",
        fixed(one, 2) + " \u00b1 " + fixed(sd, 2), std::fabs(one - exact_one) <= kSigmas * sd,
        std::string("the guesser follows each pile up, then down") +
            ((*guessing)[0].mean == (*guessing)[0].best_mean ? ", and no guesser does better" : "") +
            ((*guessing)[0].best_mean < Rational(19, 2) ? "; under the exact law of one pass none can expect their 9.5"
                                                         : "") +
            "; a fair deck allows " +
            fixed(fair.mean, 2) + " to any strategy");
    const double exact_two = static_cast<double>((*guessing)[1].mean);
    const auto [twice, sd_twice] = shelf_guessed(2, kShelfDecks);
    add("the same guesser after two passes (" + grouped(kShelfDecks) + " decks)", "the maker's fix: two passes",
        fixed(exact_two, 4) + " (exact; the best any guesser can: " +
            fixed(static_cast<double>((*guessing)[1].best_mean), 4) + ")",
        fixed(twice, 2) + " \u00b1 " + fixed(sd_twice, 2), std::fabs(twice - exact_two) <= kSigmas * sd_twice,
        "near a fair deck's " + fixed(fair.mean, 2));
  }

  // A deal audit of `trials` trials against uniform, tallies as asked.
  Sampled deal_audit(int n, int k, std::uint64_t trials, bool hands, bool categories) {
    return audit(Algorithm::partial, n, trials, nullptr, [&](Job& job) {
      job.k = k;
      job.tallies.set(TallyKind::ranks, false);
      job.tallies.set(TallyKind::positions, true);
      job.tallies.set(TallyKind::hands, hands);
      job.tallies.set(TallyKind::poker, categories);
    });
  }

  static std::string p_of(const std::optional<TestResult>& t) {
    return t ? "p " + p_text(t->fit.p_value, t->fit.log10_p) + " (" + std::string(verdict_name(t->verdict)) + ")"
             : "not run";
  }

  // The poker article's deals and the PHP page's "5 winners out of 10,000".
  void deal_claims() {
    // Every hand of five cards, categorised: the ten counts of contract §3.
    if (!seed_free_.poker_counts) {
      std::array<std::uint64_t, kPokerCategories> counts{};
      int hand[5];
      for (hand[4] = 4; hand[4] < 52; ++hand[4])
        for (hand[3] = 3; hand[3] < hand[4]; ++hand[3])
          for (hand[2] = 2; hand[2] < hand[3]; ++hand[2])
            for (hand[1] = 1; hand[1] < hand[2]; ++hand[1])
              for (hand[0] = 0; hand[0] < hand[1]; ++hand[0]) ++counts[static_cast<std::size_t>(poker_category(hand))];
      seed_free_.poker_counts = counts;
    }
    const auto& counts = *seed_free_.poker_counts;
    std::string measured;
    for (std::size_t c = 0; c < counts.size(); ++c) measured += (c ? ", " : "") + grouped(counts[c]);
    add("hands in each poker category, royal flush .. high card", "4, 36, 624, 3,744, 5,108, 10,200, 54,912, 123,552, "
        "1,098,240, 1,302,540", "the same, over all 2,598,960 hands", measured, counts == kPokerCategoryHands);
    // A fair deal of 5 of 52 through every tally: enough trials for 5
    // expected hands in each of the 2,598,960 bins (a full run), or for 5
    // expected royal flushes (--quick: the hand test is left to the full run).
    const bool hands = runs_ >= 1'000'000;
    const std::uint64_t poker_trials = hands ? 13'000'000 : 3'300'000;
    const Sampled poker = deal_audit(52, 5, poker_trials, hands, true);
    // A fair deal fails a test at 1e-6 once in a million seeds; WEAK (p below
    // 0.005) is one seed in a hundred, and agrees.
    const bool poker_pass = (poker.uniform.test(TallyKind::hands) || !hands) &&
                            poker.uniform.test(TallyKind::poker) && poker.uniform.position &&
                            poker.uniform.verdict != Verdict::fail;
    add(hands ? "a fair partial deal of 5 of 52 passes its hand and category tests"
              : "a fair partial deal of 5 of 52 passes its category test (hands: full run)",
        "311,875,200 equally likely deals", std::string("no FAIL (") + (hands ? "hand, " : "") +
                                                "category and slot tests, Holm, 1e-6)",
        (hands ? "hand " + p_of(poker.uniform.test(TallyKind::hands)) + "; " : std::string()) + "category " +
            p_of(poker.uniform.test(TallyKind::poker)) + "; slot " + p_of(poker.uniform.position) + "; " + grouped(poker_trials) +
            " deals",
        poker_pass);
    // "Draw 5 winners out of 10,000": every item as likely in every slot.
    const Sampled winners = deal_audit(10'000, 5, runs_, false, false);
    add("partial 5 of 10,000 has a uniform item x slot matrix", "each of the 10,000 as likely to win each place",
        "no FAIL (slot test, 49,995 df)", "slot " + p_of(winners.uniform.position) + "; " + grouped(runs_) + " draws",
        winners.uniform.position && winners.uniform.position->verdict != Verdict::fail);
  }

  // The PHP page's weighted shuffle (Efraimidis-Spirakis) and its demo
  // formula, with weights 1, 2, 3, 4.
  void weighted_claims() {
    const std::vector<Rational> exact_weights = {Rational(1), Rational(2), Rational(3), Rational(4)};
    const ExactDistribution law = plackett_luce_distribution(Algorithm::weighted, exact_weights);
    auto weighted_audit = [&](Algorithm a) {
      return audit(a, 4, runs_, &law, [](Job& job) {
        job.weights = {1, 2, 3, 4};
        job.tallies.set(TallyKind::positions, true);
      });
    };
    const Sampled fair = weighted_audit(Algorithm::weighted);
    add("weighted (Efraimidis-Spirakis), weights 1..4, follows its exact law", "heavier items come first in proportion",
        "Plackett-Luce, exact: P(DCBA) = 4/10 x 3/6 x 2/3 = 2/15", "rank " + p_of(fair.uniform.rank) +
            " against it; DCBA " + grouped(fair.run.tally[TallyKind::ranks].counts()[23]) + " of " + grouped(runs_),
        fair.uniform.rank && fair.uniform.rank->verdict != Verdict::fail);
    const Sampled demo = weighted_audit(Algorithm::weighted_int_power);
    const std::uint64_t heaviest_first = demo.run.tally[TallyKind::positions].at(3, 0);
    const std::uint64_t lightest_first = demo.run.tally[TallyKind::positions].at(0, 0);
    add("the demo formula U^(1/w): which item comes first", "heavier items come first",
        "the lightest, always: the heaviest never (not 4 in 10, as Plackett-Luce)",
        "heaviest first " + grouped(heaviest_first) + " times, lightest first " + grouped(lightest_first) + " of " +
            grouped(runs_) + "; order ABCD " + grouped(demo.run.tally[TallyKind::ranks].counts()[0]),
        heaviest_first == 0 && demo.uniform.verdict == Verdict::fail,
        "the claim does not hold, as melange expects: on a 63-bit U the keys U, U^(1/2), U^(1/3), U^(1/4) are "
        "astronomically apart, so descending order lists the items lightest first, nearly always as ABCD");
  }

  void asf_claims() {
    if (!seed_free_.asf) seed_free_.asf = asf_claim(seed_, threads_, quiet_);
    claims.push_back(*seed_free_.asf);
  }

  std::uint64_t seed_, runs_;
  int threads_;
  bool quiet_;
  SeedFree& seed_free_;

  // The article's claims, a group a row, in its order: the member that
  // measures a group and adds its claims. A new claim is a line in its
  // group's member; a new group, a member and a row.
  using Group = void (Reproduction::*)();
  static constexpr Group kGroups[] = {
      &Reproduction::one_liner_claims,  // the sort one-liner at n = 4: chi-square, clusters, ABCD, calls, max/min
      &Reproduction::two_valued_fit,  // the one-liner against its own two-valued law
      &Reproduction::fisher_yates_claims,  // Fisher-Yates at n = 4
      &Reproduction::five_items,  // five items: the one-liner and Fisher-Yates
      &Reproduction::naive_swap_claims,  // the naive swap: chi-square, extremes, n = 3 paths
      &Reproduction::modulo_claims,  // modulo and rejection at range 52: preimages, draws to see the bias
      &Reproduction::deck_claims,  // a deck of 52: its orders, what a state reaches, five-card deals
      &Reproduction::deal_claims,  // deals: the poker categories, the slot matrix of 5 of 10,000
      &Reproduction::weighted_claims,  // the weighted orders and the PHP page's demo formula
      &Reproduction::riffle_claims,  // Bayer and Diaconis: 52 cards, k riffles, exactly
      &Reproduction::shelf_claims,  // Diaconis, Fulman and Holmes: a casino shelf shuffler, one pass and two
      &Reproduction::asf_claims,  // ASF's poker shuffle: a deck named by five cards among a day's seeds
  };

};

// --seeds K: every claim over seeds S .. S + K - 1; a correct implementation
// disagrees about once in a million claims or less.
int sweep_seeds(const ReproduceArgs& a, std::uint64_t seed, std::uint64_t runs, int threads,
                SeedFree& seed_free) {
  const std::uint64_t count = parse_count(a.seeds, "--seeds", 1'000'000);
  if (count == 0) throw UsageError("--seeds must be at least 1");
  if (!a.json.empty() || !a.report_dir.empty())
    throw UsageError("--seeds prints a summary only; leave out --json and --report");
  std::vector<std::string> names;
  std::vector<std::uint64_t> misses;
  std::uint64_t total = 0;
  for (std::uint64_t k = 0; k < count; ++k) {
    Reproduction r(seed + k, runs, threads, true, seed_free);
    r.all();
    misses.resize(r.claims.size(), 0);
    for (std::size_t c = 0; c < r.claims.size(); ++c) {
      if (names.size() < r.claims.size()) names.push_back(r.claims[c].claim);
      if (!r.claims[c].agrees) {
        ++misses[c];
        ++total;
        std::cout << "seed " << seed + k << ": " << r.claims[c].claim << " disagrees (" << r.claims[c].measured
                  << ")\n";
      }
    }
  }
  std::cout << "melange reproduce: " << grouped(count) << " seeds from " << seed << ", " << grouped(runs)
            << " runs per audit\n";
  for (std::size_t c = 0; c < names.size(); ++c)
    std::cout << "  " << pad(names[c], 60) << " " << grouped(misses[c]) << " disagreements\n";
  std::cout << grouped(total) << " disagreements in " << grouped(count * names.size()) << " claims.\n";
  return total == 0 ? 0 : kExitDisagrees;
}

int run_reproduce(const ReproduceArgs& a) {
  const std::uint64_t seed = a.seed.empty() ? kDefaultSeed : parse_seed(a.seed);
  const std::uint64_t runs = a.quick ? 100'000 : 1'000'000;
  const int threads = thread_count(a.threads);
  Outputs outputs;
  outputs.declare("--json", a.json);
  const std::string page = outputs.declare_report("--report", a.report_dir);
  SeedFree seed_free;
  if (!a.seeds.empty()) return sweep_seeds(a, seed, runs, threads, seed_free);
  Reproduction r(seed, runs, threads, a.quiet, seed_free);
  r.all();

  if (!a.json.empty()) {
    write_json(outputs.open(a.json), claims_json(r.claims, seed, runs, a.quick));
  }
  if (!page.empty()) {
    if (r.one_liner) {
      const AuditView chart{r.one_liner->job, r.one_liner->run, r.one_liner->uniform, nullptr, ""};
      outputs.write(page, table_html(r.claims, &chart, seed, runs));
    } else {
      outputs.write(page, table_html(r.claims, nullptr, seed, runs));
    }
  }
  if (a.json != "-") std::cout << table_text(r.claims, seed, runs);
  outputs.commit();
  const bool all = std::all_of(r.claims.begin(), r.claims.end(), [](const Claim& c) { return c.agrees; });
  return all ? 0 : kExitDisagrees;
}

}  // namespace

void add_reproduce_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ReproduceArgs>();
  auto* cmd = app.add_subcommand(
      "reproduce", "Check every measurable claim of the article against exact values and new runs");
  cmd->add_flag("--quick", a->quick, "ten times fewer runs (10^5 per audit)");
  cmd->add_option("--seed", a->seed, "64-bit seed (default: fixed, printed)");
  cmd->add_option("--threads", a->threads, "worker threads (default: one per hardware thread)");
  cmd->add_option("--json", a->json, "write the table as JSON to FILE ('-': JSON on stdout only)");
  cmd->add_option("--report", a->report_dir, "write a self-contained HTML page to DIR/index.html");
  cmd->add_flag("--quiet", a->quiet, "no progress line on the terminal");
  cmd->add_option("--seeds", a->seeds,
                  "check every claim over K seeds from --seed, printing only the disagreements and a summary");
  cmd->footer("Exit status: 0 every claim agrees; 3 some claim does not; 2 usage error; 1 runtime error.");
  cmd->callback([a, &action] { action = [a] { return run_reproduce(*a); }; });
}

}  // namespace melange::cli
