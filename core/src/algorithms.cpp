#include "melange/algorithms.hpp"

#include <algorithm>
#include <string>

#include "melange/error.hpp"
#include "melange/internal/join_names.hpp"

namespace melange {

std::string_view algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::fisher_yates: return "fisher-yates";
    case Algorithm::naive_swap: return "naive-swap";
    case Algorithm::sattolo: return "sattolo";
    case Algorithm::partial: return "partial";
    case Algorithm::sort_binary_insertion: return "sort-binary-insertion";
    case Algorithm::sort_v8_timsort: return "sort-v8-timsort";
    case Algorithm::weighted: return "weighted";
    case Algorithm::weighted_int_power: return "weighted-int-power";
    case Algorithm::riffle: return "riffle";
    case Algorithm::shelf: return "shelf";
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  for (Algorithm a : kAllAlgorithms)
    if (algorithm_name(a) == name) return a;
  return std::nullopt;
}

std::string algorithm_names(std::string_view sep) {
  return internal::join_names(kAllAlgorithms, algorithm_name, sep);
}

std::uint64_t max_draw_range(Algorithm a, Shape s) {
  std::uint64_t top = 0;
  for (int d = 0; d < scheduled_draws(a, s); ++d)
    top = std::max<std::uint64_t>(top, scheduled_draw(a, s, d).range);
  return top;
}

int max_items(Algorithm a) {
  return a == Algorithm::sort_v8_timsort ? kMaxTimsortItems : kMaxSampleItems;
}

namespace {
// Throws unless `value` is in [low, high] where the algorithm takes the
// parameter, and 0 where it does not.
void check_parameter(Algorithm a, Algorithm takes_it, Param p, int value, int low, int high, std::string_view what) {
  std::string token{"{"};
  token.append(param_name(p)).append("}");
  if (a != takes_it) {
    if (value != 0)
      throw UsageError(p, token + " is for the " + std::string(algorithm_name(takes_it)) + " algorithm; " +
                              std::string(algorithm_name(a)) + " takes none");
    return;
  }
  if (value < low || value > high)
    throw UsageError(p, std::string(algorithm_name(a)) + " needs " + token + " from " + std::to_string(low) + " to " +
                            std::to_string(high) + " (" + std::string(what) + "), got " + std::to_string(value));
}
}  // namespace

void validate_card_parameters(Algorithm a, Shape s) {
  check_parameter(a, Algorithm::riffle, Param::riffles, s.riffles, 1, kMaxRiffles, "k riffles are one 2^k-shuffle");
  check_parameter(a, Algorithm::shelf, Param::shelves, s.shelves, 2, kMaxShelves, "the machine's shelves");
  check_parameter(a, Algorithm::shelf, Param::passes, s.passes, 1, kMaxPasses, "passes of the deck through it");
}

}  // namespace melange
