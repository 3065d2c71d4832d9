// The exact tail of Pearson's statistic for a small multinomial table: a
// dynamic programme over the cells, each cell's count drawn from the
// binomial of what the cells before it left, carrying (records so far,
// statistic so far). Only the states that can still end on either side of
// the observed value are kept: a state that must end in the tail is added
// to it at once, one that never can is dropped.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "melange/stats.hpp"

namespace melange {
namespace {

// Binomial probabilities below this are dropped: what they could add is far
// below any tail a verdict turns on.
constexpr double kNegligible = 1e-60;
// A layer's states at most: 32 MB of doubles.
constexpr std::uint64_t kMaxOpenStates = std::uint64_t{1} << 22;

// The statistic on an integer lattice. Equal cells: a cell's term is c^2
// (Pearson's sum is (K/m) sum c^2 - m), exact. Otherwise a cell's term
// c^2/(m p) is floored onto a grid of step `step`, and the observed value
// widened by the cells' rounding so that the tail found contains the true
// one (a conservative p-value).
struct Lattice {
  int cells = 0;
  std::uint64_t trials = 0;
  bool equal = true;
  double step = 1;
  std::vector<double> p;                      // normalised, one per cell
  std::vector<std::vector<std::int64_t>> w;   // w[cell][c]; one shared row when equal
  std::vector<double> suffix_p;               // mass of cells i.. (suffix_p[cells] = 0)
  std::vector<int> suffix_sparsest;           // cell of least p among i..
  std::vector<int> prefix_sparsest;           // cell of least p among ..i-1

  std::int64_t weight(int cell, std::uint64_t c) const { return w[equal ? 0 : cell][c]; }

  // Bounds on the sum of the terms of `count` cells' worth of records:
  // spread over cells [from, to) as evenly as their masses allow (least),
  // or all in the sparsest one (most; the terms are convex).
  std::int64_t least(int from, int to, std::uint64_t records, double mass) const {
    const int k = to - from;
    if (k <= 0) return records == 0 ? 0 : std::numeric_limits<std::int64_t>::max() / 4;
    if (equal) {
      const std::uint64_t q = records / k, r = records % k;
      return static_cast<std::int64_t>(r * (q + 1) * (q + 1) + (k - r) * q * q);
    }
    const double x = static_cast<double>(records);
    return static_cast<std::int64_t>(std::floor(x * x / (static_cast<double>(trials) * mass * step))) - k;
  }
  std::int64_t most(int sparsest, int k, std::uint64_t records) const {
    if (k <= 0) return records == 0 ? 0 : std::numeric_limits<std::int64_t>::min() / 4;
    return weight(sparsest, records);
  }
};

Lattice lattice_of(const std::vector<std::uint64_t>& observed, const std::vector<double>& probabilities) {
  Lattice l;
  l.cells = static_cast<int>(observed.size());
  l.trials = std::accumulate(observed.begin(), observed.end(), std::uint64_t{0});
  l.p = probabilities.empty() ? std::vector<double>(observed.size(), 1.0) : probabilities;
  const double total = std::accumulate(l.p.begin(), l.p.end(), 0.0);
  for (double& q : l.p) q /= total;
  const auto [lo, hi] = std::minmax_element(l.p.begin(), l.p.end());
  l.equal = *hi - *lo <= 1e-12 * *hi;
  const double m = static_cast<double>(l.trials);
  // A grid a 32nd of the statistic's spread over all the cells' rounding:
  // the tail found is the true one at most that far out.
  l.step = l.equal ? 1 : std::sqrt(2.0 * (l.cells - 1)) / (32.0 * l.cells);
  l.w.resize(l.equal ? 1 : l.cells);
  for (std::size_t i = 0; i < l.w.size(); ++i) {
    l.w[i].resize(l.trials + 1);
    for (std::uint64_t c = 0; c <= l.trials; ++c) {
      const double x = static_cast<double>(c);
      l.w[i][c] = l.equal ? static_cast<std::int64_t>(c * c)
                          : static_cast<std::int64_t>(std::floor(x * x / (m * l.p[i] * l.step)));
    }
  }
  l.suffix_p.assign(l.cells + 1, 0.0);
  l.suffix_sparsest.assign(l.cells + 1, 0);
  for (int i = l.cells - 1; i >= 0; --i) {
    l.suffix_p[i] = l.suffix_p[i + 1] + l.p[i];
    l.suffix_sparsest[i] = i == l.cells - 1 || l.p[i] < l.p[l.suffix_sparsest[i + 1]] ? i : l.suffix_sparsest[i + 1];
  }
  l.prefix_sparsest.assign(l.cells + 1, 0);
  for (int i = 1; i <= l.cells; ++i)
    l.prefix_sparsest[i] = i == 1 || l.p[i - 1] < l.p[l.prefix_sparsest[i - 1]] ? i - 1 : l.prefix_sparsest[i - 1];
  return l;
}

// One layer of the programme: for each record total t, the probabilities of
// the statistic's values lo[t] .. lo[t] + f[t].size() - 1.
struct Layer {
  std::vector<std::int64_t> lo;
  std::vector<std::vector<double>> f;
};

// What a state (records t, statistic v) after `done` cells can still become.
enum class Fate { tail, open, never };

struct Programme {
  const Lattice& l;
  Tail side;            // upper: P(V >= bound); lower: P(V <= bound)
  std::int64_t bound;
  // For the layer after `done` cells, by the records still to place: the
  // least and the most the remaining cells add. Tables, not calls: the
  // fate of a state is asked once for every (state, count) pair.
  int done = -1;
  std::vector<std::int64_t> rest_least{}, rest_most{};

