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

// What independent records of a stream's position law give the lag-L
// relabeled records (whole permutations): cell (j, j') is the chance that
// the item at position j of one record is at j' of another, sum_i P_ij
// P_ij', each product estimated without bias from the records' counts
// (c_ij c_ij' - [j = j'] c_ij) / (m (m - 1)). Uniform records give 1/n;
// a stream of biased but independent records gives what its lag tests
// must be graded against, so that they see dependence, not the bias.
std::vector<double> independent_relabeled_law(const TallyCounts& positions, std::uint64_t records, int n);

// The relabeled matrix's chi-square against that law: Pearson's sum, its
// cells covarying as a permutation matrix's do, scaled by (n - 1)/n on
// (n - 1)^2 df as the uniform position test is (exactly that test where
// the law is uniform).
PositionTest independent_position_test(const TallyCounts& relabeled, const std::vector<double>& law, double alpha);

}  // namespace melange::internal
