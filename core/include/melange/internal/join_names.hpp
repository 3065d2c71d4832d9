// Lists of names for messages and help texts ("lemire, modulo, ...").
#pragma once

#include <string>
#include <string_view>

namespace melange::internal {

// name(item) for each item, in order, joined by `sep`.
template <class Range, class Name>
std::string join_names(const Range& items, Name&& name, std::string_view sep) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += sep;
    out += name(item);
  }
  return out;
}

}  // namespace melange::internal