  void enter_layer(int cells_done) {
    done = cells_done;
    const int left = l.cells - done;
    rest_least.resize(l.trials + 1);
    rest_most.resize(l.trials + 1);
    for (std::uint64_t records = 0; records <= l.trials; ++records) {
      rest_least[records] = l.least(done, l.cells, records, l.suffix_p[done]);
      rest_most[records] = l.most(l.suffix_sparsest[std::min(done, l.cells - 1)], left, records);
    }
  }
  Fate fate(std::uint64_t t, std::int64_t v) const {
    const std::uint64_t records = l.trials - t;
    const std::int64_t least = v + rest_least[records], most = v + rest_most[records];
    if (side == Tail::upper) return least >= bound ? Fate::tail : most < bound ? Fate::never : Fate::open;
    return most <= bound ? Fate::tail : least > bound ? Fate::never : Fate::open;
  }
  // The open values of v for t records in this layer: [first, last].
  std::pair<std::int64_t, std::int64_t> open_range(std::uint64_t t) const {
    const std::uint64_t records = l.trials - t;
    std::int64_t first = 0, last = 0;
    if (side == Tail::upper) {
      first = bound - rest_most[records];
      last = bound - rest_least[records] - 1;
    } else {
      first = bound - rest_most[records] + 1;
      last = bound - rest_least[records];
    }
    // And what `done` cells can hold at all.
    first = std::max(first, l.least(0, done, t, 1 - l.suffix_p[done]));
    last = std::min(last, l.most(l.prefix_sparsest[done], done, t));
    return {first, last};
  }
};

// The binomial probabilities of c = 0..records in a cell of share q of what
// is left (q = 1 for the last cell), and the range [first, last) of c where
// they are not negligible: a few standard deviations of a small share,
// where the whole row would cost `records` steps a state.
struct BinomialRow {
  std::vector<double> p;
  std::vector<double> from;  // from[c]: the mass of counts c and more
  std::uint64_t first = 0, last = 0;
};
void binomial_row(std::uint64_t records, double q, const std::vector<double>& log_factorial, BinomialRow& row) {
  row.p.assign(records + 1, 0.0);
  if (q >= 1) {
    row.p[records] = 1;
    row.from.assign(records + 2, 0.0);
    row.from[records] = 1;
    row.first = records;
    row.last = records + 1;
    return;
  }
  const double lq = std::log(q), lr = std::log1p(-q);
  row.first = records + 1;
  row.last = 0;
  for (std::uint64_t c = 0; c <= records; ++c) {
    const double lp = log_factorial[records] - log_factorial[c] - log_factorial[records - c] +
                      static_cast<double>(c) * lq + static_cast<double>(records - c) * lr;
    if (lp < std::log(kNegligible)) continue;
    row.p[c] = std::exp(lp);
    row.first = std::min(row.first, c);
    row.last = c + 1;
  }
  row.from.assign(records + 2, 0.0);
  for (std::uint64_t c = row.last; c-- > row.first;) row.from[c] = row.from[c + 1] + row.p[c];
}

// The next layer's open windows, allocated; false past the budget, or past
// kMaxOpenStates (a layer is a vector of doubles, and two are alive).
bool open_layer(const Programme& prog, Layer& next, std::uint64_t& work, std::uint64_t budget) {
  const std::uint64_t m = prog.l.trials;
  std::vector<std::pair<std::int64_t, std::int64_t>> open(m + 1);
  std::uint64_t states = 0;
  for (std::uint64_t t = 0; t <= m; ++t) {
    open[t] = prog.open_range(t);
    if (open[t].first <= open[t].second) states += static_cast<std::uint64_t>(open[t].second - open[t].first + 1);
  }
  work += states;
  if (work > budget || states > kMaxOpenStates) return false;
  next.lo.assign(m + 1, 0);
  next.f.assign(m + 1, {});
  for (std::uint64_t t = 0; t <= m; ++t) {
    if (open[t].first > open[t].second) continue;
    next.lo[t] = open[t].first;
    next.f[t].assign(static_cast<std::size_t>(open[t].second - open[t].first + 1), 0.0);
  }
  return true;
}

// Every state of t records in `layer` through one more cell (counts from
// `row`) into `next`; returns the mass that lands in the tail.
double advance(const Programme& prog, int cell, std::uint64_t t, const Layer& layer, const BinomialRow& row,
               Layer& next) {
  const Lattice& l = prog.l;
  const std::vector<double>& from = layer.f[t];
  // Equal cells, upper tail: c^2 plus the least the rest can add grows
  // with c from the row's mean on, so the first count there that lands in
  // the tail carries every count above it with it.
  const bool tail_above = l.equal && prog.side == Tail::upper;
  const std::uint64_t mean = (l.trials - t + (l.cells - cell) - 1) / (l.cells - cell);
  double tail = 0;
  for (std::size_t j = 0; j < from.size(); ++j) {
    if (from[j] == 0) continue;
    const std::int64_t v = layer.lo[t] + static_cast<std::int64_t>(j);
    for (std::uint64_t c = row.first; c < row.last; ++c) {
      const std::int64_t v2 = v + l.weight(cell, c);
      switch (prog.fate(t + c, v2)) {
        case Fate::tail:
          if (tail_above && c >= mean) {
            tail += from[j] * row.from[c];
            c = row.last;
          } else {
            tail += from[j] * row.p[c];
          }
          break;
        case Fate::never: break;
        case Fate::open: {
          std::vector<double>& to = next.f[t + c];
          const std::int64_t k = v2 - next.lo[t + c];
          if (k >= 0 && k < static_cast<std::int64_t>(to.size())) to[static_cast<std::size_t>(k)] += from[j] * row.p[c];
          break;
        }
      }
    }
  }
  return tail;
}

}  // namespace

std::optional<double> multinomial_pearson_tail(const std::vector<std::uint64_t>& observed,
                                               const std::vector<double>& probabilities, Tail side,
                                               std::uint64_t budget) {
  if (observed.size() < 2 || side == Tail::both) return std::nullopt;
  if (!probabilities.empty() &&
      (probabilities.size() != observed.size() ||
       std::any_of(probabilities.begin(), probabilities.end(), [](double q) { return !(q > 0); })))
    return std::nullopt;
  const std::uint64_t m = std::accumulate(observed.begin(), observed.end(), std::uint64_t{0});
  // The weight rows alone: cells x records; the layers: a few words a record.
  const std::uint64_t rows = probabilities.empty() ? 1 : observed.size();
  if (m == 0 || m > kExactTailRecords || rows * (m + 1) > budget ||
      rows * (m + 1) > kExactTailRowBytes / sizeof(std::int64_t))
    return std::nullopt;
  const Lattice l = lattice_of(observed, probabilities);
  // The observed value on the lattice, widened by the rounding of every
  // cell (and one more step for the floating sum) where it is not exact.
  double observed_sum = 0;
  for (int i = 0; i < l.cells; ++i) {
    const double c = static_cast<double>(observed[i]);
    observed_sum += l.equal ? c * c : c * c / (static_cast<double>(m) * l.p[i] * l.step);
  }
  const std::int64_t slack = l.equal ? 0 : l.cells + 1;
  const auto at = static_cast<std::int64_t>(std::floor(observed_sum + (l.equal ? 0.5 : 0)));
  Programme prog{l, side, side == Tail::upper ? at - slack : at + slack};

  std::vector<double> log_factorial(m + 1);
  for (std::uint64_t i = 0; i <= m; ++i) log_factorial[i] = std::lgamma(static_cast<double>(i) + 1);
  Layer layer;
  layer.lo.assign(m + 1, 0);
  layer.f.assign(m + 1, {});
  layer.f[0] = {1.0};
  double tail = 0;
  std::uint64_t work = 0;
  BinomialRow row;
  for (int cell = 0; cell < l.cells; ++cell) {
    prog.enter_layer(cell + 1);
    Layer next;
    if (!open_layer(prog, next, work, budget)) return std::nullopt;
    const double share = cell == l.cells - 1 ? 1.0 : l.p[cell] / l.suffix_p[cell];
    for (std::uint64_t t = 0; t <= m; ++t) {
      if (layer.f[t].empty()) continue;
      binomial_row(m - t, share, log_factorial, row);
      work += layer.f[t].size() * (row.last - row.first);
      if (work > budget) return std::nullopt;
      tail += advance(prog, cell, t, layer, row, next);
    }
    layer = std::move(next);
  }
  return std::min(1.0, tail);
}

}  // namespace melange
