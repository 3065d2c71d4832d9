// The exact oracle: an odometer over every random outcome. Each path re-runs
// the algorithm from the start; draws below the current depth replay recorded
// choices, the first new draw takes its first outcome, and after each leaf the
// deepest draw with outcomes left moves on to the next one.
#include "melange/exact.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <atomic>
#include <optional>
#include <mutex>
#include <functional>
#include <exception>
#include <thread>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

using u128 = unsigned __int128;

struct Draw {
  std::uint32_t value, arity;
  bool coin;    // a comparator coin (two outcomes of weight 1/2)
  DrawLaw law;  // for bounded draws: the weight of each value
  std::uint64_t weight, total;  // this outcome has probability weight / total
  // Running products down to this draw; `fits` is false once they left 64 bits.
  std::uint64_t num, den;
  bool fits;

  double mean_words() const {
    return coin ? 1.0 : static_cast<double>(law.words_num) / static_cast<double>(law.words_den);
  }
};

// A RandomSource that answers from the odometer.
class PathWalker {
 public:
  PathWalker(BoundedSpec spec, std::int64_t pinned) : spec_(spec), pinned_(pinned) {}

  std::uint32_t bounded(std::uint64_t s) {
    if (depth_ == stack_.size()) {
      const DrawLaw law = draw_law(s, spec_);
      push(Draw{0, static_cast<std::uint32_t>(s), false, law, 1, law.total, 0, 0, true});
    }
    return stack_[depth_++].value;
  }

  bool less() {
    if (depth_ == stack_.size()) push(Draw{0, 2, true, DrawLaw{2, spec_, 2, 1, 1}, 1, 2, 0, 0, true});
    return stack_[depth_++].value == 1;
  }

  // Moves to the next path; false when the walk (or this pinned part) is done.
  bool next_path() {
    depth_ = 0;
    const std::size_t floor = pinned_ >= 0 ? 1 : 0;
    while (stack_.size() > floor) {
      if (++stack_.back().value < stack_.back().arity) {
        refresh(stack_.size() - 1);
        return true;
      }
      stack_.pop_back();
    }
    return false;
  }

  const std::vector<Draw>& path() const { return stack_; }

 private:
  void push(Draw d) {
    if (stack_.empty() && pinned_ >= 0) d.value = static_cast<std::uint32_t>(pinned_);
    stack_.push_back(d);
    refresh(stack_.size() - 1);
  }

  void refresh(std::size_t i) {
    Draw& d = stack_[i];
    d.weight = d.coin ? 1 : d.law.weight(d.value);
    const std::uint64_t pn = i ? stack_[i - 1].num : 1, pd = i ? stack_[i - 1].den : 1;
    d.fits = (i == 0 || stack_[i - 1].fits) && !__builtin_mul_overflow(pn, d.weight, &d.num) &&
             !__builtin_mul_overflow(pd, d.total, &d.den);
  }

  BoundedSpec spec_;
  std::int64_t pinned_;  // the first draw's fixed outcome, or -1
  std::vector<Draw> stack_;
  std::size_t depth_ = 0;
};

// n / d as an exact rational. Kept out of line: inlined into a loop, GCC 12
// warns (wrongly) that Boost's limb storage may be used uninitialized.
[[gnu::noinline]] Rational ratio(u128 n, std::uint64_t d) {
  boost::multiprecision::cpp_int num = static_cast<std::uint64_t>(n >> 64);
  num <<= 64;
  num += static_cast<std::uint64_t>(n);
  return Rational(num, boost::multiprecision::cpp_int(d));
}

// Sums of exact leaf probabilities, kept as 128-bit numerators over 64-bit
// denominators while the products fit, and as rationals beyond that.
class MassSum {
 public:
  void add(std::uint64_t num, std::uint64_t den, std::uint64_t times = 1) {
    for (auto& [d, n] : fast_)
      if (d == den) {
        n += static_cast<u128>(num) * times;
        return;
      }
    fast_.emplace_back(den, static_cast<u128>(num) * times);
  }
  void add(const Rational& r) { slow_ += r; }
  void merge(const MassSum& o) {
    for (auto& [d, n] : o.fast_) add_u128(n, d);
    slow_ += o.slow_;
  }
  Rational value() const {
    Rational r = slow_;
    for (auto& [d, n] : fast_) r += ratio(n, d);
    return r;
  }

 private:
  void add_u128(u128 num, std::uint64_t den) {
    for (auto& [d, n] : fast_)
      if (d == den) {
        n += num;
        return;
      }
    fast_.emplace_back(den, num);
  }
  std::vector<std::pair<std::uint64_t, u128>> fast_;
  Rational slow_;
};

