#include "melange/stats.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numeric>

#include "melange/error.hpp"

namespace melange {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// log Q(a, x), the regularized upper incomplete gamma, by its continued
// fraction (modified Lentz). Valid for x > a + 1, where Q itself may
// underflow a double long before its logarithm does.
double log_gamma_q_continued_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-15) break;
  }
  return -x + a * std::log(x) - std::lgamma(a) + std::log(h);
}

// One bin's share of the Pearson and G statistics.
void add_bin(GoodnessOfFit& g, double observed, double expected) {
  g.min_expected = std::min(g.min_expected, expected);
  g.statistic += (observed - expected) * (observed - expected) / expected;
  if (observed > 0) g.g_statistic += 2 * observed * std::log(observed / expected);
}

// Tails and critical value once the statistics and df are in.
void finish(GoodnessOfFit& g, double alpha) {
  if (g.impossible > 0) g.statistic = g.g_statistic = kInf;
  if (g.df > 0) {
    g.p_value = chi2_upper(g.statistic, g.df);
    g.p_lower = chi2_lower(g.statistic, g.df);
    g.log10_p = log10_chi2_upper(g.statistic, g.df);
    g.critical = chi2_critical(g.df, alpha);
    g.g_p_value = std::isnan(g.g_statistic) ? g.g_statistic : chi2_upper(g.g_statistic, g.df);
  } else {
    g.p_lower = 0;
  }
}

// log10 of P(Z >= z), finite where the tail underflows: past z = 37 the
// asymptotic series phi(z)/z (1 - 1/z^2 + 3/z^4).
double log10_normal_upper(double z) {
  if (z < 37) return std::log10(0.5 * std::erfc(z / std::sqrt(2.0)));
  const double z2 = z * z;
  return (-0.5 * z2 - 0.5 * std::log(2 * M_PI) - std::log(z) + std::log1p(-1 / z2 + 3 / (z2 * z2))) / std::log(10.0);
}

}  // namespace

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::weak: return "WEAK";
    case Verdict::fail: return "FAIL";
  }
  return "?";
}

Verdict grade_tail(double p, const Thresholds& t) {
  if (p < t.fail) return Verdict::fail;
  if (p < t.weak) return Verdict::weak;
  return Verdict::pass;
}

Verdict grade(double p, const Thresholds& t) {
  if (p < t.fail || p > 1 - t.fail) return Verdict::fail;
  if (p < t.weak || p > 1 - t.weak) return Verdict::weak;
  return Verdict::pass;
}

double chi2_upper(double x, double df) {
  if (!(x < kInf)) return 0;
  if (x <= 0) return 1;
  return boost::math::cdf(boost::math::complement(boost::math::chi_squared(df), x));
}

double chi2_lower(double x, double df) {
  if (!(x < kInf)) return 1;
  if (x <= 0) return 0;
  return boost::math::cdf(boost::math::chi_squared(df), x);
}

double log10_chi2_upper(double x, double df) {
  if (!(x < kInf)) return -kInf;
  const double p = chi2_upper(x, df);
  if (p > 1e-290 || x / 2 <= df / 2 + 1) return std::log10(p);
  return log_gamma_q_continued_fraction(df / 2, x / 2) / std::log(10.0);
}

double chi2_critical(double df, double alpha) {
  return boost::math::quantile(boost::math::complement(boost::math::chi_squared(df), alpha));
}

