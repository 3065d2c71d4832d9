// The shuffle algorithms of contract §3, each defined once against a
// RandomSource so that the sampler, the vector lanes, the GPU threads and the
// exact enumerator run the same definition. Items start in identity order;
// a[i] is the item at position i.
//
// Adding an algorithm: a value in `Algorithm`, its row in kAllAlgorithms and
// algorithm_name(), and either a draw schedule (scheduled_draws and
// scheduled_draw below: every backend then runs it, the vector kernels
// included) or a coin-driven body in shuffle_as(). The card shuffles (riffle,
// shelf) have a schedule of draws that place cards rather than swap them:
// the CPU's reference path runs them.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "melange/config.hpp"
#include "melange/error.hpp"
#include "melange/internal/dispatch.hpp"
#include "melange/limits.hpp"
#include "melange/weighted.hpp"

namespace melange {

enum class Algorithm : std::uint8_t {
  fisher_yates,
  naive_swap,
  sattolo,
  partial,
  sort_binary_insertion,
  sort_v8_timsort,
  weighted,
  weighted_int_power,
  riffle,
  shelf,
};

inline constexpr Algorithm kAllAlgorithms[] = {
    Algorithm::fisher_yates, Algorithm::naive_swap, Algorithm::sattolo, Algorithm::partial,
    Algorithm::sort_binary_insertion, Algorithm::sort_v8_timsort, Algorithm::weighted,
    Algorithm::weighted_int_power, Algorithm::riffle, Algorithm::shelf};
static_assert(internal::lists_every_value_in_order<kAllAlgorithms>(),
              "kAllAlgorithms lists each Algorithm once, in the enum's order");

std::string_view algorithm_name(Algorithm a);
std::optional<Algorithm> parse_algorithm(std::string_view name);
// "fisher-yates, naive-swap, ..." in kAllAlgorithms order, joined by `sep`.
std::string algorithm_names(std::string_view sep);

// What an algorithm asks of its randomness: bounded(s), a value in [0, s),
// and less(), a comparator coin. The weighted orders read raw stream words
// (word()), which only the Philox source gives.
template <class S>
concept RandomSource = requires(S& s, std::uint64_t range) {
  { s.bounded(range) } -> std::convertible_to<std::uint32_t>;
  { s.less() } -> std::convertible_to<bool>;
};

// ---- The draw schedule ----------------------------------------------------

// How a trial draws: along a fixed schedule of bounded ranges, each draw a
// swap (the swap algorithms) or a placement of a card (the card shuffles:
// riffle's digit a position, shelf's shelf and side a card; CPU only);
// comparator coins decided as it goes (the sort one-liners); or a key from
// raw words for each item (the weighted orders; CPU only).
enum class DrawKind : std::uint8_t { schedule, cards, coins, keys };

// A switch, not the table below, because GPU threads ask it; a
// static_assert holds it to the table, and an algorithm missing here does
// not compile (-Werror=switch).
MELANGE_HD constexpr DrawKind draw_kind(Algorithm a) {
  switch (a) {
    case Algorithm::fisher_yates:
    case Algorithm::naive_swap:
    case Algorithm::sattolo:
    case Algorithm::partial: return DrawKind::schedule;
    case Algorithm::sort_binary_insertion:
    case Algorithm::sort_v8_timsort: return DrawKind::coins;
    case Algorithm::weighted:
    case Algorithm::weighted_int_power: return DrawKind::keys;
    case Algorithm::riffle:
    case Algorithm::shelf: return DrawKind::cards;
  }
  return DrawKind::schedule;  // not reached: every value has its case
}

// True where the draws follow a fixed schedule of ranges (scheduled_draw),
// so that `batched` can cut them into batches ahead of time.
MELANGE_HD constexpr bool has_draw_schedule(Algorithm a) {
  return draw_kind(a) == DrawKind::schedule || draw_kind(a) == DrawKind::cards;
}

// Draw d of a trial: j = bounded(range), then swap(a[position], a[j]); for
// riffle, j is position's digit; for shelf, the shelf or the side of the
// card at position.
struct ScheduledDraw {
  std::uint32_t range;
  std::uint32_t position;
};

// What a trial shuffles and what it hands on: n items, of which the last k
// positions are the outcome (k = n: the whole permutation; partial deals
// k < n). Only `partial` reads k; every other algorithm has k = n. The
// weighted orders read the items' weights (n of them; null elsewhere);
// riffle its riffles (a 2^riffles-shuffle), shelf its shelves and passes
// (0 elsewhere).
struct Shape {
  int n;
  int k;
  const double* weights = nullptr;
  int riffles = 0;
  int shelves = 0;
  int passes = 0;
  MELANGE_HD constexpr bool whole() const { return k == n; }
  MELANGE_HD constexpr int first_dealt() const { return n - k; }
};

// How many draws a trial makes (0 for the coin algorithms).
MELANGE_HD constexpr int scheduled_draws(Algorithm a, Shape s) {
  switch (a) {
    case Algorithm::fisher_yates:
    case Algorithm::sattolo: return s.n > 1 ? s.n - 1 : 0;
    case Algorithm::naive_swap: return s.n;
    case Algorithm::partial: return s.k;
    case Algorithm::riffle: return s.n;
    case Algorithm::shelf: return 2 * s.n * s.passes;
    case Algorithm::sort_binary_insertion:
    case Algorithm::sort_v8_timsort:
    case Algorithm::weighted:
    case Algorithm::weighted_int_power: return 0;  // coins and keys are drawn as the trial asks
  }
  return 0;  // not reached: every value has its case
}

// Draw d, 0 <= d < scheduled_draws(a, s):
//   fisher-yates  i = n-1 down to 1:   range i+1   (n, n-1, .., 2)
//   naive-swap    i = 0 up to n-1:     range n     (n times)
//   sattolo       i = n-1 down to 1:   range i     (n-1, .., 1)
//   partial       i = n-1 down to n-k: range i+1   (n, .., n-k+1)
//   riffle        i = 0 up to n-1:     range 2^riffles, position i's digit
//   shelf         each pass, i = n-1 down to 0: range shelves (the card at
//                 position i's shelf), then range 2 (its side: 0 on top)
MELANGE_HD constexpr ScheduledDraw scheduled_draw(Algorithm a, Shape s, int d) {
  const auto un = static_cast<std::uint32_t>(s.n), ud = static_cast<std::uint32_t>(d);
  switch (a) {
    case Algorithm::fisher_yates:
    case Algorithm::partial: return {un - ud, un - 1 - ud};
    case Algorithm::naive_swap: return {un, ud};
    case Algorithm::sattolo: return {un - 1 - ud, un - 1 - ud};
    case Algorithm::riffle: return {std::uint32_t{1} << s.riffles, ud};
    case Algorithm::shelf: {
      const auto card = static_cast<std::uint32_t>(d % (2 * s.n)) / 2;
      return {d % 2 == 0 ? static_cast<std::uint32_t>(s.shelves) : 2u, un - 1 - card};
    }
    case Algorithm::sort_binary_insertion:
    case Algorithm::sort_v8_timsort:
    case Algorithm::weighted:
    case Algorithm::weighted_int_power: return {1, 0};  // no schedule (scheduled_draws is 0)
  }
  return {1, 0};  // not reached: every value has its case
}

// ---- The algorithm table -----------------------------------------------------

// A whole-number parameter of a card shuffle, as Shape carries it.
using ShapeField = int Shape::*;
struct CardParameter {
  Param param = Param::none;  // none: an empty slot
  ShapeField field = nullptr;
  int low = 0, high = 0;
  int when_not_given = 0;   // what a caller who leaves it out gets
  std::string_view why{};   // what the limits mean, for an error
  std::string_view what{};  // what it is, for a flag's or a keyword's help
};

// What an algorithm is, beside its definition below: its name, how it
// draws, how many items it takes, what it deals, what parameters it takes,
// and whether a GPU thread runs it. One row an algorithm, in enum order
// (a static_assert holds it to the enum); the functions below read it.
struct AlgorithmRow {
  Algorithm algorithm;
  std::string_view name;
  DrawKind draws;
  int max_items = kMaxSampleItems;
  bool deals = false;          // may hand on k < n items in slot order ({k})
  bool takes_weights = false;  // one weight an item ({weights})
  std::array<CardParameter, 2> cards{};
  bool on_gpu = false;         // a CUDA kernel runs it; under --backend cuda the others run on the CPU
  // Draw d fixes the item of slot scheduled_draw(d).position for good: its
  // swaps walk down and never reach back above it (a GPU thread counts
  // each slot's item as it is fixed: kFixesSlotsInTurn).
  bool fixes_slots_in_turn = false;
  // Why the exact walk cannot give its law (empty: it can), in a message
  // that names what to do instead, as {tokens}.
  std::string_view no_exact_walk{};
};

inline constexpr CardParameter kRiffles{Param::riffles, &Shape::riffles, 1, kMaxRiffles, 0,
                                        "k riffles are one 2^k-shuffle",
                                        "riffles of the deck (Gilbert-Shannon-Reeds; k riffles are one 2^k-shuffle)"};
inline constexpr CardParameter kShelves{Param::shelves, &Shape::shelves, 2, kMaxShelves, 0, "the machine's shelves",
                                        "the machine's shelves (casino machines have about 10)"};
inline constexpr CardParameter kPasses{Param::passes, &Shape::passes, 1, kMaxPasses, 1,
                                       "passes of the deck through it", "passes of the deck through the machine"};

inline constexpr AlgorithmRow kAlgorithmRows[] = {
    {.algorithm = Algorithm::fisher_yates, .name = "fisher-yates", .draws = DrawKind::schedule, .on_gpu = true,
     .fixes_slots_in_turn = true},
    {.algorithm = Algorithm::naive_swap, .name = "naive-swap", .draws = DrawKind::schedule, .on_gpu = true},
    {.algorithm = Algorithm::sattolo, .name = "sattolo", .draws = DrawKind::schedule, .on_gpu = true,
     .fixes_slots_in_turn = true},
    {.algorithm = Algorithm::partial, .name = "partial", .draws = DrawKind::schedule, .deals = true, .on_gpu = true,
     .fixes_slots_in_turn = true},
    {.algorithm = Algorithm::sort_binary_insertion, .name = "sort-binary-insertion", .draws = DrawKind::coins,
     .on_gpu = true},
    {.algorithm = Algorithm::sort_v8_timsort, .name = "sort-v8-timsort", .draws = DrawKind::coins,
     .max_items = kMaxTimsortItems, .on_gpu = true},
    {.algorithm = Algorithm::weighted, .name = "weighted", .draws = DrawKind::keys, .takes_weights = true},
    {.algorithm = Algorithm::weighted_int_power, .name = "weighted-int-power", .draws = DrawKind::keys,
     .takes_weights = true,
     .no_exact_walk = "weighted-int-power has no exact walk (its keys come from 63-bit words): test it against the "
                      "law it claims with {model} plackett-luce, or take that law from {algorithm} weighted"},
    {.algorithm = Algorithm::riffle, .name = "riffle", .draws = DrawKind::cards, .cards = {kRiffles}},
    {.algorithm = Algorithm::shelf, .name = "shelf", .draws = DrawKind::cards, .cards = {kShelves, kPasses}},
};

constexpr const AlgorithmRow& row_of(Algorithm a) { return kAlgorithmRows[static_cast<std::size_t>(a)]; }

constexpr bool rows_follow_algorithms() {
  if (std::size(kAlgorithmRows) != std::size(kAllAlgorithms)) return false;
  for (std::size_t i = 0; i < std::size(kAllAlgorithms); ++i) {
    const AlgorithmRow& row = kAlgorithmRows[i];
    if (row.algorithm != kAllAlgorithms[i] || row.draws != draw_kind(row.algorithm)) return false;
  }
  return true;
}
static_assert(rows_follow_algorithms(), "kAlgorithmRows has a row for every Algorithm, in enum order, whose "
                                        "draws agree with draw_kind()");

// Every card parameter some row takes, once each, in row order.
std::span<const CardParameter* const> card_parameters();
// The algorithms whose rows take `p`, as "shelf" or "a, b".
std::string takers_of(Param p);
// True where the algorithm's row takes `p`.
constexpr bool takes(Algorithm a, Param p) {
  for (const CardParameter& c : row_of(a).cards)
    if (c.param == p) return true;
  return false;
}

// Largest range an algorithm passes to bounded() (0: coins only).
std::uint64_t max_draw_range(Algorithm a, Shape s);
// Largest n an algorithm is defined for.
constexpr int max_items(Algorithm a) { return row_of(a).max_items; }
// Throws UsageError ({riffles}, {shelves}, {passes}) unless the algorithm's
// card parameters are in range and every parameter it does not take is 0.
void validate_card_parameters(Algorithm a, Shape s);
// A card parameter's value where its caller does not give it (the CLI's
// --passes, Python's passes=): a shelf machine makes one pass.
constexpr int default_card_parameter(Algorithm a, Param p) {
  for (const CardParameter& c : row_of(a).cards)
    if (c.param == p) return c.when_not_given;
  return 0;
}
constexpr int default_passes(Algorithm a) { return default_card_parameter(a, Param::passes); }
// True when the algorithm may hand on a deal of k < n items rather than the
// whole permutation. A one-line function, not the table, because GPU
// threads ask it; the static_assert below holds it to the table.
MELANGE_HD constexpr bool can_deal(Algorithm a) { return a == Algorithm::partial; }
constexpr bool deals_agree() {
  for (const AlgorithmRow& row : kAlgorithmRows)
    if (row.deals != can_deal(row.algorithm)) return false;
  return true;
}
static_assert(deals_agree(), "can_deal() says what kAlgorithmRows says");
// True when the algorithm draws comparator coins rather than bounded integers.
inline bool uses_coins(Algorithm a) { return draw_kind(a) == DrawKind::coins; }

// ---- The definitions --------------------------------------------------------

namespace internal {

// The algorithms reach items as a[i]: `a` is a pointer, or a container whose
// a[i] is a reference object with a value_type (a GPU thread's items packed
// in a register). item_value reads either.
template <class Ref>
MELANGE_HD inline auto item_value(const Ref& r) {
  if constexpr (requires { typename Ref::value_type; })
    return static_cast<typename Ref::value_type>(r);
  else
    return r;
}

template <class RefA, class RefB>
MELANGE_HD inline void swap_items(RefA&& a, RefB&& b) {
  const auto t = item_value(a);
  a = item_value(b);
  b = t;
}

// V8's BinaryInsertionSort from index `start`: binary-search each pivot's slot
// in a[0..i) with comparator(pivot, a[mid]); "less" moves right to mid.
template <class Items, RandomSource Source>
MELANGE_HD inline void binary_insertion_from(Items&& a, int n, int start, Source& src) {
  for (int i = start; i < n; ++i) {
    const auto pivot = item_value(a[i]);
    int left = 0, right = i;
    while (left < right) {
      const int mid = left + ((right - left) >> 1);
      if (src.less())
        right = mid;
      else
        left = mid + 1;
    }
    for (int p = i; p > left; --p) a[p] = item_value(a[p - 1]);
    a[left] = pivot;
  }
}

#ifndef __CUDA_ARCH__
// The Gilbert-Shannon-Reeds a-shuffle, a = 2^riffles, by its inverse: each
// position i = 0..n-1 draws a digit d_i = bounded(a); the positions listed
// by (digit, position) hand out the items in order, so the j-th of them
// receives item j. Up to 8 riffles a counting sort by digit (a pass to
// count, a prefix sum, a pass to place: no comparison to mispredict);
// above, keys packing (digit, position) in one sort. Decks of up to 64
// cards keep their digits on the stack.
inline constexpr int kCountingSortRiffles = 8;
template <class Items, RandomSource Source>
inline void riffle_by_digits(Items&& a, Shape s, Source& src) {
  const int n = s.n;
  const std::uint64_t range = std::uint64_t{1} << s.riffles;
  using Item = std::remove_cvref_t<decltype(item_value(a[0]))>;
  std::uint64_t small[64];
  std::vector<std::uint64_t> large(n > 64 ? static_cast<std::size_t>(n) : 0);
  std::uint64_t* keys = n > 64 ? large.data() : small;
  if (s.riffles <= kCountingSortRiffles) {
    // first[d]: the first place a card of digit d takes.
    std::uint32_t first[(1 << kCountingSortRiffles) + 1] = {};
    for (int i = 0; i < n; ++i) ++first[(keys[i] = src.bounded(range)) + 1];
    for (std::uint64_t d = 1; d <= range; ++d) first[d] += first[d - 1];
    for (int i = 0; i < n; ++i) a[i] = static_cast<Item>(first[keys[i]]++);
    return;
  }
  for (int i = 0; i < n; ++i) keys[i] = std::uint64_t{src.bounded(range)} << 32 | static_cast<std::uint32_t>(i);
  std::sort(keys, keys + n);
  for (int j = 0; j < n; ++j) a[static_cast<int>(keys[j] & 0xffffffffu)] = static_cast<Item>(j);
}

// The casino shelf shuffler (Diaconis, Fulman and Holmes 2013), `passes`
// times: the cards are dealt from the bottom of the deck up, each to a shelf
// bounded(shelves), then on top of that shelf's pile (side bounded(2) = 0)
// or under it (1); the piles are then stacked, shelf 0 on top. So a pile
// reads, top down, its cards laid on top in reverse order of dealing, then
// those laid under in order: each card's place follows from its shelf, its
// side and the counts, with no pile to move cards in. Decks of up to 64
// cards keep their draws on the stack.
template <class Items, RandomSource Source>
inline void shelf_by_draws(Items&& a, Shape s, Source& src) {
  const int n = s.n;
  using Item = std::remove_cvref_t<decltype(item_value(a[0]))>;
  std::uint32_t small_draws[64];
  Item small_deck[64];
  std::vector<std::uint32_t> large_draws(n > 64 ? static_cast<std::size_t>(n) : 0);
  std::vector<Item> large_deck(n > 64 ? static_cast<std::size_t>(n) : 0);
  std::uint32_t* draws = n > 64 ? large_draws.data() : small_draws;  // shelf << 1 | side, by dealing order
  Item* deck = n > 64 ? large_deck.data() : small_deck;
  // Per shelf: its cards laid on top, and all its cards; then the places
  // the next card laid on top (counting down) and laid under (counting up)
  // takes. A pile's first card laid on top goes just above its first laid
  // under. Up to 64 shelves on the stack.
  const auto shelves = static_cast<std::size_t>(s.shelves);
  std::uint32_t small_counts[2 * 64];
  std::vector<std::uint32_t> large_counts(shelves > 64 ? 2 * shelves : 0);
  std::uint32_t* next_on_top = shelves > 64 ? large_counts.data() : small_counts;
  std::uint32_t* next_under = next_on_top + shelves;
  for (int pass = 0; pass < s.passes; ++pass) {
    std::fill(next_on_top, next_on_top + 2 * shelves, 0u);
    for (int i = n - 1; i >= 0; --i) {
      const std::uint32_t shelf = src.bounded(static_cast<std::uint64_t>(s.shelves));
      const std::uint32_t side = src.bounded(2);
      draws[n - 1 - i] = shelf << 1 | side;
      next_on_top[shelf] += side == 0;
      ++next_under[shelf];
      deck[i] = item_value(a[i]);
    }
    std::uint32_t pile_top = 0;  // the place of the shelf's top card, piles stacked
    for (std::size_t sh = 0; sh < shelves; ++sh) {
      const std::uint32_t cards = next_under[sh];
      next_under[sh] = next_on_top[sh] += pile_top;
      pile_top += cards;
    }
    for (int d = 0; d < n; ++d) {
      const std::uint32_t shelf = draws[d] >> 1;
      const std::uint32_t to = (draws[d] & 1u) ? next_under[shelf]++ : --next_on_top[shelf];
      a[static_cast<int>(to)] = deck[n - 1 - d];
    }
  }
}
#endif

}  // namespace internal

// Runs algorithm A on a[0..s.n): `a` is a pointer to the items, or a
// container of them with a[i] (see internal::item_value).
template <Algorithm A, class Items, RandomSource Source>
MELANGE_HD inline void shuffle_as(Items&& a, Shape s, Source& src) {
  const int n = s.n;
  if constexpr (draw_kind(A) == DrawKind::schedule) {
    // Every swap algorithm is its schedule: draw, then swap.
    const int draws = scheduled_draws(A, s);
    for (int k = 0; k < draws; ++k) {
      const ScheduledDraw d = scheduled_draw(A, s, k);
      internal::swap_items(a[d.position], a[src.bounded(d.range)]);
    }
  } else if constexpr (draw_kind(A) == DrawKind::cards) {
#ifndef __CUDA_ARCH__
    // CPU only: a digit per position, or piles of cards, to keep.
    if constexpr (A == Algorithm::riffle) {
      internal::riffle_by_digits(a, s, src);
    } else {
      static_assert(A == Algorithm::shelf, "a card shuffle with no body: give it its branch here");
      internal::shelf_by_draws(a, s, src);
    }
#endif
  } else if constexpr (draw_kind(A) == DrawKind::keys) {
#ifndef __CUDA_ARCH__
    // Host code (weighted.hpp): a source without words (the exact walker)
    // never runs these; their exact law is Plackett-Luce's.
    if constexpr (requires { src.word(); }) {
      if constexpr (A == Algorithm::weighted) {
        internal::weighted_order(a, n, s.weights, src);
      } else {
        static_assert(A == Algorithm::weighted_int_power, "an order of keys with no body: give it its branch here");
        internal::int_power_order(a, n, s.weights, src);
      }
    }
#endif
  } else if constexpr (A == Algorithm::sort_binary_insertion) {
    // `a.sort(() => Math.random() - 0.5)` on an engine that sorts short
    // arrays by binary insertion.
    internal::binary_insertion_from(a, n, 1, src);
  } else {
    static_assert(A == Algorithm::sort_v8_timsort, "an algorithm with no definition");
    // The same one-liner on V8's TimSort (Node.js 20) for n < 64, a single
    // run: CountAndMakeRun, reverse a descending run, then binary insertion.
    if (n < 2) return;
    int run = 2;
    const bool descending = src.less();  // comparator(a[1], a[0])
    for (int k = 2; k < n; ++k) {
      const bool less = src.less();  // comparator(a[k], a[k-1])
      if (descending ? !less : less) break;
      ++run;
    }
    if (descending)
      for (int lo = 0, hi = run - 1; lo < hi; ++lo, --hi) internal::swap_items(a[lo], a[hi]);
    internal::binary_insertion_from(a, n, run, src);
  }
}

// The one dispatch from a run-time Algorithm to compile-time code: calls
// f(std::integral_constant<Algorithm, A>{}), generated from kAllAlgorithms.
// Host code: a kernel launch may sit inside f.
template <class F>
inline decltype(auto) with_algorithm(Algorithm a, F&& f) {
  return internal::dispatch_over<kAllAlgorithms>(a, std::forward<F>(f));
}

// Runs `algo` on a[0..s.n), dispatching at run time.
template <class Item, RandomSource Source>
inline void shuffle(Algorithm algo, Item* a, Shape s, Source& src) {
  with_algorithm(algo, [&](auto A) { shuffle_as<decltype(A)::value>(a, s, src); });
}

// The outcome of a trial seen from slot 0: dealt[i] is items[n - k + i], the
// i-th card of the deal (the whole permutation when k = n).
template <class Items>
struct DealtItems {
  const Items& items;
  int first;
  MELANGE_HD auto operator[](int i) const { return internal::item_value(items[first + i]); }
};
template <class Items>
MELANGE_HD inline DealtItems<Items> dealt_items(const Items& items, Shape s) {
  return DealtItems<Items>{items, s.first_dealt()};
}

template <class Items>
MELANGE_HD inline void iota_items(Items&& a, int n) {
  using Item = std::remove_cvref_t<decltype(a[0])>;
  for (int i = 0; i < n; ++i) a[i] = static_cast<Item>(i);
}

}  // namespace melange
