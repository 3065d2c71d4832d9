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

}  // namespace

std::span<const CardParameter* const> card_parameters() {
  static const std::vector<const CardParameter*> parameters = [] {
    std::vector<const CardParameter*> out;
    for (const AlgorithmRow& row : kAlgorithmRows)
      for (const CardParameter& c : row.cards)
        if (c.param != Param::none &&
            std::none_of(out.begin(), out.end(), [&](const CardParameter* o) { return o->param == c.param; }))
          out.push_back(&c);
    return out;
  }();
  return parameters;
}

std::string takers_of(Param p) {
  std::string names;
  for (const AlgorithmRow& row : kAlgorithmRows)
    if (takes(row.algorithm, p)) (names += names.empty() ? "" : ", ") += row.name;
  return names;
}

void validate_card_parameters(Algorithm a, Shape s) {
  for (const CardParameter* parameter : card_parameters()) {
    std::string token{"{"};
    token.append(param_name(parameter->param)).append("}");
    const int value = s.*(parameter->field);
    const CardParameter* taken = nullptr;
    for (const CardParameter& c : row_of(a).cards)
      if (c.param == parameter->param) taken = &c;
    if (!taken) {
      if (value != 0)
        throw UsageError(parameter->param, token + " is for the " + takers_of(parameter->param) + " algorithm; " +
                                               std::string(algorithm_name(a)) + " takes none");
      continue;
    }
    if (value < taken->low || value > taken->high)
      throw UsageError(parameter->param, std::string(algorithm_name(a)) + " needs " + token + " from " +
                                             std::to_string(taken->low) + " to " + std::to_string(taken->high) +
                                             " (" + std::string(taken->why) + "), got " + std::to_string(value));
  }
}

}  // namespace melange