namespace {

// Pearson and G against probability(i) for each bin, normalised by their sum.
// Taking the probabilities as a function lets a uniform reference run over
// n! bins without an n!-entry vector beside the tally.
template <class Probability>
GoodnessOfFit chi_square_with(const std::vector<std::uint64_t>& observed, Probability&& probability,
                              double alpha) {
  double total_p = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) total_p += probability(i);
  const double trials =
      static_cast<double>(std::accumulate(observed.begin(), observed.end(), std::uint64_t{0}));
  GoodnessOfFit g;
  g.min_expected = kInf;
  std::size_t support = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double o = static_cast<double>(observed[i]);
    const double p = probability(i);
    if (p <= 0) {
      g.impossible += observed[i];
      continue;
    }
    ++support;
    add_bin(g, o, trials * p / total_p);
  }
  g.df = support > 0 ? static_cast<double>(support - 1) : 0;
  // The likeliest table's log probability; a bin's term is reused while the
  // probabilities repeat (all n! of them under uniform), sparing n! lgammas.
  double log_mode = std::lgamma(trials + 1), last_p = -1, last_term = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    const double p = probability(i) / total_p;
    if (p <= 0) continue;
    if (p != last_p) {
      last_p = p;
      last_term = trials * p * std::log(p) - std::lgamma(trials * p + 1);
    }
    log_mode += last_term;
  }
  g.log10_mode = std::min(0.0, log_mode / std::log(10.0));
  finish(g, alpha);
  return g;
}

// Near the 5-per-bin guard, the tails that could decide a verdict become
// the multinomial's exact ones where the table is small enough (see
// kAsymptoticExpected). `probabilities` empty: equal bins.
void exact_tails_near_guard(GoodnessOfFit& g, const std::vector<std::uint64_t>& observed,
                            const std::vector<double>& probabilities) {
  if (!(g.min_expected < kAsymptoticExpected) || g.impossible > 0 || g.df < 1) return;
  if (!(g.p_value < kExactTailBelow) && !(g.p_lower < kExactTailBelow)) return;  // most near-guard tables
  // The bins of positive probability (equal bins: all of them, as given).
  std::vector<std::uint64_t> support;
  std::vector<double> p;
  for (std::size_t i = 0; i < observed.size() && !probabilities.empty(); ++i)
    if (probabilities[i] > 0) {
      support.push_back(observed[i]);
      p.push_back(probabilities[i]);
    }
  const std::vector<std::uint64_t>& counts = probabilities.empty() ? observed : support;
  if (g.p_value < kExactTailBelow)
    if (const std::optional<double> tail = multinomial_pearson_tail(counts, p, Tail::upper); tail && *tail > 0) {
      g.p_value = *tail;
      g.log10_p = std::log10(*tail);
      g.exact_upper = true;
    }
  if (g.p_lower < kExactTailBelow)
    if (const std::optional<double> tail = multinomial_pearson_tail(counts, p, Tail::lower); tail) {
      g.p_lower = *tail;
      g.exact_lower = true;
    }
}

}  // namespace

GoodnessOfFit chi_square(const std::vector<std::uint64_t>& observed,
                         const std::vector<double>& probabilities, double alpha) {
  if (observed.size() != probabilities.size())
    throw UsageError("model has " + std::to_string(probabilities.size()) + " bins, the tally " +
                     std::to_string(observed.size()) + ": the model is for another n");
  GoodnessOfFit g = chi_square_with(observed, [&](std::size_t i) { return probabilities[i]; }, alpha);
  exact_tails_near_guard(g, observed, probabilities);
  return g;
}

GoodnessOfFit chi_square_uniform(const std::vector<std::uint64_t>& observed, double alpha) {
  GoodnessOfFit g = chi_square_with(observed, [](std::size_t) { return 1.0; }, alpha);
  exact_tails_near_guard(g, observed, {});
  return g;
}

RankSummary summarize(const RankHistogram& h, int extremes) {
  RankSummary s;
  const auto& c = h.counts();
  if (c.empty()) return s;
  s.identity_count = c[0];
  const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
  s.max_min_ratio = *lo == 0 ? kInf : static_cast<double>(*hi) / static_cast<double>(*lo);
  // The k extremes by a bounded heap each: no n!-entry index beside the tally.
  // Ties break by rank so that the listing is reproducible.
  const std::size_t k = std::min<std::size_t>(extremes, c.size());
  auto more = [&](std::uint64_t a, std::uint64_t b) { return c[a] != c[b] ? c[a] > c[b] : a < b; };
  auto less = [&](std::uint64_t a, std::uint64_t b) { return c[a] != c[b] ? c[a] < c[b] : a < b; };
  auto extreme = [&](auto better) {
    std::vector<std::uint64_t> heap;  // the k best so far; the worst of them on top
    for (std::uint64_t r = 0; r < c.size(); ++r) {
      if (heap.size() < k) {
        heap.push_back(r);
        std::push_heap(heap.begin(), heap.end(), better);
      } else if (k > 0 && better(r, heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), better);
        heap.back() = r;
        std::push_heap(heap.begin(), heap.end(), better);
      }
    }
    std::sort_heap(heap.begin(), heap.end(), better);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (std::uint64_t r : heap) out.emplace_back(r, c[r]);
    return out;
  };
  s.most = extreme(more);
  s.least = extreme(less);
  return s;
}

