#include "melange/sampled_laws.hpp"

#include <algorithm>
#include <atomic>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <thread>

#include "melange/stats.hpp"
#include "melange/stream.hpp"

namespace melange {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Replicates run in this many fixed chunks, chunk k on Philox stream k.
constexpr int kRatioChunks = 16;
constexpr std::uint64_t kSimulationSeed = 0x726174696fULL;  // "ratio"

RatioLaw simulate_chunk(const std::vector<double>& p, double trials, std::uint64_t replicates, int chunk) {
  RatioLaw law{0, kInf, 0};
  PhiloxStream words(kSimulationSeed, static_cast<std::uint64_t>(chunk));
  auto uniform01 = [&] { return (words.next() + 0.5) / 4294967296.0; };
  double spare = 0;
  bool has_spare = false;
  auto normal = [&] {  // Box-Muller, both halves used
    if (has_spare) {
      has_spare = false;
      return spare;
    }
    const double r = std::sqrt(-2 * std::log(uniform01())), a = 2 * std::numbers::pi * uniform01();
    spare = r * std::sin(a);
    has_spare = true;
    return r * std::cos(a);
  };
  for (std::uint64_t k = 0; k < replicates; ++k) {
    double left = trials, mass = 1, hi = 0, lo = kInf;
    for (std::size_t i = 0; i < p.size(); ++i) {
      double c = left;
      if (i + 1 < p.size()) {
        const double q = std::min(1.0, p[i] / mass);
        c = std::clamp(std::round(left * q + normal() * std::sqrt(left * q * (1 - q))), 0.0, left);
      }
      hi = std::max(hi, c);
      lo = std::min(lo, c);
      left -= c;
      mass -= p[i];
    }
    const double ratio = lo > 0 ? hi / lo : kInf;
    law.mean += ratio / static_cast<double>(replicates);
    law.low = std::min(law.low, ratio);
    law.high = std::max(law.high, ratio);
  }
  return law;
}

}  // namespace

MeanSd count_law(double p, double trials) { return {trials * p, std::sqrt(trials * p * (1 - p))}; }

MeanSd pearson_law(const std::vector<double>& truth, const std::vector<double>& null, double trials) {
  const double df = static_cast<double>(null.size() - 1);
  const double lambda = trials * noncentrality_per_trial(truth, null);
  double qr2 = 0, qr = 0;
  for (std::size_t i = 0; i < null.size(); ++i) {
    const double r = (truth[i] - null[i]) / null[i];
    qr2 += null[i] * r * r;
    qr += null[i] * r;
  }
  return {df + lambda, std::sqrt(4 * trials * (qr2 - qr * qr) + 2 * df)};
}

double family_sigmas(int k, double sigmas) {
  const double miss = std::erfc(sigmas / std::sqrt(2.0)) / k;  // two-sided, per figure
  return boost::math::quantile(boost::math::complement(boost::math::normal(), miss / 2));
}

RatioLaw simulate_max_min_ratio(const std::vector<double>& p, double trials, std::uint64_t replicates, int threads) {
  std::vector<RatioLaw> parts(kRatioChunks);
  std::atomic<int> next{0};
  const std::uint64_t per_chunk = replicates / kRatioChunks;
  auto work = [&] {
    for (int k; (k = next.fetch_add(1)) < kRatioChunks;) parts[k] = simulate_chunk(p, trials, per_chunk, k);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min(threads, kRatioChunks); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  RatioLaw law{0, kInf, 0};
  for (const RatioLaw& part : parts) {
    law.mean += part.mean / kRatioChunks;
    law.low = std::min(law.low, part.low);
    law.high = std::max(law.high, part.high);
  }
  return law;
}

}  // namespace melange