Rational exact_product(const std::vector<Draw>& path) {
  boost::multiprecision::cpp_int num = 1, den = 1;
  for (const Draw& d : path) {
    num *= d.weight;
    den *= d.total;
  }
  return Rational(num, den);
}

// A leaf's probability: a 64-bit fraction while it fits, else a rational.
struct LeafProbability {
  bool fast;
  std::uint64_t num, den;
  Rational exact;

  bool operator==(const LeafProbability& o) const {
    if (fast && o.fast) return static_cast<u128>(num) * o.den == static_cast<u128>(o.num) * den;
    return as_rational() == o.as_rational();
  }
  Rational as_rational() const { return fast ? Rational(num, den) : exact; }
};

// Mean words of one path: each draw's own mean, or under `batched` the path's
// batches (a swap schedule's batches, each read again when rejected; or its
// coins, 24 to a word).
using PathWords = std::function<long double(const std::vector<Draw>&)>;

struct Accumulator {
  PathWords path_words_of;
  std::vector<MassSum> mass;  // by rank
  std::vector<std::uint64_t> rank_paths;
  MassSum draws;              // sum of P(leaf) * draws on the leaf's path
  long double words = 0;      // sum of P(leaf) * mean words on the path
  std::uint64_t paths = 0;
  std::optional<LeafProbability> first;  // the first leaf seen
  bool equal = true;                     // every leaf so far matches `first`

  Accumulator(std::uint64_t bins, PathWords words) : path_words_of(std::move(words)), mass(bins), rank_paths(bins, 0) {}

  void leaf(const std::vector<Draw>& path, std::uint64_t rank) {
    ++paths;
    ++rank_paths[rank];
    const long double path_words = path_words_of(path);
    LeafProbability p{true, 1, 1, {}};
    if (!path.empty() && path.back().fits) {
      p.num = path.back().num, p.den = path.back().den;
    } else if (!path.empty()) {
      p.fast = false;
      p.exact = exact_product(path);
    }
    if (p.fast) {
      mass[rank].add(p.num, p.den);
      draws.add(p.num, p.den, path.size());
      words += path_words * static_cast<long double>(p.num) / static_cast<long double>(p.den);
    } else {
      mass[rank].add(p.exact);
      draws.add(p.exact * static_cast<std::uint64_t>(path.size()));
      words += path_words * static_cast<long double>(static_cast<double>(p.exact));
    }
    note(p);
  }

  void note(const LeafProbability& p) {
    if (!first) first = p;
    else if (equal && !(p == *first)) equal = false;
  }

  void merge(const Accumulator& o) {
    for (std::size_t r = 0; r < mass.size(); ++r) {
      mass[r].merge(o.mass[r]);
      rank_paths[r] += o.rank_paths[r];
    }
    draws.merge(o.draws);
    words += o.words;
    paths += o.paths;
    if (o.first) {
      equal = equal && o.equal;
      note(*o.first);
    }
  }
};

// Paths between two calls of walk()'s heartbeat: a subtree can take many
// seconds, and a caller's stop (which the heartbeat may throw) waits no
// longer than a beat.
constexpr std::uint64_t kPathsABeat = std::uint64_t{1} << 16;

// Every path below the walker's start, each through the trial body, into
// `acc`; a leaf is the outcome's rank (a deal's rank when k < n).
template <class Walker>
void walk(Algorithm a, Shape s, Walker& walker, Accumulator& acc, const std::function<void()>& heartbeat) {
  std::vector<std::uint16_t> items(static_cast<std::size_t>(s.n));
  auto leaf = [&acc](const std::uint16_t* done, Shape shape, const Walker& w) {
    acc.leaf(w.path(), shape.whole() ? lehmer_rank(done, shape.n)
                                     : deal_rank(dealt_items(done, shape), shape.n, shape.k));
  };
  std::uint64_t paths = 0;
  with_algorithm(a, [&](auto algo) {
    do {
      trial_body<decltype(algo)::value>(items.data(), s, walker, leaf);
      if (++paths % kPathsABeat == 0 && heartbeat) heartbeat();
    } while (walker.next_path());
  });
}

}  // namespace

void check_exact_law(Algorithm a) {
  if (const std::string_view why = row_of(a).no_exact_walk; !why.empty()) throw UsageError(Param::model, std::string(why));
}