std::vector<double> position_residuals(const PositionMatrix& m, const std::vector<double>& expected) {
  const int n = m.n();
  const double trials = static_cast<double>(m.trials());
  std::vector<double> z(static_cast<std::size_t>(n) * m.k(), 0.0);
  for (std::size_t i = 0; i < z.size(); ++i) {
    const double p = expected.empty() ? 1.0 / n : expected[i];
    const double var = trials * p * (1 - p);
    const double diff = static_cast<double>(m.counts()[i]) - trials * p;
    z[i] = var > 0 ? diff / std::sqrt(var) : (diff == 0 ? 0 : kInf);
  }
  return z;
}

namespace {

// Eigenvalues and eigenvectors of a symmetric matrix (row-major, size x size)
// by cyclic Jacobi rotations: a is destroyed; vectors[k * size + i] is
// component i of eigenvector k. Sizes here are n^2 <= a few hundred.
void symmetric_eigen(std::vector<double>& a, std::size_t size, std::vector<double>& values,
                     std::vector<double>& vectors) {
  vectors.assign(size * size, 0.0);
  for (std::size_t i = 0; i < size; ++i) vectors[i * size + i] = 1;
  auto at = [&](std::size_t i, std::size_t j) -> double& { return a[i * size + j]; };
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, diag = 0;
    for (std::size_t i = 0; i < size; ++i) {
      diag += at(i, i) * at(i, i);
      for (std::size_t j = i + 1; j < size; ++j) off += at(i, j) * at(i, j);
    }
    if (off <= 1e-30 * diag || off == 0) break;
    for (std::size_t p = 0; p < size; ++p)
      for (std::size_t q = p + 1; q < size; ++q) {
        const double apq = at(p, q);
        if (std::fabs(apq) < 1e-300) continue;
        const double theta = (at(q, q) - at(p, p)) / (2 * apq);
        const double t = (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), sn = t * c;
        for (std::size_t k = 0; k < size; ++k) {  // columns p and q
          const double akp = at(k, p), akq = at(k, q);
          at(k, p) = c * akp - sn * akq;
          at(k, q) = sn * akp + c * akq;
        }
        for (std::size_t k = 0; k < size; ++k) {  // rows p and q
          const double apk = at(p, k), aqk = at(q, k);
          at(p, k) = c * apk - sn * aqk;
          at(q, k) = sn * apk + c * aqk;
        }
        for (std::size_t k = 0; k < size; ++k) {
          double& vp = vectors[p * size + k];
          double& vq = vectors[q * size + k];
          const double a_ = vp, b_ = vq;
          vp = c * a_ - sn * b_;
          vq = sn * a_ + c * b_;
        }
      }
  }
  values.resize(size);
  for (std::size_t i = 0; i < size; ++i) values[i] = at(i, i);
}

// log of the probability of the most likely row of a multinomial(T, p).
double log_mode_row(double trials, const double* p, int cells) {
  double l = std::lgamma(trials + 1);
  for (int j = 0; j < cells; ++j)
    if (p[j] > 0) l += trials * p[j] * std::log(p[j]) - std::lgamma(trials * p[j] + 1);
  return l;
}

}  // namespace

