// How much of a deck's order space a generator with B bits of state can reach.
#pragma once

#include <cstdint>

namespace melange {

struct Reach {
  int n;
  int state_bits;
  double log2_orders;          // log2(n!)
  bool reaches_every_order;    // 2^B >= n!
  double log10_fraction;       // log10 of the largest reachable share, min(1, 2^B / n!)
  double fraction;             // the same share, 0 when it underflows a double
};
Reach reach(int n, int state_bits);

struct Deal {
  int n, k;
  double ordered;         // n (n-1) ... (n-k+1)
  double hands;           // n choose k
  double states_per_deal; // 2^B / ordered deals
};
Deal deal(int n, int k, int state_bits);

}  // namespace melange
