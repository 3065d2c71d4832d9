// The exact tests of the item x position (slot) matrix that run at any
// number of records, where the chi-square waits for 5 a cell (260 decks of
// 52): the max-cell test, and the records' fixed points. Part of
// analyze() (audit.cpp).
#pragma once

#include <optional>
#include <string_view>

#include "melange/audit.hpp"

namespace melange::internal {

// Each cell's count against Binomial(trials, its probability: 1/n, or the
// model's), both tails exactly; the smallest p over the n k cells times
// their number (Bonferroni). One cell far off (a card stuck on top 1% of
// the time) shows here long before the whole table's chi-square notices.
std::optional<TestResult> max_cell_test(const TallyCounts& positions, std::uint64_t trials, Shape s,
                                        const PositionLaw* law, std::string_view noun);

// The records' fixed points (item i at position, or in slot, i): k/n a
// record under uniform, their sum graded on both tails against Poisson of
// that mean, which a fair deck's count matches in its first n moments and
// a deal's lies inside. A Sattolo shuffle never has one: 64 decks say so at
// p 1e-28. Uniform reference only; n >= 8, where the Poisson tail holds.
std::optional<TestResult> fixed_point_test(const TallyCounts& positions, std::uint64_t trials, Shape s,
                                           std::string_view noun);

}  // namespace melange::internal