PositionTest position_test(const PositionMatrix& m, const PositionLaw* law, double alpha) {
  const int n = m.n(), k = m.k();
  const std::size_t cells = static_cast<std::size_t>(n) * k;
  PositionTest t;
  const double trials = static_cast<double>(m.trials());
  GoodnessOfFit& g = t.fit;
  g.min_expected = kInf;
  std::vector<double> p(cells, 1.0 / n);
  if (law) p = law->p;
  // The lattice's coarseness: each column (a position or slot) is a
  // multinomial over the items, n - 1 of n columns free for a permutation.
  std::vector<double> column(static_cast<std::size_t>(n));
  double log_mode = 0;
  for (int slot = 0; slot < k; ++slot) {
    for (int item = 0; item < n; ++item) column[item] = p[static_cast<std::size_t>(item) * k + slot];
    log_mode += log_mode_row(trials, column.data(), n);
  }
  const double free_columns = k == n ? static_cast<double>(n - 1) / n : 1.0;
  g.log10_mode = n > 1 ? std::min(0.0, log_mode * free_columns / std::log(10.0)) : 0;
  if (!law) {
    const double e = trials / n;
    for (std::size_t i = 0; i < cells; ++i) add_bin(g, static_cast<double>(m.counts()[i]), e);
    if (k == n) {
      // Cells covary: Pearson's sum is (n / (n-1)) chi2((n-1)^2) under uniform.
      const double scale = n > 1 ? static_cast<double>(n - 1) / n : 1;
      g.statistic *= scale;
      g.g_statistic *= scale;
      g.df = static_cast<double>(n - 1) * (n - 1);
    } else {
      // A deal: split Pearson's sum into the row-sum part and the rest
      // (see stats.hpp) and rescale each.
      double rows = 0;
      for (int item = 0; item < n; ++item) {
        double deviation = 0;  // sum over slots of O - E
        for (int slot = 0; slot < k; ++slot) deviation += static_cast<double>(m.at(item, slot)) - e;
        rows += deviation * deviation / k / e;
      }
      const double slots = std::max(0.0, g.statistic - rows);
      const double pearson = g.statistic;
      g.statistic = slots * (n - 1) / n + rows * (n - 1) / (n - k);
      g.g_statistic *= pearson > 0 ? g.statistic / pearson : 1;
      g.df = static_cast<double>(n - 1) * k;
    }
  } else {
    std::vector<double> x(cells);
    for (std::size_t i = 0; i < cells; ++i) {
      x[i] = static_cast<double>(m.counts()[i]) - trials * p[i];
      if (p[i] <= 0) g.impossible += m.counts()[i];
      else g.min_expected = std::min(g.min_expected, trials * p[i]);
    }
    // Sigma = pair - p p' per trial; the statistic is x' (T Sigma)^+ x.
    std::vector<double> sigma(cells * cells);
    for (std::size_t a = 0; a < cells; ++a)
      for (std::size_t b = 0; b < cells; ++b) sigma[a * cells + b] = law->pair[a * cells + b] - p[a] * p[b];
    std::vector<double> values, vectors;
    symmetric_eigen(sigma, cells, values, vectors);
    const double top = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
    double stat = 0;
    int rank = 0;
    for (std::size_t v = 0; v < cells; ++v) {
      if (!(values[v] > 1e-10 * top)) continue;
      ++rank;
      double proj = 0;
      for (std::size_t i = 0; i < cells; ++i) proj += vectors[v * cells + i] * x[i];
      stat += proj * proj / (trials * values[v]);
    }
    g.statistic = stat;
    g.g_statistic = std::numeric_limits<double>::quiet_NaN();
    g.df = rank;
  }
  finish(g, alpha);
  const std::vector<double> z = position_residuals(m, law ? law->p : std::vector<double>{});
  for (std::size_t i = 0; i < z.size(); ++i)
    if (std::fabs(z[i]) > std::fabs(t.max_residual)) {
      t.max_residual = z[i];
      t.max_item = static_cast<int>(i / k);
      t.max_position = static_cast<int>(i % k);
    }
  return t;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adj(m);
  double running = 0;
  for (std::size_t k = 0; k < m; ++k) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - k) * p[order[k]]));
    adj[order[k]] = running;
  }
  return adj;
}

