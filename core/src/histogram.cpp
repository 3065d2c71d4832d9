#include "melange/histogram.hpp"

#include <numeric>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/rank.hpp"

namespace melange {

RankHistogram::RankHistogram(int n, int k)
    : n_(n), k_(k > 0 ? k : n), counts_(k_ == n ? factorial(n) : deal_count(n, k_), 0) {}

void RankHistogram::merge(const RankHistogram& other) {
  if (other.n_ != n_ || other.k_ != k_ || other.counts_.size() != counts_.size())
    throw Error("cannot merge rank histograms of different sizes");
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
}

std::uint64_t RankHistogram::total() const {
  return std::accumulate(counts_.begin(), counts_.end(), std::uint64_t{0});
}

PositionMatrix::PositionMatrix(int n, int k)
    : n_(n), k_(k > 0 ? k : n), counts_(static_cast<std::size_t>(n) * k_, 0) {}

void PositionMatrix::merge(const PositionMatrix& other) {
  if (other.n_ != n_ || other.k_ != k_) throw Error("cannot merge position matrices of different sizes");
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
}

std::uint64_t PositionMatrix::trials() const {
  std::uint64_t column0 = 0;
  for (int item = 0; item < n_; ++item) column0 += at(item, 0);
  return column0;
}

}  // namespace melange
