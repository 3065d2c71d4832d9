// What an exact law predicts a sample of it shows: the mean and spread of a
// count, of Pearson's statistic and of the max/min ratio of a histogram,
// and the window that keeps a claim over many figures at one figure's miss
// rate. `melange reproduce` holds each of its measurements to these.
#pragma once

#include <cstdint>
#include <vector>

namespace melange {

struct MeanSd {
  double mean = 0, sd = 0;
};

// A count of an outcome of probability p in `trials` trials (binomial).
MeanSd count_law(double p, double trials);

// Pearson's statistic against `null` after `trials` trials of `truth`: mean
// df + lambda; its variance is the multinomial one, 4 T [sum q r^2 -
// (sum q r)^2] + 2 df with r = (p - q) / q, some 6-9% wider in sd than the
// noncentral chi-square's sqrt(2 (df + 2 lambda)).
MeanSd pearson_law(const std::vector<double>& truth, const std::vector<double>& null, double trials);

// The window, in sds, for a claim over k figures at once (every count, or
// the largest of k): as wide as keeps the whole claim at the two-sided miss
// rate of one figure at `sigmas` (5: about 5.7e-7).
double family_sigmas(int k, double sigmas = 5);

// The max/min ratio of the counts of `trials` draws from p, over
// `replicates` simulated samples: its mean and its range. Each sample's
// counts come bin by bin from their conditional binomials (normal
// approximations: meant for bins that expect thousands), on a fixed Philox
// stream a chunk: the same window whatever the thread count.
struct RatioLaw {
  double mean = 0, low = 0, high = 0;
};
RatioLaw simulate_max_min_ratio(const std::vector<double>& p, double trials, std::uint64_t replicates,
                                int threads = 1);

}  // namespace melange