std::vector<double> holm_adjust_log10(const std::vector<double>& log10_p) {
  const std::size_t m = log10_p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return log10_p[a] < log10_p[b]; });
  std::vector<double> adj(m);
  double running = -kInf;
  for (std::size_t k = 0; k < m; ++k) {
    const double scaled = log10_p[order[k]] + std::log10(static_cast<double>(m - k));
    running = std::max(running, std::min(0.0, scaled));
    adj[order[k]] = running;
  }
  return adj;
}

double noncentrality_per_trial(const std::vector<double>& truth, const std::vector<double>& null) {
  double delta = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    if (null[i] <= 0) {
      if (truth[i] > 0) return kInf;
      continue;
    }
    delta += (truth[i] - null[i]) * (truth[i] - null[i]) / null[i];
  }
  return delta;
}

double expected_chi2(double df, double delta, double trials) { return df + trials * delta; }

double trials_to_detect(double df, double delta, double alpha, double power) {
  if (!(delta > 0)) return kInf;
  if (!(delta < kInf)) return 1;
  const double critical = chi2_critical(df, alpha);
  const double lambda =
      boost::math::non_central_chi_squared_distribution<double>::find_non_centrality(
          df, critical, 1 - power);
  return std::ceil(lambda / delta);
}

double noncentrality_to_detect(double df, double alpha, double power) {
  return boost::math::non_central_chi_squared_distribution<double>::find_non_centrality(
      df, chi2_critical(df, alpha), 1 - power);
}

double z_to_detect(double alpha, double power) {
  const boost::math::normal_distribution<double> normal;
  return boost::math::quantile(boost::math::complement(normal, alpha / 2)) + boost::math::quantile(normal, power);
}

