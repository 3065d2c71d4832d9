// Mergeable 64-bit counts of one tally kind (tallies.hpp).
#pragma once

#include <cstdint>
#include <vector>

namespace melange {

// The counts of one tally kind over a shape of n items, k of them dealt
// (k = n: whole permutations): a histogram's bins, or an item x slot
// matrix's cells, counts[item * k + slot].
class TallyCounts {
 public:
  TallyCounts() = default;
  TallyCounts(int n, int k, std::uint64_t bins) : n_(n), k_(k > 0 ? k : n), counts_(bins, 0) {}

  int n() const { return n_; }
  int k() const { return k_; }  // items dealt; n for whole permutations
  bool whole() const { return k_ == n_; }
  std::uint64_t bins() const { return counts_.size(); }
  bool empty() const { return counts_.empty(); }
  void add(std::uint64_t bin, std::uint64_t count = 1) { counts_[bin] += count; }
  // Bin by bin; Error when the shapes differ.
  void merge(const TallyCounts& other);
  std::uint64_t total() const;

  // The matrix's cells: how often `item` landed at `slot`.
  std::uint64_t at(int item, int slot) const { return counts_[static_cast<std::size_t>(item) * k_ + slot]; }
  // p[i] = item at position (slot) i, for i < k.
  template <class Item>
  void add_permutation(const Item* p) {
    for (int i = 0; i < k_; ++i) ++counts_[static_cast<std::size_t>(p[i]) * k_ + i];
  }
  std::uint64_t trials() const;  // a matrix's: its first slot's sum, which every slot's equals

  const std::vector<std::uint64_t>& counts() const { return counts_; }
  std::vector<std::uint64_t>& counts() { return counts_; }
  friend bool operator==(const TallyCounts&, const TallyCounts&) = default;

 private:
  int n_ = 0;
  int k_ = 0;
  std::vector<std::uint64_t> counts_;
};

// Counts per Lehmer rank: n! bins; for deals of k < n items, per deal rank
// (contract §3): n!/(n-k)! bins.
using RankHistogram = TallyCounts;
RankHistogram rank_histogram(int n, int k = 0);
// The item x position matrix: n x n; for deals, item x slot: n x k.
using PositionMatrix = TallyCounts;
PositionMatrix position_matrix(int n, int k = 0);

}  // namespace melange
