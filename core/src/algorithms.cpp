#include "melange/algorithms.hpp"

namespace melange {

std::string_view algorithm_name(Algorithm a) {
  switch (a) {
    case Algorithm::fisher_yates: return "fisher-yates";
    case Algorithm::naive_swap: return "naive-swap";
    case Algorithm::sattolo: return "sattolo";
    case Algorithm::sort_binary_insertion: return "sort-binary-insertion";
    case Algorithm::sort_v8_timsort: return "sort-v8-timsort";
  }
  return "?";
}

std::optional<Algorithm> parse_algorithm(std::string_view name) {
  for (Algorithm a : kAllAlgorithms)
    if (algorithm_name(a) == name) return a;
  return std::nullopt;
}

std::uint64_t max_draw_range(Algorithm a, int n) {
  switch (a) {
    case Algorithm::fisher_yates: return n > 1 ? static_cast<std::uint64_t>(n) : 0;
    case Algorithm::naive_swap: return static_cast<std::uint64_t>(n);
    case Algorithm::sattolo: return n > 1 ? static_cast<std::uint64_t>(n - 1) : 0;
    case Algorithm::sort_binary_insertion:
    case Algorithm::sort_v8_timsort: return 0;
  }
  return 0;
}

int max_items(Algorithm a) {
  return a == Algorithm::sort_v8_timsort ? 63 : kMaxSampleItems;
}

bool uses_coins(Algorithm a) {
  return a == Algorithm::sort_binary_insertion || a == Algorithm::sort_v8_timsort;
}

}  // namespace melange
