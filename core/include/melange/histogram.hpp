// Mergeable 64-bit tallies of shuffle outcomes.
#pragma once

#include <cstdint>
#include <vector>

namespace melange {

// Counts per Lehmer rank: n! bins.
class RankHistogram {
 public:
  RankHistogram() = default;
  explicit RankHistogram(int n);

  int n() const { return n_; }
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
  std::vector<std::uint64_t> counts_;
};

// counts[item * n + position]: how often `item` landed at `position`.
class PositionMatrix {
 public:
  PositionMatrix() = default;
  explicit PositionMatrix(int n);

  int n() const { return n_; }
  bool empty() const { return counts_.empty(); }
  std::uint64_t at(int item, int position) const {
    return counts_[static_cast<std::size_t>(item) * n_ + position];
  }
  // p[i] = item at position i.
  template <class Item>
  void add_permutation(const Item* p) {
    for (int i = 0; i < n_; ++i) ++counts_[static_cast<std::size_t>(p[i]) * n_ + i];
  }
  void merge(const PositionMatrix& other);
  std::uint64_t trials() const;  // row sums are all equal to the trial count

  const std::vector<std::uint64_t>& counts() const { return counts_; }
  std::vector<std::uint64_t>& counts() { return counts_; }
  friend bool operator==(const PositionMatrix&, const PositionMatrix&) = default;

 private:
  int n_ = 0;
  std::vector<std::uint64_t> counts_;
};

}  // namespace melange
