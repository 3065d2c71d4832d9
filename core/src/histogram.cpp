#include "melange/histogram.hpp"

#include <numeric>

#include "melange/error.hpp"
#include "melange/tallies.hpp"

namespace melange {

void TallyCounts::merge(const TallyCounts& other) {
  if (other.n_ != n_ || other.k_ != k_ || other.counts_.size() != counts_.size())
    throw Error("cannot merge tallies of different sizes");
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
}

std::uint64_t TallyCounts::total() const {
  return std::accumulate(counts_.begin(), counts_.end(), std::uint64_t{0});
}

std::uint64_t TallyCounts::trials() const {
  std::uint64_t column0 = 0;
  for (int item = 0; item < n_; ++item) column0 += at(item, 0);
  return column0;
}

RankHistogram rank_histogram(int n, int k) {
  const Shape s{n, k > 0 ? k : n};
  return RankHistogram(s.n, s.k, row_of(TallyKind::ranks).bins(s));
}

PositionMatrix position_matrix(int n, int k) {
  const Shape s{n, k > 0 ? k : n};
  return PositionMatrix(s.n, s.k, row_of(TallyKind::positions).bins(s));
}

}  // namespace melange