double detectable_chi2_effect(double df, double sensitivity, double trials, double alpha, double power) {
  if (!(sensitivity > 0) || !(trials > 0) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(noncentrality_to_detect(df, alpha, power) / (trials * sensitivity));
}

double detectable_z_effect(double sensitivity, double trials, double alpha, double power) {
  if (!(sensitivity > 0) || !(trials > 0)) return std::numeric_limits<double>::quiet_NaN();
  return z_to_detect(alpha, power) * sensitivity / std::sqrt(trials);
}

GoodnessOfFit z_test(double z, Tail tail) {
  GoodnessOfFit g;
  g.statistic = z;
  g.df = 1;
  g.g_statistic = g.g_p_value = std::numeric_limits<double>::quiet_NaN();
  const double toward = tail == Tail::upper ? z : tail == Tail::lower ? -z : std::fabs(z);
  g.log10_p = std::min(0.0, log10_normal_upper(toward) + (tail == Tail::both ? std::log10(2.0) : 0.0));
  g.p_value = std::pow(10.0, g.log10_p);
  g.p_lower = 1 - g.p_value;
  g.min_expected = kInf;
  g.log10_mode = 0;
  return g;
}

namespace {

// log10 P(X >= x) (upward) or P(X <= x) of a Poisson(lambda), lambda =
// e^log_lambda given by its log where it is far below 1: e^-lambda
// lambda^x / x! times 1 + lambda/(x+1) + lambda^2/((x+1)(x+2)) + .., whose
// terms fall at least as fast as lambda / (x + 1) < 1 (or, downward,
// x/lambda + x(x-1)/lambda^2 + .., for x < lambda). Where a tail a double
// cannot hold, or a series the incomplete gamma does not take.
double log10_poisson_point_series(std::uint64_t x, double lambda, double log_lambda, bool upward) {
  const auto d = static_cast<double>(x);
  double sum = 1, term = 1;
  for (std::uint64_t i = 1; i < 100000 && term > 1e-17 * sum; ++i) {
    if (upward) {
      term *= lambda / (d + static_cast<double>(i));
    } else {
      if (i > x) break;
      term *= (d - static_cast<double>(i) + 1) / lambda;
    }
    sum += term;
  }
  return (-lambda + d * log_lambda - std::lgamma(d + 1) + std::log(sum)) / std::log(10.0);
}

// Below this a tail is taken from its bound or series (a double's range ends
// near 1e-308, and Boost's tails lose their digits before it).
constexpr double kSmallestTail = 1e-300;

// log10 of `tail`, or `far()` where the tail is past a double's range.
template <class Far>
double log10_or(double tail, Far far) {
  return tail > kSmallestTail ? std::log10(tail) : far();
}

}  // namespace

GoodnessOfFit poisson_test(std::uint64_t x, double log_lambda) {
  GoodnessOfFit g;
  g.statistic = static_cast<double>(x);
  g.df = 1;
  g.g_statistic = g.g_p_value = std::numeric_limits<double>::quiet_NaN();
  g.min_expected = kInf;
  g.log10_mode = 0;
  const double lambda = std::exp(log_lambda);
  const auto d = static_cast<double>(x);
  if (x == 0) {
    g.log10_p = 0;
  } else if (lambda >= d) {
    g.log10_p = std::log10(boost::math::gamma_p(d, lambda));
  } else {
    g.log10_p = log10_poisson_point_series(x, lambda, log_lambda, true);
  }
  g.p_value = std::pow(10.0, g.log10_p);
  g.p_lower = 1 - g.p_value;
  return g;
}

namespace {

constexpr double kLn10 = 2.302585092994045684;

// The Chernoff bound on a binomial tail beyond x: -trials D(x/trials || p)
// in log10, D the Kullback-Leibler divergence of Bernoulli laws.
double log10_chernoff(std::uint64_t x, std::uint64_t trials, double p) {
  const double m = static_cast<double>(trials), q = static_cast<double>(x) / m;
  double d = 0;
  if (q > 0) d += q * std::log(q / p);
  if (q < 1) d += (1 - q) * std::log((1 - q) / (1 - p));
  return -m * d / kLn10;
}

// log10 of an exact tail, or of its Chernoff bound where the tail
// underflows a double.
double log10_tail(double tail, std::uint64_t x, std::uint64_t trials, double p) {
  return log10_or(tail, [&] { return log10_chernoff(x, trials, p); });
}

}  // namespace

double log10_binomial_upper(std::uint64_t x, std::uint64_t trials, double p) {
  if (x == 0) return 0;
  if (x > trials) return -std::numeric_limits<double>::infinity();
  const double a = static_cast<double>(x), b = static_cast<double>(trials - x + 1);
  return log10_tail(boost::math::ibeta(a, b, p), x, trials, p);
}

double log10_binomial_lower(std::uint64_t x, std::uint64_t trials, double p) {
  if (x >= trials) return 0;
  const double a = static_cast<double>(trials - x), b = static_cast<double>(x + 1);
  return log10_tail(boost::math::ibeta(a, b, 1 - p), x, trials, p);
}

// Boost's incomplete gamma where it does not underflow; past that, far in
// the tail, the series from x converges fast.
double log10_poisson_upper(std::uint64_t x, double lambda) {
  if (x == 0) return 0;
  const double tail = boost::math::gamma_p(static_cast<double>(x), lambda);  // P(X >= x)
  return log10_or(tail, [&] { return log10_poisson_point_series(x, lambda, std::log(lambda), true); });
}

double log10_poisson_lower(std::uint64_t x, double lambda) {
  const double tail = boost::math::gamma_q(static_cast<double>(x) + 1, lambda);  // P(X <= x)
  return log10_or(tail, [&] { return log10_poisson_point_series(x, lambda, std::log(lambda), false); });
}

GoodnessOfFit count_fit(double z, double log10_p, double expected) {
  GoodnessOfFit fit;
  fit.statistic = z;
  fit.df = 1;
  fit.g_statistic = fit.g_p_value = std::numeric_limits<double>::quiet_NaN();
  fit.log10_p = std::min(0.0, log10_p);
  fit.p_value = std::pow(10.0, fit.log10_p);
  fit.p_lower = 1 - fit.p_value;
  fit.min_expected = expected;
  return fit;
}

}  // namespace melange