namespace {

// The card shuffles walk every draw sequence: refused past kMaxExactCardPaths.
void check_card_walk(Algorithm a, Shape s, BoundedSpec spec) {
  validate_card_parameters(a, s);
  const ClosedFormRow* row = closed_form(a);
  if (!row) return;
  if (row->log2_draw_sequences(s) <= std::log2(static_cast<double>(kMaxExactCardPaths))) return;
  const std::string walk = "the exact walk of " + std::string(algorithm_name(a)) + " covers up to " +
                           std::to_string(kMaxExactCardPaths) + " draw sequences, and {n} = " + std::to_string(s.n) +
                           " has more";
  if (closed_form_holds(a, s, spec))
    throw UsageError(Param::n, walk + ": ask for the closed form (the law of " + row->statistic_words +
                                   "), which is exact at any {n}");
  throw UsageError(Param::n, walk + "; its closed form assumes uniform draws, which " +
                                 std::string(method_name(spec.method)) + " with " + std::to_string(spec.bits) +
                                 "-bit words does not give here: take fewer cards, or an unbiased method");
}

}  // namespace

int max_exact_items(Algorithm a) {
  return draw_kind(a) == DrawKind::coins ? kMaxExactCoinItems : kMaxExactSwapItems;
}

Rational decimal_rational(const std::string& text) {
  // [digits][.digits][e[+-]digits], at least one digit before the exponent.
  std::size_t i = 0;
  boost::multiprecision::cpp_int digits = 0;
  int scale = 0, seen = 0;
  if (i < text.size() && text[i] == '+') ++i;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++seen) digits = digits * 10 + (text[i] - '0');
  if (i < text.size() && text[i] == '.')
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i, ++seen, --scale)
      digits = digits * 10 + (text[i] - '0');
  if (seen > 0 && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool negative = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    int exponent = 0, exponent_digits = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && exponent < 100000; ++i, ++exponent_digits)
      exponent = exponent * 10 + (text[i] - '0');
    if (exponent_digits == 0) seen = 0;
    scale += negative ? -exponent : exponent;
  }
  if (seen == 0 || i != text.size())
    throw UsageError(Param::weights, "weight '" + text + "' is not a number such as 2.5 or 1e-3");
  if (digits == 0) throw UsageError(Param::weights, "weight '" + text + "' is 0: {weights} must be above 0");
  if (scale > 400 || scale < -400)
    throw UsageError(Param::weights, "weight '" + text + "' is out of range: {weights} must be finite");
  boost::multiprecision::cpp_int ten = 1;
  for (int e = 0; e < std::abs(scale); ++e) ten *= 10;
  return scale >= 0 ? Rational(digits * ten) : Rational(digits, ten);
}

ExactDistribution plackett_luce_distribution(Algorithm a, const std::vector<Rational>& weights) {
  const int n = static_cast<int>(weights.size());
  if (draw_kind(a) != DrawKind::keys)
    throw UsageError("the Plackett-Luce law is the weighted orders' law, not " + std::string(algorithm_name(a)) + "'s");
  if (n < 1 || n > max_exact_items(a))
    throw UsageError(Param::n, "the exact Plackett-Luce law is limited to n <= " + std::to_string(max_exact_items(a)) +
                                   " weights, got " + std::to_string(n) + "; sample it instead");
  for (const Rational& w : weights)
    if (w <= 0) throw UsageError(Param::weights, "{weights} must be above 0");
  // Integer weights over their common denominator: an order's probability is
  // a product of integers over a product of integer suffix sums.
  boost::multiprecision::cpp_int common = 1;
  for (const Rational& w : weights) common = boost::multiprecision::lcm(common, boost::multiprecision::denominator(w));
  std::vector<boost::multiprecision::cpp_int> w(n);
  for (int i = 0; i < n; ++i)
    w[i] = boost::multiprecision::numerator(weights[i]) * (common / boost::multiprecision::denominator(weights[i]));
  ExactDistribution d{a, BoundedSpec{}, n, n, {}, {}, 0, true, 0, static_cast<double>(a == Algorithm::weighted ? n : 2 * n)};
  d.probability.reserve(factorial(n));
  for (int i = 1; i < n; ++i) d.equally_likely = d.equally_likely && w[i] == w[0];
  // Orders in lexicographic (Lehmer) order: the smallest free item first.
  std::vector<bool> used(n, false);
  boost::multiprecision::cpp_int left = 0;
  for (const auto& x : w) left += x;
  std::function<void(int, const boost::multiprecision::cpp_int&, const boost::multiprecision::cpp_int&,
                     const boost::multiprecision::cpp_int&)>
      place = [&](int depth, const boost::multiprecision::cpp_int& num, const boost::multiprecision::cpp_int& den,
                  const boost::multiprecision::cpp_int& rest) {
        if (depth == n) {
          d.probability.emplace_back(num, den);
          return;
        }
        for (int i = 0; i < n; ++i)
          if (!used[i]) {
            used[i] = true;
            place(depth + 1, num * w[i], den * rest, rest - w[i]);
            used[i] = false;
          }
      };
  place(0, 1, 1, left);
  d.rank_paths.assign(d.probability.size(), 1);
  d.paths = d.probability.size();
  return d;
}

