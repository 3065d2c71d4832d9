#include "melange/histogram.hpp"

#include <numeric>

#include "melange/error.hpp"
#include "melange/rank.hpp"

namespace melange {

RankHistogram::RankHistogram(int n) : n_(n), counts_(factorial(n), 0) {}

void RankHistogram::merge(const RankHistogram& other) {
  if (other.n_ != n_ || other.counts_.size() != counts_.size())
    throw Error("cannot merge rank histograms of different sizes");
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
}

std::uint64_t RankHistogram::total() const {
  return std::accumulate(counts_.begin(), counts_.end(), std::uint64_t{0});
}

PositionMatrix::PositionMatrix(int n) : n_(n), counts_(static_cast<std::size_t>(n) * n, 0) {}

void PositionMatrix::merge(const PositionMatrix& other) {
  if (other.n_ != n_) throw Error("cannot merge position matrices of different sizes");
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
}

std::uint64_t PositionMatrix::trials() const {
  std::uint64_t row0 = 0;
  for (int p = 0; p < n_; ++p) row0 += at(0, p);
  return row0;
}

}  // namespace melange
