// Mergeable 64-bit tallies of shuffle outcomes.
#pragma once

#include <cstdint>
#include <vector>

namespace melange {

// Counts per Lehmer rank: n! bins; for deals of k < n items, per deal rank
// (DESIGN.md section 3): n!/(n-k)! bins.
class RankHistogram {
 public:
  RankHistogram() = default;
  explicit RankHistogram(int n, int k = 0);

  int n() const { return n_; }
  int k() const { return k_; }  // items dealt; n for whole permutations
  bool whole() const { return k_ == n_; }
  std::uint64_t bins() const { return counts_.size(); }
  bool empty() const { return counts_.empty(); }
  void add(std::uint64_t rank, std::uint64_t count = 1) { counts_[rank] += count; }
  void merge(const RankHistogram& other);
  std::uint64_t total() const;

  const std::vector<std::uint64_t>& counts() const { return counts_; }
  std::vector<std::uint64_t>& counts() { return counts_; }
  friend bool operator==(const RankHistogram&, const RankHistogram&) = default;

 private:
  int n_ = 0;
  int k_ = 0;
  std::vector<std::uint64_t> counts_;
};

// counts[item * k + position]: how often `item` landed at `position` (k = n),
// or was dealt in slot `position` (a deal of k < n items: n x k).
class PositionMatrix {
 public:
  PositionMatrix() = default;
  explicit PositionMatrix(int n, int k = 0);

  int n() const { return n_; }
  int k() const { return k_; }  // columns: positions, or a deal's slots
  bool empty() const { return counts_.empty(); }
  std::uint64_t at(int item, int position) const {
    return counts_[static_cast<std::size_t>(item) * k_ + position];
  }
  // p[i] = item at position (slot) i, for i < k.
  template <class Item>
  void add_permutation(const Item* p) {
    for (int i = 0; i < k_; ++i) ++counts_[static_cast<std::size_t>(p[i]) * k_ + i];
  }
  void merge(const PositionMatrix& other);
  std::uint64_t trials() const;  // column sums are all equal to the trial count

  const std::vector<std::uint64_t>& counts() const { return counts_; }
  std::vector<std::uint64_t>& counts() { return counts_; }
  friend bool operator==(const PositionMatrix&, const PositionMatrix&) = default;

 private:
  int n_ = 0;
  int k_ = 0;
  std::vector<std::uint64_t> counts_;
};

}  // namespace melange
