#include "melange/tallies.hpp"

#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"

namespace melange {
namespace internal {
namespace {

std::string deal_words(Shape s) { return std::to_string(s.k) + " of " + std::to_string(s.n); }

// 64-bit counts of cells that number at most this: the matrix's limit.
constexpr std::uint64_t kMaxPositionCells = static_cast<std::uint64_t>(kMaxPositionItems) * kMaxPositionItems;

}  // namespace

std::uint64_t rank_bins(Shape s) { return s.whole() ? factorial(s.n) : deal_count(s.n, s.k); }
std::uint64_t position_cells(Shape s) { return static_cast<std::uint64_t>(s.n) * static_cast<std::uint64_t>(s.k); }
std::uint64_t hand_bins(Shape s) { return hand_count(s.n, s.k); }
std::uint64_t poker_bins(Shape) { return kPokerCategories; }
std::uint64_t rise_bins(Shape s) { return static_cast<std::uint64_t>(s.n); }
std::uint64_t guess_bins(Shape s) { return static_cast<std::uint64_t>(s.n) + 1; }
std::uint64_t valley_bins(Shape s) { return static_cast<std::uint64_t>(std::max(s.n - 1, 0) / 2) + 1; }
std::uint64_t overlap_bins(Shape s) { return static_cast<std::uint64_t>(s.k) + 1; }
std::uint64_t lag_rank_bins(Shape s) { return rank_bins(s); }
std::uint64_t serial_pair_bins(Shape s) { return s.whole() && s.n <= kMaxSerialPairItems ? factorial(s.n) * factorial(s.n) : 0; }

void check_ranks(Shape s) {
  if (s.whole()) {
    if (s.n > kMaxRankItems)
      throw UsageError(Param::n, "n = " + std::to_string(s.n) + " has more orders than 64-bit ranks hold (n <= " +
                                     std::to_string(kMaxRankItems) +
                                     "); tally the item x position matrix ({position_matrix}) instead");
    return;
  }
  if (deal_count(s.n, s.k) == 0)
    throw UsageError(Param::k, "deals of " + deal_words(s) +
                                   " have more orders than 64-bit ranks hold; tally the hands "
                                   "({hand_histogram}) or the item x slot matrix ({position_matrix}) instead");
}

void check_positions(Shape s) {
  if (s.whole()) {
    if (s.n > kMaxPositionItems)
      throw UsageError(Param::n, "the position matrix is limited to {n} <= " + std::to_string(kMaxPositionItems) +
                                     ", got n = " + std::to_string(s.n));
    return;
  }
  if (position_cells(s) > kMaxPositionCells)
    throw UsageError(Param::n, "the item x slot matrix is limited to n k <= " + std::to_string(kMaxPositionCells) +
                                   " cells, got " + deal_words(s));
}

// Hands and categories are tallies of deals: the message for a whole
// permutation names both, as the parameters that ask for them sit together.
void refuse_whole(Param param) {
  throw UsageError(param, "hands and poker categories ({hand_histogram}, {poker_categories}) are tallies of deals: "
                          "use the partial algorithm with {k} below {n}");
}

void check_hands(Shape s) {
  if (s.whole()) refuse_whole(Param::hand_histogram);
  if (hand_count(s.n, s.k) == 0)
    throw UsageError(Param::hand_histogram, "hands of " + deal_words(s) +
                                                " outnumber 64-bit ranks; tally the item x slot matrix "
                                                "({position_matrix}) instead");
}

void check_poker(Shape s) {
  if (s.whole()) refuse_whole(Param::poker_categories);
  if (s.n != 52 || s.k != 5)
    throw UsageError(Param::poker_categories,
                     "poker categories ({poker_categories}) are for deals of 5 of 52 cards, got " + deal_words(s));
}

void check_rises(Shape s) {
  if (!s.whole())
    throw UsageError(Param::k, "rising sequences are counted on whole permutations, not on deals of " +
                                   deal_words(s) + "; leave out {k}");
  if (s.n > kMaxPositionItems)
    throw UsageError(Param::n, "rising sequences are counted up to {n} = " + std::to_string(kMaxPositionItems) +
                                   ", got n = " + std::to_string(s.n));
}

void check_overlaps(Shape s) {
  if (s.whole())
    throw UsageError(Param::k, "hand overlaps are counted on deals: add {k} below {n}");
}

void check_guesses(Shape s) {
  if (!s.whole())
    throw UsageError(Param::k, "the guessing test turns whole decks, not deals of " + deal_words(s) + "; leave out {k}");
  if (s.n > kMaxPositionItems)
    throw UsageError(Param::n, "the guessing test runs up to {n} = " + std::to_string(kMaxPositionItems) +
                                   ", got n = " + std::to_string(s.n));
}

void check_valleys(Shape s) {
  if (!s.whole())
    throw UsageError(Param::k, "valleys are counted on whole permutations, not on deals of " + deal_words(s) +
                                   "; leave out {k}");
  if (s.n > kMaxPositionItems)
    throw UsageError(Param::n, "valleys are counted up to {n} = " + std::to_string(kMaxPositionItems) +
                                   ", got n = " + std::to_string(s.n));
}

void check_lag_ranks(Shape s) {
  const std::uint64_t orders = s.whole() ? (s.n <= kMaxRankItems ? factorial(s.n) : 0) : deal_count(s.n, s.k);
  if (orders == 0 || orders > kMaxLagRankBins)
    throw UsageError(Param::n, "the relabeled records' ranks are tallied up to " + std::to_string(kMaxLagRankBins) +
                                   " orders (n <= 10)");
}

void check_serial_pairs(Shape s) {
  if (!s.whole() || s.n < 2 || s.n > kMaxSerialPairItems)
    throw UsageError(Param::n, "serial pairs are tallied for whole permutations of 2 to " +
                                   std::to_string(kMaxSerialPairItems) + " items");
}

std::vector<double> fair_rise_law(Shape s) { return eulerian_probabilities(s.n); }
std::vector<double> fair_overlap_law(Shape s) { return to_doubles(hand_overlap_law(s.n, s.k)); }

std::vector<double> fair_guess_law(Shape s) { return correct_guesses_law(s.n); }
std::vector<double> fair_valley_law(Shape s) { return valley_probabilities(s.n); }

namespace {
// A histogram kind's law under an exact model: each order's probability
// filed under the bin Definition counts for it.
template <class Definition>
std::vector<double> model_histogram_law(const ExactDistribution& model) {
  const Shape s{model.n, model.n};
  std::vector<double> law(row_of(Definition::kind).bins(s), 0.0);
  for (std::uint64_t r = 0; r < model.probability.size(); ++r) {
    if (model.probability[r] == 0) continue;
    std::uint64_t bin = 0;
    struct {
      std::uint64_t* bin;
      void add(TallyKind, std::uint64_t b) { *bin = b; }
    } counter{&bin};
    Definition::count(lehmer_unrank(r, model.n), s, counter);
    law[bin] += static_cast<double>(model.probability[r]);
  }
  return law;
}
}  // namespace

std::vector<double> model_guess_law(const ExactDistribution& model) { return model_histogram_law<GuessTally>(model); }
std::vector<double> model_rise_law(const ExactDistribution& model) { return model_histogram_law<RiseTally>(model); }
std::vector<double> model_valley_law(const ExactDistribution& model) { return model_histogram_law<ValleyTally>(model); }
std::vector<double> model_shelf_guess_law(const ExactDistribution& model) {
  return model_histogram_law<ShelfGuessTally>(model);
}

std::vector<double> fair_poker_law(Shape) {
  std::vector<double> p;
  for (std::uint64_t hands : kPokerCategoryHands) p.push_back(static_cast<double>(hands) / 2'598'960.0);
  return p;
}

std::vector<double> model_hand_law(const ExactDistribution& model) {
  const std::vector<Rational> law = model.hand_probabilities();
  std::vector<double> p(law.size());
  for (std::size_t i = 0; i < law.size(); ++i) p[i] = static_cast<double>(law[i]);
  return p;
}

std::string_view poker_label(std::uint64_t bin) { return poker_category_name(static_cast<PokerCategory>(bin)); }

}  // namespace internal

std::optional<TallyKind> tally_kind_named(std::string_view name) {
  for (const TallyKindRow& row : kTallyKindRows)
    if (row.name == name) return row.kind;
  return std::nullopt;
}

std::string tally_names(TallySet set) {
  std::string names;
  for (const TallyKindRow& row : kTallyKindRows)
    if (set.has(row.kind)) {
      if (!names.empty()) names += ' ';
      names += row.name;
    }
  return names.empty() ? "none" : names;
}

std::optional<TallySet> parse_tally_names(std::string_view names) {
  TallySet set;
  if (names == "none") return set;
  while (!names.empty()) {
    const std::size_t end = names.find(' ');
    const std::optional<TallyKind> kind = tally_kind_named(names.substr(0, end));
    if (!kind) return std::nullopt;
    set.set(*kind);
    names = end == std::string_view::npos ? std::string_view{} : names.substr(end + 1);
  }
  return set;
}

}  // namespace melange