namespace {

// Refuses a walk before it starts: the shape, the walk's limits, the
// threads, the method's ranges. Returns the shape with k set (n for a
// whole permutation) and the number of outcomes in `deals`.
Shape checked_walk_shape(Algorithm a, Shape shape, BoundedSpec spec, int threads, std::uint64_t& deals) {
  const int n = shape.n;
  if (n < 1) throw UsageError(Param::n, "{n} must be at least 1, got " + std::to_string(n));
  const bool deal = can_deal(a);
  if (deal && (shape.k < 1 || shape.k > n))
    throw UsageError(Param::k, "partial deals {k} of the {n} items: 1 <= k <= n, got k = " +
                                   std::to_string(shape.k));
  if (!deal) shape.k = n;
  deals = shape.whole() ? factorial(std::min(n, kMaxRankItems)) : deal_count(n, shape.k);
  if (deal && (deals == 0 || deals > kMaxExactDeals || n > kMaxPositionItems))
    throw UsageError(Param::k, "the exact walk of partial is limited to " + std::to_string(kMaxExactDeals) +
                                   " ordered deals (n!/(n-k)!), got " + std::to_string(n) + " items, k = " +
                                   std::to_string(shape.k) + "; sample it instead");
  check_card_walk(a, shape, spec);
  if (draw_kind(a) == DrawKind::keys)
    throw UsageError("the weighted orders read raw words, not bounded draws: their exact law is Plackett-Luce's "
                     "(plackett_luce_distribution), given the weights");
  if (!deal && n > max_exact_items(a))
    throw UsageError(Param::n, "the exact walk of " + std::string(algorithm_name(a)) + " is limited to n <= " +
                     std::to_string(max_exact_items(a)) + ", got n = " + std::to_string(n) +
                     "; sample it instead");
  if (threads < 1) throw UsageError(Param::threads, "{threads} must be at least 1");
  validate_bounded(spec, std::max<std::uint64_t>(1, max_draw_range(a, shape)));
  return shape;
}

// The mean words a path reads: its draws' own under the one-a-word
// methods; under `batched`, the schedule's batches (the same on every path)
// or its coins, kCoinsPerWord a word.
PathWords path_words_of(Algorithm a, Shape shape, BoundedSpec spec) {
  PathWords path_words = [](const std::vector<Draw>& path) {
    long double w = 0;
    for (const Draw& d : path) w += d.mean_words();
    return w;
  };
  if (spec.method == Method::batched) {
    if (has_draw_schedule(a)) {
      // The schedule is the same on every path: sum over its batches of the
      // mean words to accept one, 2^32 / (2^32 - (2^32 mod P)).
      long double words = 0;
      for (const PlannedBatch& b : planned_batches(a, shape)) {
        const long double span = 4294967296.0L;
        words += span / (span - static_cast<long double>(b.threshold));
      }
      path_words = [words](const std::vector<Draw>&) { return words; };
    } else {
      path_words = [](const std::vector<Draw>& path) {
        return static_cast<long double>((path.size() + kCoinsPerWord - 1) / kCoinsPerWord);
      };
    }
  }
  return path_words;
}

// Every path, its first draw's outcomes shared out as tasks over
// `threads` threads; progress(done, tasks) hears each finished task, and
// a heartbeat within one.
Accumulator walk_all(Algorithm a, Shape shape, BoundedSpec spec, int threads, std::uint64_t bins,
                     const PathWords& path_words, const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  const int n = shape.n;
  // Discover the first draw's arity, then walk each of its outcomes as a task.
  PathWalker probe(spec, -1);
  {
    std::vector<std::uint16_t> items(static_cast<std::size_t>(n));
    iota_items(items.data(), n);
    shuffle(a, items.data(), shape, probe);
  }
  const std::uint32_t tasks = probe.path().empty() ? 0 : probe.path()[0].arity;

  Accumulator total(bins, path_words);
  if (tasks == 0) {
    PathWalker w(spec, -1);
    walk(a, shape, w, total, [&] {
      if (progress) progress(0, 1);
    });
  } else {
    const int workers = std::min<int>(threads, static_cast<int>(tasks));
    std::vector<Accumulator> parts(workers, Accumulator(bins, path_words));
    std::atomic<std::uint32_t> next{0};
    std::uint32_t finished = 0;
    std::mutex progress_mutex;
    std::exception_ptr failure;  // the first fault, or progress() asking to stop
    // Within a task, progress() hears again what it heard last: a caller
    // that stops there (it throws) stops the walk within a beat.
    const std::function<void()> heartbeat = [&] {
      if (!progress) return;
      std::lock_guard lock(progress_mutex);
      progress(finished, tasks);
    };
    auto work = [&](int id) {
      try {
        for (std::uint32_t v; (v = next.fetch_add(1)) < tasks;) {
          PathWalker w(spec, v);
          walk(a, shape, w, parts[id], heartbeat);
          if (progress) {
            std::lock_guard lock(progress_mutex);
            progress(++finished, tasks);
          }
        }
      } catch (...) {
        std::lock_guard lock(progress_mutex);
        if (!failure) failure = std::current_exception();
        next.store(tasks);
      }
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < workers; ++i) pool.emplace_back(work, i);
    work(0);
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
    for (auto& p : parts) total.merge(p);
  }

  return total;
}

}  // namespace

