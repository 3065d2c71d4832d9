// Tally kinds: what a job counts of each trial's outcome (contract
// §3). Each kind is defined once, here: a definition that says how an outcome
// counts into it (a type below, run by every backend's trial), and a row of
// kTallyKindRows that says its names, its bins for a shape, whether it fits,
// and how documents give its counts. What holds, merges, zeroes, saves,
// reads, writes or checks tallies loops over the rows; adding a kind is a
// definition, a row, and the functions the row names (tallies.cpp).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/config.hpp"
#include "melange/deal.hpp"
#include "melange/internal/dispatch.hpp"
#include "melange/rank.hpp"

namespace melange {

struct ExactDistribution;

enum class TallyKind : std::uint8_t {
  ranks,      // the Lehmer rank of the permutation; a deal's deal rank
  positions,  // the item x position matrix; a deal's item x slot
  hands,      // a deal's hand, by colex rank
  poker,      // a deal of 5 of 52: its poker category
  rises,      // a permutation's rising sequences
  overlaps,   // a deal's items below k: against the previous deal relabeled, the hand overlap
  guesses,    // a permutation's cards a guesser names before each is turned (GuessTally)
  valleys,    // a permutation's valleys: cards below both neighbours (ValleyTally)
  shelf_guesses,  // the cards a guesser who bets on a shelf shuffler's piles names (ShelfGuessTally)
  // Serial kinds (built-in jobs audited as a stream, contract §4):
  // trial t against trial t - 1, the one before it in index order
  // (wrapping below 0), relabeled by it (stream_tests.hpp); each is a kind
  // above counted on the relabeled record.
  lag_ranks,      // ranks of the relabeled record (tau's)
  lag_positions,  // its item x position (slot) matrix: the transition matrix
  lag_rises,      // its rising sequences
  lag_overlaps,   // a deal's hand overlap with the deal before
  serial_pairs,   // (rank of t - 1, rank of t), n <= 5: n!^2 bins
};

// ---- Definitions: how an outcome counts ----------------------------------
// count(deal, shape, counter): deal[i] is the item in slot i < k (the whole
// permutation when k = n). A counter has rank(r) and position(item, slot),
// the two kinds every backend counts on a fast path of its own, and
// add(kind, bin) for any other kind.

struct RankTally {
  static constexpr TallyKind kind = TallyKind::ranks;
  template <class Deal, class Counter>
  MELANGE_HD static void count(const Deal& deal, Shape s, Counter& counter) {
    counter.rank(s.whole() ? lehmer_rank(deal, s.n) : deal_rank(deal, s.n, s.k));
  }
};

struct PositionTally {
  static constexpr TallyKind kind = TallyKind::positions;
  template <class Deal, class Counter>
  MELANGE_HD static void count(const Deal& deal, Shape s, Counter& counter) {
    for (int p = 0; p < s.k; ++p) counter.position(static_cast<int>(deal[p]), p);
  }
};

struct HandTally {
  static constexpr TallyKind kind = TallyKind::hands;
  template <class Deal, class Counter>
  MELANGE_HD static void count(const Deal& deal, Shape s, Counter& counter) {
    counter.add(kind, hand_rank(deal, s.k));
  }
};

struct PokerTally {
  static constexpr TallyKind kind = TallyKind::poker;
  template <class Deal, class Counter>
  MELANGE_HD static void count(const Deal& deal, Shape, Counter& counter) {
    counter.add(kind, static_cast<std::uint64_t>(poker_category(deal)));
  }
};

// The rising sequences of a permutation (Bayer and Diaconis 1992): its
// maximal runs of consecutive items c, c+1, .. at increasing positions. R =
// 1 + the number of items c whose successor c + 1 lies to the left of c;
// bin R - 1. A riffle's law depends on R alone, so this is the tally that
// sees too few riffles.
struct RiseTally {
  static constexpr TallyKind kind = TallyKind::rises;
  template <class Deal, class Counter>
  MELANGE_HD static void count(const Deal& deal, Shape s, Counter& counter) {
    // A bit per item seen so far: c + 1 seen before c starts a new sequence.
    // Up to 63 items the bits stay in a register.
    std::uint64_t breaks = 0;
    if (s.n < 64) {
      std::uint64_t seen = 0;
      for (int p = 0; p < s.n; ++p) {
        const auto c = static_cast<unsigned>(deal[p]);
        breaks += (seen >> (c + 1)) & 1u;
        seen |= std::uint64_t{1} << c;
      }
    } else {
      std::uint64_t seen[kMaxPositionItems / 64 + 1] = {};
      for (int p = 0; p < s.n; ++p) {
        const auto c = static_cast<unsigned>(deal[p]);
        breaks += (seen[(c + 1) >> 6] >> ((c + 1) & 63)) & 1u;
        seen[c >> 6] |= std::uint64_t{1} << (c & 63);
      }
    }
    counter.add(kind, breaks);
  }
};

// How many of a deal's items are below k. Counted on a deal relabeled by
// the deal before it (stream_tests.hpp: that deal's items become 0..k-1),
// it is the number of items the two hands share, Hypergeometric(n, k, k)
// for independent uniform deals.
struct OverlapTally {
  static constexpr TallyKind kind = TallyKind::overlaps;
  template <class Deal, class Counter>
  MELANGE_HD static void count(const Deal& deal, Shape s, Counter& counter) {
    std::uint64_t low = 0;
    for (int p = 0; p < s.k; ++p) low += static_cast<int>(deal[p]) < s.k;
    counter.add(kind, low);
  }
};

// The cards a guesser has seen, a bit each, and the nearest unseen card
// above or below a card: a word's bits at a time.
struct SeenCards {
  std::uint64_t bits[kMaxPositionItems / 64 + 1] = {};
  int n;
  explicit SeenCards(int items) : n(items) {}
  void see(int c) { bits[c >> 6] |= std::uint64_t{1} << (c & 63); }
  // The lowest card at or above `from` not yet seen, or n.
  int lowest_from(int from) const {
    for (int w = from >> 6; w * 64 < n; ++w) {
      const std::uint64_t free = ~bits[w] & (w == from >> 6 ? ~std::uint64_t{0} << (from & 63) : ~std::uint64_t{0});
      if (free) return std::min(n, w * 64 + std::countr_zero(free));
    }
    return n;
  }
  // The highest card at or below `to` not yet seen, or -1.
  int highest_to(int to) const {
    for (int w = to >> 6; w >= 0 && to >= 0; --w) {
      const std::uint64_t free = ~bits[w] & (w == to >> 6 ? ~std::uint64_t{0} >> (63 - (to & 63)) : ~std::uint64_t{0});
      if (free) return w * 64 + 63 - std::countl_zero(free);
    }
    return -1;
  }
};

// The guessing test: a guesser turns the cards over one by one and names
// each before it is turned, remembering every card seen. The strategy here
// bets that the deck keeps its original order: after card c it names the
// lowest card not yet seen above c, else the lowest not yet seen (the first
// guess is card 0). It beats a fair deck's odds wherever rising sequences
// survive (riffles, a shelf pass); under a uniform deck any strategy that
// names an unseen card is right with probability 1/j with j cards left,
// independently, whatever the strategy. Bin: the correct guesses, 0..n.
struct GuessTally {
  static constexpr TallyKind kind = TallyKind::guesses;
  template <class Deal, class Counter>
  static void count(const Deal& deal, Shape s, Counter& counter) {
    SeenCards seen(s.n);
    std::uint64_t correct = 0;
    int last = -1;
    for (int p = 0; p < s.n; ++p) {
      int guess = seen.lowest_from(last + 1);
      if (guess == s.n) guess = seen.lowest_from(0);
      const auto c = static_cast<int>(deal[p]);
      correct += c == guess;
      seen.see(c);
      last = c;
    }
    counter.add(kind, correct);
  }
};

// A permutation's valleys: the positions 0 < p < n-1 whose card is below
// both neighbours. A shelf shuffler's pass stacks piles that each rise and
// then fall, so one pass of m shelves leaves at most m - 1 valleys, where a
// uniform deck of 52 has 16.7 on average; and the shelf law depends on
// the valleys alone (laws.hpp). Bin: the valleys, 0..(n-1)/2.
struct ValleyTally {
  static constexpr TallyKind kind = TallyKind::valleys;
  template <class Deal, class Counter>
  MELANGE_HD static void count(const Deal& deal, Shape s, Counter& counter) {
    std::uint64_t valleys = 0;
    for (int p = 1; p + 1 < s.n; ++p) {
      const auto c = deal[p];
      valleys += deal[p - 1] > c && c < deal[p + 1];
    }
    counter.add(kind, valleys);
  }
};

// The guessing test against a shelf shuffler: its piles rise, then fall,
// so the guesser follows the direction the last two cards took. Rising (or
// at the first card), it names the lowest unseen card above the last one;
// falling, the highest unseen below it; where none is left that way, the
// nearest unseen the other way. After one pass of 10 shelves it names
// 9.2966 cards of 52 on average, exactly, and no guesser can expect more
// (shelf_guessing in laws.hpp), where a uniform deck allows 4.54 to any.
struct ShelfGuessTally {
  static constexpr TallyKind kind = TallyKind::shelf_guesses;
  template <class Deal, class Counter>
  static void count(const Deal& deal, Shape s, Counter& counter) {
    SeenCards seen(s.n);
    std::uint64_t correct = 0;
    int last = -1;
    bool rising = true;
    for (int p = 0; p < s.n; ++p) {
      const int up = seen.lowest_from(last + 1), down = last > 0 ? seen.highest_to(last - 1) : -1;
      const int guess = rising ? (up < s.n ? up : down) : (down >= 0 ? down : up);
      const auto c = static_cast<int>(deal[p]);
      correct += c == guess;
      seen.see(c);
      if (p > 0) rising = c > last;
      last = c;
    }
    counter.add(kind, correct);
  }
};

// Which kinds a job tallies.
class TallySet {
 public:
  constexpr TallySet() = default;
  constexpr TallySet(std::initializer_list<TallyKind> kinds) {
    for (TallyKind k : kinds) set(k);
  }
  MELANGE_HD constexpr bool has(TallyKind k) const { return (bits_ >> static_cast<unsigned>(k)) & 1u; }
  constexpr void set(TallyKind k, bool on = true) {
    const auto bit = static_cast<std::uint16_t>(1u << static_cast<unsigned>(k));
    bits_ = on ? static_cast<std::uint16_t>(bits_ | bit) : static_cast<std::uint16_t>(bits_ & ~bit);
  }
  MELANGE_HD constexpr bool empty() const { return bits_ == 0; }
  MELANGE_HD constexpr std::uint16_t bits() const { return bits_; }
  friend constexpr bool operator==(TallySet, TallySet) = default;

