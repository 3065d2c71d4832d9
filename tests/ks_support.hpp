// P(D >= observed) for the one-sample Kolmogorov-Smirnov statistic of
// p-values against U(0, 1), by the asymptotic series with Stephens'
// small-sample correction: the calibration tests' yardstick.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace melange::testing {

inline double ks_p_uniform(std::vector<double> p) {
  std::sort(p.begin(), p.end());
  const double n = static_cast<double>(p.size());
  double d = 0;
  for (std::size_t i = 0; i < p.size(); ++i) d = std::max({d, (i + 1) / n - p[i], p[i] - i / n});
  const double lambda = (std::sqrt(n) + 0.12 + 0.11 / std::sqrt(n)) * d;
  double q = 0;
  for (int k = 1; k <= 100; ++k) q += (k % 2 ? 2 : -2) * std::exp(-2.0 * k * k * lambda * lambda);
  return std::clamp(q, 0.0, 1.0);
}

}  // namespace melange::testing
