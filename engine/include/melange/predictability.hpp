// The audit's predictability pass: records that look fair may still come
// from a library dealer with a 32-bit seed or a clock (docs/auditing.md,
// "Who could predict the next deal"). The first records read are searched
// as `melange predict` would, over a plan of windows: by default a fixed
// one (for each family, the day before the records' time in seconds, and
// ASF's day of milliseconds for 52-card records), then, given more time,
// the day in milliseconds and each family's whole space while it lasts.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "melange/audit.hpp"
#include "melange/predict/check.hpp"

namespace melange {

struct PredictabilityPlan {
  // Beyond the fixed plan: the windows searched while these seconds last
  // (each only where its time, from the rate just measured, fits).
  double extra_seconds = 0;
  std::optional<std::int64_t> records_time;  // Unix seconds: the records file's time
  int threads = 1;
  std::function<bool()> stop;  // may be empty
};

// `head`: the first records, each the first cards of a deck of n.
predict::PredictabilityCheck check_predictability(const std::vector<std::vector<int>>& head, int n,
                                                  const PredictabilityPlan& plan);

// Puts the check on the report, with a note of what it ruled out (or why it
// did not search); a seed that deals the records makes the verdict FAIL.
void add_predictability(AuditReport& report, predict::PredictabilityCheck check);

}  // namespace melange