 private:
  std::uint16_t bits_ = 0;
};

template <class... Kinds>
struct TallyDefinitions {
  static constexpr std::array<TallyKind, sizeof...(Kinds)> kinds{Kinds::kind...};
  // Counts a deal into every kind of `set`.
  template <class Deal, class Counter>
  MELANGE_HD static void count(TallySet set, const Deal& deal, Shape s, Counter& counter) {
    ((set.has(Kinds::kind) ? Kinds::count(deal, s, counter) : void()), ...);
  }
};
using RecordTallyDefinitions =
    TallyDefinitions<RankTally, PositionTally, HandTally, PokerTally, RiseTally, OverlapTally, GuessTally,
                     ValleyTally, ShelfGuessTally>;

// ---- Serial definitions: a record against the record before it -----------
// count(before, record, relabeled, shape, counter): `relabeled` is the
// record with each item replaced by its slot in `before` (a deal's undealt
// items numbered k.. in item order: stream_tests.hpp's relabel).

// Relabels `record` by `before` into `out` (k items each): the item at slot
// p of `before` becomes p; for deals the items `before` did not deal become
// k, k + 1, .. in item order. `label` is scratch for n entries. For whole
// permutations out = before^-1 o record: independent uniform records give
// an independent uniform relabeled one.
template <class Item>
void relabel(const Item* before, const Item* record, Item* out, Shape s, Item* label) {
  const auto none = static_cast<Item>(s.n);
  if (!s.whole())
    for (int i = 0; i < s.n; ++i) label[i] = none;
  for (int p = 0; p < s.k; ++p) label[before[p]] = static_cast<Item>(p);
  if (!s.whole()) {
    auto next = static_cast<Item>(s.k);
    for (int i = 0; i < s.n; ++i)
      if (label[i] == none) label[i] = next++;
  }
  for (int q = 0; q < s.k; ++q) out[q] = label[record[q]];
}

// A counter that files a kind's counts under its lag kind.
template <class Counter>
struct LagCounter {
  Counter& counter;
  int k;
  MELANGE_HD void rank(std::uint64_t r) { counter.add(TallyKind::lag_ranks, r); }
  MELANGE_HD void position(int item, int p) {
    counter.add(TallyKind::lag_positions, static_cast<std::uint64_t>(item) * static_cast<std::uint64_t>(k) +
                                              static_cast<std::uint64_t>(p));
  }
  MELANGE_HD void add(TallyKind kind, std::uint64_t bin) {
    counter.add(kind == TallyKind::rises ? TallyKind::lag_rises : TallyKind::lag_overlaps, bin);
  }
};

template <TallyKind Kind, class Of>
struct LagOf {
  static constexpr TallyKind kind = Kind;
  template <class Deal, class Counter>
  static void count(const Deal&, const Deal&, const Deal& relabeled, Shape s, Counter& counter) {
    LagCounter<Counter> lag{counter, s.k};
    Of::count(relabeled, s, lag);
  }
};

struct SerialPairTally {
  static constexpr TallyKind kind = TallyKind::serial_pairs;
  template <class Deal, class Counter>
  static void count(const Deal& before, const Deal& record, const Deal&, Shape s, Counter& counter) {
    const std::uint64_t orders = factorial(s.n);
    counter.add(kind, lehmer_rank(before, s.n) * orders + lehmer_rank(record, s.n));
  }
};

template <class... Kinds>
struct SerialDefinitions {
  static constexpr std::array<TallyKind, sizeof...(Kinds)> kinds{Kinds::kind...};
  template <class Deal, class Counter>
  static void count(TallySet set, const Deal& before, const Deal& record, const Deal& relabeled, Shape s,
                    Counter& counter) {
    ((set.has(Kinds::kind) ? Kinds::count(before, record, relabeled, s, counter) : void()), ...);
  }
};
using AllSerialDefinitions =
    SerialDefinitions<LagOf<TallyKind::lag_ranks, RankTally>, LagOf<TallyKind::lag_positions, PositionTally>,
                      LagOf<TallyKind::lag_rises, RiseTally>, LagOf<TallyKind::lag_overlaps, OverlapTally>,
                      SerialPairTally>;

// Every kind: the record kinds, then the serial ones.
struct AllTallyDefinitions : RecordTallyDefinitions {
  static constexpr auto kinds = [] {
    std::array<TallyKind, RecordTallyDefinitions::kinds.size() + AllSerialDefinitions::kinds.size()> all{};
    std::size_t i = 0;
    for (TallyKind k : RecordTallyDefinitions::kinds) all[i++] = k;
    for (TallyKind k : AllSerialDefinitions::kinds) all[i++] = k;
    return all;
  }();
};

constexpr TallySet serial_kinds() {
  TallySet set;
  for (TallyKind k : AllSerialDefinitions::kinds) set.set(k);
  return set;
}
constexpr bool has_serial_kinds(TallySet set) { return (set.bits() & serial_kinds().bits()) != 0; }

// What the backends' fast paths count: a GPU thread counts the kinds of
// built-in jobs (ranks, positions, hands, poker), and the SIMD lanes a
// whole permutation's ranks and positions. The rest (rises, overlaps:
// records and their streams) are counted on the host by the reference
// loop; the backends refuse jobs that ask for them (lane_kinds_only,
// device_kinds_only).
using DeviceTallyDefinitions = TallyDefinitions<RankTally, PositionTally, HandTally, PokerTally>;
// They are the first kinds, so that a GPU's arrays by kind stop after them.
inline constexpr std::size_t kDeviceTallyKinds = DeviceTallyDefinitions::kinds.size();
static_assert(internal::lists_every_value_in_order<DeviceTallyDefinitions::kinds>(),
              "the device kinds are the first TallyKinds, in enum order");

inline constexpr auto kAllTallyKinds = AllTallyDefinitions::kinds;
inline constexpr std::size_t kTallyKinds = kAllTallyKinds.size();
static_assert(internal::lists_every_value_in_order<kAllTallyKinds>(),
              "AllTallyDefinitions lists every TallyKind once, in enum order");
static_assert(kTallyKinds <= 8 * sizeof(TallySet{}.bits()),
              "a TallySet holds a bit a kind: widen its bits_ for more kinds, or the last would never count");

constexpr bool only_kinds_of(TallySet set, TallySet allowed) { return (set.bits() & ~allowed.bits()) == 0; }
constexpr bool device_kinds_only(TallySet set) {
  TallySet device;
  for (TallyKind k : DeviceTallyDefinitions::kinds) device.set(k);
  return only_kinds_of(set, device);
}
// A whole permutation's kinds the SIMD lanes count.
constexpr bool lane_kinds_only(TallySet set) {
  return only_kinds_of(set, TallySet{TallyKind::ranks, TallyKind::positions});
}

// ---- Rows: what the rest of melange knows of a kind ----------------------

// How a kind's counts add up (what a file read back must pass).
enum class CountsLayout : std::uint8_t {
  histogram,  // a bin per outcome, one a trial: the bins add up to the trials
  matrix,     // item x slot (n x k), one a slot a trial: each slot adds up to the trials
};

// How an audit's JSON document gives a kind's counts (report/ writes it,
// `melange merge` reads it back).
enum class JsonCounts : std::uint8_t {
  flat,      // "key": [c_0, c_1, ...]
  rows,      // "key": [[an item's k counts], ...]
  labelled,  // "key": [{"category": label, "count": c, "expected": e}, ...], e under the fair law
};

// Which tail of the mean bin a kind's z test grades (TallyKindRow::mean_test).
enum class MeanTail : std::uint8_t { none, lower, upper };

struct TallyKindRow {
  TallyKind kind;
  std::string_view name;   // in checkpoints and lists of kinds: "ranks", "positions", "hands", "categories"
  std::string_view title;  // in words: "rank histogram", ...
  CountsLayout layout;
  // Bins (cells) for a shape; 0 when 64 bits cannot number them.
  std::uint64_t (*bins)(Shape);
  // Throws UsageError saying why the kind cannot tally the shape.
  void (*check)(Shape);
  // The law of a fair shuffle's outcome, a probability a bin; empty: uniform.
  std::vector<double> (*fair_law)(Shape);
  // The law under an exact model (contract §4, --model); null: the
  // fair law, whatever the model.
  std::vector<double> (*model_law)(const ExactDistribution&);
  // The bin's name (labelled kinds), else null.
  std::string_view (*label)(std::uint64_t bin);
  // Its test. A kind with a histogram test is tested by analyze() (audit.hpp)
  // with chi-square against its law, and the documents give it under
  // test_name ("hand test (2,598,960 hands)"); ranks and positions have
  // tests of their own (the rank summary, the position residuals).
  bool histogram_test;
  std::string_view test_name;  // the test's name and key in the JSON's "stats": "hand", "category"
  std::string_view test_title; // in words: "hand", "poker category"
  std::string_view bins_noun;  // "hands", "categories"
  // The audit JSON: its key, its form, and above json_max_bins (0: no
  // limit) only the number of bins, under json_bins_key (written always
  // where the key is not empty).
  std::string_view json_key;
  JsonCounts json;
  std::uint64_t json_max_bins;
  std::string_view json_bins_key;
  // A histogram test whose law has rare bins (the Eulerian law's ends):
  // adjacent bins are pooled until each group expects kMinExpectedPerBin,
  // rather than the test waiting until every bin does.
  bool pooled;
  // Beside the chi-square, a one-sided z test of the mean bin against the
  // law's: the direction a known flaw moves it (fewer rising sequences
  // after too few riffles, more shared cards between sticky deals).
  MeanTail mean_test;
  int first_value;  // the value bin 0 stands for (rising sequences: 1)
  // Beside the chi-square, the count of bins 0 .. tail_bins - 1 together,
  // both tails, exactly: the rare outcomes a rigged dealer moves (a
  // straight or better), which the whole table's test dilutes. 0: none.
  int tail_bins = 0;
  std::string_view tail_name = {};   // its test's name and key: "strong hands"
  std::string_view tail_words = {};  // the bins in words: "a straight or better"
};

namespace internal {
std::uint64_t rank_bins(Shape s);
std::uint64_t position_cells(Shape s);
std::uint64_t hand_bins(Shape s);
std::uint64_t poker_bins(Shape s);
std::uint64_t rise_bins(Shape s);
std::uint64_t overlap_bins(Shape s);
std::uint64_t guess_bins(Shape s);
std::uint64_t valley_bins(Shape s);
std::uint64_t lag_rank_bins(Shape s);
std::uint64_t serial_pair_bins(Shape s);
void check_ranks(Shape s);
void check_positions(Shape s);
void check_hands(Shape s);
void check_poker(Shape s);
void check_rises(Shape s);
void check_overlaps(Shape s);
void check_guesses(Shape s);
void check_valleys(Shape s);
void check_lag_ranks(Shape s);
void check_serial_pairs(Shape s);
std::vector<double> fair_poker_law(Shape s);
std::vector<double> fair_rise_law(Shape s);
std::vector<double> fair_overlap_law(Shape s);
std::vector<double> fair_guess_law(Shape s);
std::vector<double> fair_valley_law(Shape s);
std::vector<double> model_hand_law(const ExactDistribution& model);
std::vector<double> model_rise_law(const ExactDistribution& model);
std::vector<double> model_guess_law(const ExactDistribution& model);
std::vector<double> model_valley_law(const ExactDistribution& model);
std::vector<double> model_shelf_guess_law(const ExactDistribution& model);
std::string_view poker_label(std::uint64_t bin);
}  // namespace internal

// Relabeled records keep a rank histogram up to this many orders.
inline constexpr std::uint64_t kMaxLagRankBins = 3628800;  // 10!: 29 MB a lag
// Serial pairs are tallied up to this n (5!^2 = 14,400 cells).
inline constexpr int kMaxSerialPairItems = 5;

// Above this many hands the JSON document gives the hand test, not the counts.
inline constexpr std::uint64_t kMaxJsonHands = std::uint64_t{1} << 16;

inline constexpr std::array<TallyKindRow, kTallyKinds> kTallyKindRows{{
    {TallyKind::ranks, "ranks", "rank histogram", CountsLayout::histogram, internal::rank_bins,
     internal::check_ranks, nullptr, nullptr, nullptr, false, "rank", "rank", "orders",
     "histogram", JsonCounts::flat, 0, "", false, MeanTail::none, 0},
    {TallyKind::positions, "positions", "position matrix", CountsLayout::matrix, internal::position_cells,
     internal::check_positions, nullptr, nullptr, nullptr, false, "position", "position", "cells",
     "position", JsonCounts::rows, 0, "", false, MeanTail::none, 0},
    {TallyKind::hands, "hands", "hand histogram", CountsLayout::histogram, internal::hand_bins,
     internal::check_hands, nullptr, internal::model_hand_law, nullptr, true, "hand", "hand", "hands",
     "hands", JsonCounts::flat, kMaxJsonHands, "hand_bins", false, MeanTail::none, 0},
    {TallyKind::poker, "categories", "poker categories", CountsLayout::histogram, internal::poker_bins,
     internal::check_poker, internal::fair_poker_law, nullptr, internal::poker_label, true, "category",
     "poker category", "categories", "poker_categories", JsonCounts::labelled, 0, "", false, MeanTail::none, 0,
     static_cast<int>(PokerCategory::straight) + 1, "strong hands", "a straight or better"},
    {TallyKind::rises, "rises", "rising sequences", CountsLayout::histogram, internal::rise_bins,
     internal::check_rises, internal::fair_rise_law, internal::model_rise_law, nullptr, true, "rises",
     "rising sequence", "counts of sequences", "rising_sequences", JsonCounts::flat, 0, "", true, MeanTail::lower, 1},
    {TallyKind::overlaps, "overlaps", "items below k", CountsLayout::histogram, internal::overlap_bins,
     internal::check_overlaps, internal::fair_overlap_law, nullptr, nullptr, true, "overlap", "hand overlap",
     "overlap sizes", "overlaps", JsonCounts::flat, 0, "", true, MeanTail::upper, 0},
    {TallyKind::guesses, "guesses", "correct guesses", CountsLayout::histogram, internal::guess_bins,
     internal::check_guesses, internal::fair_guess_law, internal::model_guess_law, nullptr, true, "guesses",
     "correct guess", "counts of correct guesses", "correct_guesses", JsonCounts::flat, 0, "", true, MeanTail::upper,
     0},
    {TallyKind::valleys, "valleys", "valleys", CountsLayout::histogram, internal::valley_bins, internal::check_valleys,
     internal::fair_valley_law, internal::model_valley_law, nullptr, true, "valleys", "valley", "counts of valleys",
     "valleys", JsonCounts::flat, 0, "", true, MeanTail::lower, 0},
    {TallyKind::shelf_guesses, "shelf_guesses", "correct guesses, shelf strategy", CountsLayout::histogram,
     internal::guess_bins, internal::check_guesses, internal::fair_guess_law, internal::model_shelf_guess_law,
     nullptr, true, "shelf_guesses", "correct guess (shelf strategy)", "counts of correct guesses",
     "correct_shelf_guesses", JsonCounts::flat, 0, "", true, MeanTail::upper, 0},
    // The serial kinds: their tests are the stream tests (audit_stream.cpp),
    // made from them as from a stream of records.
    {TallyKind::lag_ranks, "lag_ranks", "lag-1 relabeled ranks", CountsLayout::histogram, internal::lag_rank_bins,
     internal::check_lag_ranks, nullptr, nullptr, nullptr, false, "lag_rank", "lag-1 rank", "orders", "lag1_ranks",
     JsonCounts::flat, 0, "", false, MeanTail::none, 0},
    {TallyKind::lag_positions, "lag_positions", "lag-1 transition matrix", CountsLayout::matrix,
     internal::position_cells, internal::check_positions, nullptr, nullptr, nullptr, false, "lag_position",
     "lag-1 position", "cells", "lag1_positions", JsonCounts::rows, 0, "", false, MeanTail::none, 0},
    {TallyKind::lag_rises, "lag_rises", "lag-1 relabeled rising sequences", CountsLayout::histogram,
     internal::rise_bins, internal::check_rises, internal::fair_rise_law, nullptr, nullptr, false, "lag_rises",
     "lag-1 rising sequence", "counts of sequences", "lag1_rising_sequences", JsonCounts::flat, 0, "", false,
     MeanTail::none, 1},
    {TallyKind::lag_overlaps, "lag_overlaps", "lag-1 hand overlaps", CountsLayout::histogram, internal::overlap_bins,
     internal::check_overlaps, internal::fair_overlap_law, nullptr, nullptr, false, "lag_overlap", "lag-1 hand overlap",
     "overlap sizes", "lag1_overlaps", JsonCounts::flat, 0, "", false, MeanTail::none, 0},
    {TallyKind::serial_pairs, "serial_pairs", "serial pairs", CountsLayout::histogram, internal::serial_pair_bins,
     internal::check_serial_pairs, nullptr, nullptr, nullptr, false, "serial_pairs", "serial pair", "pairs of orders",
     "serial_pairs", JsonCounts::flat, 0, "", false, MeanTail::none, 0},
}};

constexpr bool rows_follow_kinds() {
  for (std::size_t i = 0; i < kTallyKinds; ++i)
    if (kTallyKindRows[i].kind != kAllTallyKinds[i]) return false;
  return true;
}
static_assert(rows_follow_kinds(), "kTallyKindRows has a row for every kind, in enum order");

constexpr const TallyKindRow& row_of(TallyKind k) { return kTallyKindRows[static_cast<std::size_t>(k)]; }

// The kind whose row's name is `name`.
std::optional<TallyKind> tally_kind_named(std::string_view name);
// The set's kinds by name, separated by spaces ("ranks positions"), "none" when empty.
std::string tally_names(TallySet set);
// The set read back from tally_names; nullopt on a name no row has.
std::optional<TallySet> parse_tally_names(std::string_view names);

}  // namespace melange
