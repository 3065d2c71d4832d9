// The guessing test's score under one shelf law, exactly: what the rule of
// ShelfGuessTally names right on average, and the most any guesser can.
#include <algorithm>
#include <boost/multiprecision/cpp_int.hpp>
#include <string>
#include <utility>
#include <vector>

#include "melange/error.hpp"
#include "melange/laws.hpp"

namespace melange {

using boost::multiprecision::cpp_int;

namespace {

// How the last card turned was reached. The first card counts as rising:
// nothing before it can make it a valley, as nothing below a rising card can.
enum Step : int { kRising = 0, kFalling = 1, kSteps = 2 };

// A shelf law gives a deck the weight of its valleys alone, so what a
// guesser can know of the rest of the deck after seeing a prefix is in four
// numbers: the cards left (u), how many of them lie below the last card
// (below), the step that reached it, and the valleys so far. Cards are
// named by their rank among the unseen: the card of rank k lies below the
// last card when k < below, and leaves k cards below it.
class ShelfGuessingWalk {
 public:
  explicit ShelfGuessingWalk(const ShelfLaw& law) : n_(law.n) {
    const cpp_int outcomes = pow(2 * numerator(law.one_pass_shelves), static_cast<unsigned>(n_));
    for (const Rational& p : law.each) {
      if (p == 0) break;  // valleys past the shelves' reach (m - 1): no deck has them
      weight_.push_back(numerator(p) * (outcomes / denominator(p)));
    }
    valleys_ = static_cast<int>(weight_.size());
    outcomes_ = outcomes;
    build_scores();
  }

  // Every prefix walked once as its state, weighted by how many prefixes
  // share it: E = sum over prefixes of P(prefix, then the card named).
  ShelfGuessing expectations() const {
    std::vector<cpp_int> reach = layer(n_);
    at(reach, 0, kRising, 0) = 1;  // before the first card: nothing below, rising
    cpp_int rule = 0, best = 0;
    for (int u = n_; u >= 1; --u) {
      const Scores& sc = scores_[u];
      std::vector<cpp_int> next = layer(u - 1);
      for (int below = 0; below <= u; ++below)
        for (int step = 0; step < kSteps; ++step)
          for (int v = 0; v < valleys_; ++v) {
            const cpp_int& h = at(reach, below, step, v);
            if (h == 0) continue;
            const int valley = v + (step == kFalling);  // if the next card rises from a fall
            rule += h * named_score(sc, u, below, step, v, valley);
            best += h * best_score(sc, u, below, v, valley);
            for (int k = 0; k < u; ++k) {
              if (k < below)
                at(next, k, kFalling, v) += h;
              else if (valley < valleys_)
                at(next, k, kRising, valley) += h;
            }
          }
      reach = std::move(next);
    }
    return {Rational(rule, outcomes_), Rational(best, outcomes_)};
  }

 private:
  // For u cards left: the weight of the decks that go on with the card of
  // rank k, reached by `step`, after `base` valleys; and the running
  // maxima over k of the falling ones (from k = 0 up) and the rising ones
  // (from k = u - 1 down), so that the best name costs O(1) a state.
  struct Scores {
    std::vector<cpp_int> of;          // [(k * kSteps + step) * valleys + base]
    std::vector<cpp_int> falling_up;  // [k * valleys + base]: max over k' <= k, falling
    std::vector<cpp_int> rising_down; // [k * valleys + base]: max over k' >= k, rising
  };

  std::size_t slot(int below, int step, int v) const {
    return (static_cast<std::size_t>(below) * kSteps + static_cast<std::size_t>(step)) * valleys_ + v;
  }
  std::vector<cpp_int> layer(int u) const { return std::vector<cpp_int>(slot(u + 1, 0, 0)); }
  cpp_int& at(std::vector<cpp_int>& l, int below, int step, int v) const { return l[slot(below, step, v)]; }

  // G(u, below, step)[v]: the orders of u unseen cards after a last card
  // that make v more valleys, built from u = 0 up; scores_[u] reads G(u - 1).
  void build_scores() {
    scores_.resize(static_cast<std::size_t>(n_) + 1);
    std::vector<cpp_int> g = layer(0);
    for (int step = 0; step < kSteps; ++step) g[slot(0, step, 0)] = 1;
    for (int u = 1; u <= n_; ++u) {
      scores_[u] = scores_of(u, g);
      if (u < n_) g = orders_after(u, g);
    }
  }

