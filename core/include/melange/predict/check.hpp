// What an audit's predictability pass searched and found (the engine's
// melange/predictability.hpp runs it; AuditReport carries it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace melange::predict {

struct PredictabilityCheck {
  // A range of one family's seeds, searched whole; `what` names it in words
  // ("the day before the records' time, in seconds").
  struct Window {
    std::string family;
    std::uint64_t first = 0, last = 0;
    std::string what;
  };
  int records = 0;                  // the first records searched
  std::vector<Window> searched;     // none of their seeds deals the records
  std::vector<std::string> left;    // windows planned but not searched, and why
  std::string skipped;              // why nothing was searched, else empty
  std::optional<std::string> predictable;  // a seed that deals them, in words
};

}  // namespace melange::predict
