#include "melange/laws.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <boost/multiprecision/cpp_int.hpp>
#include <string>
#include <utility>

#include "melange/bounded.hpp"
#include "melange/error.hpp"
#include "melange/limits.hpp"

namespace melange {

using boost::multiprecision::cpp_int;

namespace {

// A(n, r) for r = 0..n-1, and n! beside them.
std::pair<std::vector<cpp_int>, cpp_int> eulerian_numbers(int n) {
  // A(m, r) = (r + 1) A(m - 1, r) + (m - r) A(m - 1, r - 1), one row kept,
  // updated from its top entry down so that A(m - 1, r - 1) is still the
  // old row's when A(m, r) is made.
  std::vector<cpp_int> a(static_cast<std::size_t>(n), 0);
  a[0] = 1;
  cpp_int total = 1;  // m!
  for (int m = 2; m <= n; ++m) {
    for (int r = m - 1; r >= 1; --r) a[r] = (r + 1) * a[r] + (m - r) * a[r - 1];
    total *= m;
  }
  return {std::move(a), std::move(total)};
}

// C(m, r), 0 where r < 0 or r > m.
cpp_int choose(const cpp_int& m, int r) {
  if (r < 0 || m < r) return 0;
  cpp_int c = 1;
  for (int i = 1; i <= r; ++i) c = c * (m - r + i) / i;
  return c;
}

// How many permutations of n items have v valleys, v = 0..(n-1)/2, and n!
// beside them. As many have v peaks (p -> n-1-p swaps them), and peaks
// count by insertion: the largest item m, put into one of the m gaps of a
// permutation of m - 1 items with v peaks, keeps v peaks in the 2v + 2 gaps
// beside a peak or at an end, and makes one more in the other m - 2 - 2v:
// V(m, v) = (2v + 2) V(m - 1, v) + (m - 2v) V(m - 1, v - 1).
std::pair<std::vector<cpp_int>, cpp_int> valley_numbers(int n) {
  std::vector<cpp_int> a(static_cast<std::size_t>((n - 1) / 2 + 1), 0);
  a[0] = 1;
  cpp_int total = 1;
  for (int m = 2; m <= n; ++m) {
    for (int v = (m - 1) / 2; v >= 1; --v) a[v] = (2 * v + 2) * a[v] + (m - 2 * v) * a[v - 1];
    a[0] *= 2;
    total *= m;
  }
  return {std::move(a), std::move(total)};
}

// The distances to uniform of a law that gives `each[c]` to every one of the
// `count[c]` permutations of class c (its statistic's value), out of `orders`.
struct Distances {
  Rational total_variation, separation;
};
Distances distances_by_class(const std::vector<Rational>& each, const std::vector<cpp_int>& count,
                             const cpp_int& orders) {
  const Rational uniform(cpp_int(1), orders);
  Rational above;  // the sum over permutations of P - 1/n! where P > 1/n!
  std::optional<Rational> least;
  for (std::size_t c = 0; c < each.size(); ++c) {
    if (count[c] == 0) continue;
    if (each[c] > uniform) above += (each[c] - uniform) * count[c];
    if (!least || each[c] < *least) least = each[c];
  }
  // Both laws sum to one, so the mass above 1/n! equals the mass below: the
  // total variation distance is either.
  return {above, 1 - *least * orders};
}

// The laws are exact for decks of 1 to kMaxPositionItems items.
void check_items(const char* law, int n) {
  if (n < 1 || n > kMaxPositionItems)
    throw Error(std::string(law) + ": n = " + std::to_string(n) + " is outside 1.." + std::to_string(kMaxPositionItems));
}

// a / b, both shifted right together until b fits a double's range.
double ratio(const cpp_int& a, const cpp_int& b) {
  const auto bits = static_cast<long long>(msb(b));
  const auto shift = static_cast<unsigned>(std::max(0LL, bits - 1000));
  return static_cast<double>(a >> shift) / static_cast<double>(b >> shift);
}

}  // namespace

std::vector<Rational> eulerian_law(int n) {
  const auto [a, total] = eulerian_numbers(n);
  std::vector<Rational> law;
  law.reserve(a.size());
  for (const cpp_int& count : a) law.emplace_back(count, total);
  return law;
}

std::vector<double> eulerian_probabilities(int n) {
  const auto [a, total] = eulerian_numbers(n);
  std::vector<double> p;
  p.reserve(a.size());
  for (const cpp_int& count : a) p.push_back(ratio(count, total));
  return p;
}

RiffleLaw riffle_law(int n, std::uint64_t a) {
  check_items("riffle_law", n);
  if (a < 1) throw Error("riffle_law: an a-shuffle needs a >= 1");
  const auto [eulerian, orders] = eulerian_numbers(n);
  const cpp_int outcomes = pow(cpp_int(a), static_cast<unsigned>(n));  // a^n digit sequences
  RiffleLaw law;
  law.n = n;
  law.a = a;
  for (int r = 1; r <= n; ++r) {
    const Rational each(choose(cpp_int(a) + n - r, n), outcomes);
    law.each.push_back(each);
    law.rises.push_back(each * eulerian[static_cast<std::size_t>(r - 1)]);
    law.mean_rises += law.rises.back() * r;
  }
  const Distances d = distances_by_class(law.each, eulerian, orders);
  law.total_variation = d.total_variation;
  law.separation = d.separation;
  return law;
}

std::vector<Rational> valley_law(int n) {
  check_items("valley_law", n);
  const auto [count, orders] = valley_numbers(n);
  std::vector<Rational> law;
  for (const cpp_int& c : count) law.emplace_back(c, orders);
  return law;
}

std::vector<double> valley_probabilities(int n) {
  check_items("valley_probabilities", n);
  const auto [count, orders] = valley_numbers(n);
  std::vector<double> p;
  for (const cpp_int& c : count) p.push_back(ratio(c, orders));
  return p;
}

double shelf_law_work(int n, int shelves, int passes) {
  return std::pow(static_cast<double>(n), 3) * passes * std::log2(2.0 * shelves);
}

ShelfLaw shelf_law(int n, int shelves, int passes, const std::function<bool()>& stop) {
  check_items("shelf_law", n);
  if (shelves < 1 || passes < 1) throw Error("shelf_law: a machine needs a shelf and a pass");
  const cpp_int m = pow(cpp_int(2 * shelves), static_cast<unsigned>(passes)) / 2;  // the one pass they make
  const auto [count, orders] = valley_numbers(n);
  const int top = n - 1;  // the polynomials' degree
  // weight[s] = 2^(s+1) C(m, s+1): when s gaps part the deck into s + 1
  // piles, the shelves that hold them (in order), and the side of each
  // pile's first card, which leaves the pile as it is.
  std::vector<cpp_int> weight(static_cast<std::size_t>(n));
  cpp_int c = m, two = 2;  // C(m, s + 1), 2^(s + 1)
  for (int s = 0; s < n; ++s) {
    weight[s] = two * c;
    c = c * (m - s - 1) / (s + 2);
    two *= 2;
  }
  // f = x^v (2 + x)^v (1 + x)^(n-1-2v), from v = 0 up: each step multiplies
  // by x (2 + x) and divides by (1 + x)^2, exactly.
  std::vector<cpp_int> f(static_cast<std::size_t>(n), 0);
  for (int s = 0; s <= top; ++s) f[s] = choose(cpp_int(top), s);
  const cpp_int outcomes = pow(cpp_int(2) * m, static_cast<unsigned>(n));
  ShelfLaw law;
  law.n = n;
  law.shelves = shelves;
  law.passes = passes;
  law.one_pass_shelves = Rational(m);
  for (std::size_t v = 0; v < count.size(); ++v) {
    if (stop && stop()) throw Cancelled();
    if (v > 0) {
      for (int s = top; s >= 0; --s) f[s] = (s >= 1 ? 2 * f[s - 1] : cpp_int(0)) + (s >= 2 ? f[s - 2] : cpp_int(0));
      for (int twice = 0; twice < 2; ++twice)
        for (int s = 1; s <= top; ++s) f[s] -= f[s - 1];
    }
    cpp_int ways = 0;
    for (int s = 0; s <= top; ++s) ways += weight[s] * f[s];
    law.each.emplace_back(ways, outcomes);
    law.valleys.push_back(law.each.back() * count[v]);
    law.mean_valleys += law.valleys.back() * static_cast<int>(v);
  }
  const Distances d = distances_by_class(law.each, count, orders);
  law.total_variation = d.total_variation;
  law.separation = d.separation;
  return law;
}

RiffleLaw riffles_law(int n, int k) {
  if (k < 0 || k > 63) throw Error("riffles_law: k = " + std::to_string(k) + " riffles is outside 0..63");
  return riffle_law(n, std::uint64_t{1} << k);
}

namespace {

std::string counted(int count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

const ClosedFormRow kClosedForms[] = {
    {Algorithm::riffle, TallyKind::rises, "the rising sequences",
     [](Shape s) { return to_doubles(riffles_law(s.n, s.riffles).rises); },
     [](Shape s) { return static_cast<double>(s.riffles) * s.n; },  // a digit of `riffles` bits a card
     &Job::riffles, kMaxRiffles, [](const Job& j) { return counted(j.riffles, "riffle", "riffles"); },
     [](Shape s) { return std::vector<std::uint64_t>{std::uint64_t{1} << s.riffles}; }},
    {Algorithm::shelf, TallyKind::valleys, "the valleys",
     [](Shape s) { return to_doubles(shelf_law(s.n, s.shelves, s.passes).valleys); },
     [](Shape s) { return s.n * s.passes * std::log2(2.0 * s.shelves); },  // a shelf and a side a card a pass
     &Job::passes, kMaxPasses,
     [](const Job& j) { return counted(j.passes, "pass", "passes") + " of " + std::to_string(j.shelves) + " shelves"; },
     [](Shape s) { return std::vector<std::uint64_t>{static_cast<std::uint64_t>(s.shelves), 2}; }},
};

}  // namespace

const ClosedFormRow* closed_form(Algorithm a) {
  for (const ClosedFormRow& row : kClosedForms)
    if (row.algorithm == a) return &row;
  return nullptr;
}

std::optional<TallyKind> closed_form_statistic(Algorithm a) {
  if (const ClosedFormRow* row = closed_form(a)) return row->statistic;
  return std::nullopt;
}

bool closed_form_holds(Algorithm a, Shape s, BoundedSpec spec) {
  const ClosedFormRow* row = closed_form(a);
  if (!row) return false;
  for (std::uint64_t range : row->ranges(s))
    if (!draw_law(range, spec).exactly_uniform()) return false;
  return true;
}

void validate_closed_form(Algorithm a, Shape s) {
  if (s.n < 1 || s.n > kMaxPositionItems)
    throw UsageError(Param::n, std::string(algorithm_name(a)) + "'s closed form is for {n} from 1 to " +
                                   std::to_string(kMaxPositionItems) + ", got " + std::to_string(s.n));
  validate_card_parameters(a, s);
  if (a == Algorithm::shelf && shelf_law_work(s.n, s.shelves, s.passes) > kMaxShelfLawWork)
    throw UsageError(Param::n, "the shelf law of {n} = " + std::to_string(s.n) + " cards, " + std::to_string(s.shelves) +
                                   " shelves and " + std::to_string(s.passes) +
                                   " passes takes too long to make exactly (its numbers have " +
                                   std::to_string(static_cast<long long>(s.n * s.passes * std::log2(2.0 * s.shelves))) +
                                   " bits): take fewer cards, shelves or passes");
}

StatisticLaw closed_form_law(Algorithm a, Shape s) {
  validate_closed_form(a, s);
  const ClosedFormRow* row = closed_form(a);
  if (!row) throw Error("closed_form_law: " + std::string(algorithm_name(a)) + " has no closed form by one statistic");
  return {row->statistic, row->law(s)};
}

std::vector<double> correct_guesses_law(int n) {
  // law[c] over the guesses so far; each card j from the last (j = 1) up
  // adds a Bernoulli(1/j).
  std::vector<double> law(static_cast<std::size_t>(n) + 1, 0.0);
  law[0] = 1;
  for (int j = 1; j <= n; ++j) {
    const double hit = 1.0 / j;
    for (int c = j; c >= 1; --c) law[c] = law[c] * (1 - hit) + law[c - 1] * hit;
    law[0] *= 1 - hit;
  }
  return law;
}

std::vector<Rational> hand_overlap_law(int n, int k) {
  const cpp_int hands = choose(n, k);
  std::vector<Rational> law;
  for (int x = 0; x <= k; ++x) law.emplace_back(choose(k, x) * choose(n - k, k - x), hands);
  return law;
}

Moments moments_of(const std::vector<double>& law) {
  Moments m;
  double total = 0;
  for (std::size_t x = 0; x < law.size(); ++x) {
    total += law[x];
    m.mean += static_cast<double>(x) * law[x];
  }
  m.mean /= total;
  for (std::size_t x = 0; x < law.size(); ++x) {
    const double d = static_cast<double>(x) - m.mean;
    m.variance += d * d * law[x];
  }
  m.variance /= total;
  return m;
}

std::vector<double> to_doubles(const std::vector<Rational>& law) {
  std::vector<double> p;
  p.reserve(law.size());
  for (const Rational& q : law) p.push_back(static_cast<double>(q));
  return p;
}

double repeats_at_least(std::uint64_t m, double outcomes, std::uint64_t d) {
  if (d == 0) return 1;
  // at[r]: P(r repeats so far), r < d; the mass that reaches d stays there.
  std::vector<double> at(d, 0.0);
  at[0] = 1;
  double reached = 0;
  const std::uint64_t last = d - 1;
  for (std::uint64_t t = 0; t < m; ++t) {
    // Draw t + 1 repeats when it lands on one of the t - r outcomes seen.
    if (t >= last) reached += at[last] * (static_cast<double>(t - last) / outcomes);
    for (std::uint64_t r = std::min(t + 1, last); r > 0; --r) {
      const double repeat = static_cast<double>(t - (r - 1)) / outcomes;
      const double fresh = r <= t ? 1 - static_cast<double>(t - r) / outcomes : 0;
      at[r] = at[r] * fresh + at[r - 1] * repeat;
    }
    at[0] *= 1 - static_cast<double>(t) / outcomes;
  }
  return reached;
}

}  // namespace melange
