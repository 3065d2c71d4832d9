#include "melange/algorithms.hpp"

#include <algorithm>
#include <string>

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

}  // namespace melange
