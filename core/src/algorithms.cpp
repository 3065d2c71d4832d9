#include "melange/algorithms.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "melange/error.hpp"
#include "melange/internal/join_names.hpp"

namespace melange {

std::string_view algorithm_name(Algorithm a) {
  // A value outside the enum (read from a file, cast by a caller) has no row.
  const auto i = static_cast<std::size_t>(a);
  return i < std::size(kAlgorithmRows) ? kAlgorithmRows[i].name : "?";
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

namespace {

// Every card parameter some algorithm takes, once each.
constexpr std::array<const CardParameter*, 3> kCardParameters{&kRiffles, &kShelves, &kPasses};

// The algorithm whose row takes `p`, for a message that says where it belongs.
Algorithm taker_of(Param p) {
  for (const AlgorithmRow& row : kAlgorithmRows)
    for (const CardParameter& c : row.cards)
      if (c.param == p) return row.algorithm;
  return Algorithm::fisher_yates;  // not reached: kCardParameters lists taken ones
}

}  // namespace

void validate_card_parameters(Algorithm a, Shape s) {
  for (const CardParameter* parameter : kCardParameters) {
    std::string token{"{"};
    token.append(param_name(parameter->param)).append("}");
    const int value = s.*(parameter->field);
    const CardParameter* taken = nullptr;
    for (const CardParameter& c : row_of(a).cards)
      if (c.param == parameter->param) taken = &c;
    if (!taken) {
      if (value != 0)
        throw UsageError(parameter->param, token + " is for the " +
                                               std::string(algorithm_name(taker_of(parameter->param))) +
                                               " algorithm; " + std::string(algorithm_name(a)) + " takes none");
      continue;
    }
    if (value < taken->low || value > taken->high)
      throw UsageError(parameter->param, std::string(algorithm_name(a)) + " needs " + token + " from " +
                                             std::to_string(taken->low) + " to " + std::to_string(taken->high) +
                                             " (" + std::string(taken->why) + "), got " + std::to_string(value));
  }
}

}  // namespace melange
