#include "melange/reach.hpp"

#include <cmath>
#include <string>

#include "melange/error.hpp"
#include "melange/rank.hpp"

namespace melange {

Reach reach(int n, int state_bits) {
  if (n < 1) throw UsageError(Param::n, "{n} must be at least 1");
  if (state_bits < 1 || state_bits > 1 << 20)
    throw UsageError(Param::state_bits, "{state_bits} must be between 1 and 1048576");
  Reach r{n, state_bits, log2_factorial(n), false, 0, 0};
  r.reaches_every_order = state_bits >= r.log2_orders - 1e-9;
  const double log2_share = std::min(0.0, state_bits - r.log2_orders);
  r.log10_fraction = log2_share * std::log10(2.0);
  r.fraction = std::exp2(log2_share);
  return r;
}

Deal deal(int n, int k, int state_bits) {
  if (k < 1 || k > n) throw UsageError(Param::deal, "{deal} must be between 1 and {n}");
  Deal d{n, k, 1, 1, 0};
  for (int i = 0; i < k; ++i) d.ordered *= n - i;
  d.hands = d.ordered;
  for (int i = 2; i <= k; ++i) d.hands /= i;
  d.states_per_deal = std::exp2(static_cast<double>(state_bits)) / d.ordered;
  return d;
}

}  // namespace melange