ExactDistribution exact_distribution(
    Algorithm a, int n, BoundedSpec spec, int threads,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  return exact_distribution(a, Shape{n, n}, spec, threads, progress);
}

ExactDistribution exact_distribution(
    Algorithm a, Shape given, BoundedSpec spec, int threads,
    const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  std::uint64_t deals = 0;
  const Shape shape = checked_walk_shape(a, given, spec, threads, deals);
  const int n = shape.n;
  const std::uint64_t bins = shape.whole() ? factorial(n) : deals;
  Accumulator total = walk_all(a, shape, spec, threads, bins, path_words_of(a, shape, spec), progress);
  ExactDistribution d{a, spec, n, shape.k, {}, std::move(total.rank_paths), total.paths, total.equal,
                      total.draws.value(), static_cast<double>(total.words)};
  d.shape = shape;
  d.shape.weights = nullptr;  // the caller's, not the law's to keep
  d.probability.reserve(bins);
  for (auto& m : total.mass) d.probability.push_back(m.value());
  return d;
}

double ExactDistribution::probability_of(std::uint64_t rank) const {
  return static_cast<double>(probability[rank]);
}

std::vector<double> ExactDistribution::probabilities() const {
  std::vector<double> p(probability.size());
  for (std::size_t r = 0; r < p.size(); ++r) p[r] = static_cast<double>(probability[r]);
  return p;
}

namespace {

// The outcome of each rank as items by slot: a permutation, or a deal.
std::vector<int> outcome_of(std::uint64_t rank, int n, int k) {
  return k == n ? lehmer_unrank(rank, n) : deal_unrank(rank, n, k);
}

}  // namespace

PositionLaw ExactDistribution::position_law() const {
  PositionLaw law;
  law.n = n;
  law.k = k;
  const std::size_t cells = static_cast<std::size_t>(n) * k;
  law.p.assign(cells, 0.0);
  law.pair.assign(cells * cells, 0.0);
  std::vector<std::size_t> cell(k);
  for (std::uint64_t r = 0; r < probability.size(); ++r) {
    const double p = static_cast<double>(probability[r]);
    if (p == 0) continue;
    const std::vector<int> outcome = outcome_of(r, n, k);
    for (int slot = 0; slot < k; ++slot) cell[slot] = static_cast<std::size_t>(outcome[slot]) * k + slot;
    for (int a = 0; a < k; ++a) {
      law.p[cell[a]] += p;
      for (int b = 0; b < k; ++b) law.pair[cell[a] * cells + cell[b]] += p;
    }
  }
  return law;
}

std::vector<double> ExactDistribution::position_probabilities() const {
  std::vector<double> m(static_cast<std::size_t>(n) * k, 0.0);
  for (std::uint64_t r = 0; r < probability.size(); ++r) {
    const double p = static_cast<double>(probability[r]);
    if (p == 0) continue;
    const std::vector<int> outcome = outcome_of(r, n, k);
    for (int slot = 0; slot < k; ++slot) m[static_cast<std::size_t>(outcome[slot]) * k + slot] += p;
  }
  return m;
}

std::vector<Rational> ExactDistribution::hand_probabilities() const {
  std::vector<Rational> hands(hand_count(n, k));
  for (std::uint64_t r = 0; r < probability.size(); ++r) {
    if (probability[r] == 0) continue;
    std::vector<int> outcome = outcome_of(r, n, k);
    hands[hand_rank(outcome, k)] += probability[r];
  }
  return hands;
}

}  // namespace melange
