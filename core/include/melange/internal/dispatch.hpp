// From a run-time value to compile-time code, generated from the list that
// defines the values (kAllAlgorithms, kAllMethods): a value added to the list
// is dispatched with no further edit, and a value missing from it throws
// rather than running some other case's code.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <type_traits>
#include <utility>

#include "melange/error.hpp"

namespace melange::internal {

// Calls f(std::integral_constant<E, V>{}) for the entry V of `List` equal to
// `value`, and returns what it returns.
template <const auto& List, std::size_t I = 0, class E, class F>
inline decltype(auto) dispatch_over(E value, F&& f) {
  constexpr E candidate = List[I];
  if constexpr (I + 1 < std::size(List)) {
    if (value != candidate) return dispatch_over<List, I + 1>(value, std::forward<F>(f));
  } else if (value != candidate) {
    std::string what = "internal: value ";
    what += std::to_string(static_cast<long long>(value));
    what += " has no row in the list it is dispatched over";
    throw Error(what);
  }
  return f(std::integral_constant<E, candidate>{});
}

// True when `List` holds every value 0 .. size-1 of its enum, in order: the
// form a list that an enum is checked against must have.
template <const auto& List>
constexpr bool lists_every_value_in_order() {
  for (std::size_t i = 0; i < std::size(List); ++i)
    if (static_cast<std::size_t>(List[i]) != i) return false;
  return true;
}

}  // namespace melange::internal