  // G(u) from G(u - 1): the next card of rank k falls (k < below) or rises,
  // and a rise after a fall makes the last card a valley.
  std::vector<cpp_int> orders_after(int u, const std::vector<cpp_int>& g) const {
    std::vector<cpp_int> out = layer(u);
    std::vector<cpp_int> falls(valleys_, 0), rises(valleys_, 0);  // sums over k < below, k >= below
    for (int k = 0; k < u; ++k)
      for (int v = 0; v < valleys_; ++v) rises[v] += g[slot(k, kRising, v)];
    for (int below = 0; below <= u; ++below) {
      for (int v = 0; v < valleys_; ++v) {
        out[slot(below, kRising, v)] = falls[v] + rises[v];
        out[slot(below, kFalling, v)] = falls[v] + (v > 0 ? rises[v - 1] : cpp_int(0));
      }
      if (below == u) break;
      for (int v = 0; v < valleys_; ++v) {
        falls[v] += g[slot(below, kFalling, v)];
        rises[v] -= g[slot(below, kRising, v)];
      }
    }
    return out;
  }

  Scores scores_of(int u, const std::vector<cpp_int>& g) const {
    Scores s;
    const auto vs = static_cast<std::size_t>(valleys_);
    s.of.assign(static_cast<std::size_t>(u) * kSteps * vs, 0);
    for (int k = 0; k < u; ++k)
      for (int step = 0; step < kSteps; ++step)
        for (int base = 0; base < valleys_; ++base) {
          cpp_int& w = s.of[(static_cast<std::size_t>(k) * kSteps + step) * vs + base];
          for (int v = 0; base + v < valleys_; ++v) w += weight_[base + v] * g[slot(k, step, v)];
        }
    s.falling_up.resize(static_cast<std::size_t>(u) * vs);
    s.rising_down.resize(static_cast<std::size_t>(u) * vs);
    for (int base = 0; base < valleys_; ++base) {
      for (int k = 0; k < u; ++k) {
        const cpp_int& f = score(s, k, kFalling, base);
        s.falling_up[k * vs + base] = k > 0 ? std::max(s.falling_up[(k - 1) * vs + base], f) : f;
      }
      for (int k = u - 1; k >= 0; --k) {
        const cpp_int& r = score(s, k, kRising, base);
        s.rising_down[k * vs + base] = k + 1 < u ? std::max(s.rising_down[(k + 1) * vs + base], r) : r;
      }
    }
    return s;
  }

  const cpp_int& score(const Scores& s, int k, int step, int base) const {
    return s.of[(static_cast<std::size_t>(k) * kSteps + step) * valleys_ + base];
  }

  // The rule of ShelfGuessTally: rising, the lowest unseen card above the
  // last (rank `below`); falling, the highest below it (rank below - 1);
  // the other way where none is left.
  cpp_int named_score(const Scores& s, int u, int below, int step, int v, int valley) const {
    int k = step == kRising ? (below < u ? below : below - 1) : (below > 0 ? below - 1 : below);
    if (k < below) return score(s, k, kFalling, v);
    return valley < valleys_ ? score(s, k, kRising, valley) : cpp_int(0);
  }

  cpp_int best_score(const Scores& s, int u, int below, int v, int valley) const {
    cpp_int best = below > 0 ? s.falling_up[(below - 1) * valleys_ + v] : cpp_int(0);
    if (below < u && valley < valleys_) best = std::max(best, s.rising_down[below * valleys_ + valley]);
    return best;
  }

  int n_;
  int valleys_ = 0;
  cpp_int outcomes_;
  std::vector<cpp_int> weight_;  // entry V: the draw sequences that give one deck of V valleys
  std::vector<Scores> scores_;   // by cards left
};

}  // namespace

ShelfGuessing shelf_guessing(const ShelfLaw& law) {
  if (law.n < 1 || law.n > kShelfGuessingItems)
    throw Error("shelf_guessing: n = " + std::to_string(law.n) + " is outside 1.." +
                std::to_string(kShelfGuessingItems));
  return ShelfGuessingWalk(law).expectations();
}

}  // namespace melange
