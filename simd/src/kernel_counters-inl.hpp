// The lane-private counters of the packed and wide paths, flushed into the
// 64-bit tally. Part of kernel.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_inline.hpp"
#include "melange/job.hpp"
#include "melange/rank.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

template <class Arch>
struct LaneCounters {
  using L = Lanes<Arch>;
  using u32 = typename L::u32;
  static constexpr int kLanes = static_cast<int>(u32::size);

  int n;
  std::uint64_t bins;
  std::vector<std::uint32_t> ranks;  // [lane][bin]
  std::vector<u32> positions;        // [item][position], one count per lane
  std::uint64_t batches = 0;

  LaneCounters(const Plan& p, bool want_ranks, bool want_positions)
      : n(p.job.n), bins(want_ranks ? factorial(p.job.n) : 0), ranks(bins * kLanes, 0),
        positions(want_positions ? static_cast<std::size_t>(p.job.n) * p.job.n : 0, u32(0u)) {}

  // Counts each lane's rank, except lanes whose kept[l] is 0 (kept null: all).
  MELANGE_LANE_INLINE void add_ranks(const u32& rank, const std::uint32_t* kept) {
    alignas(64) std::uint32_t r[kLanes];
    rank.store_aligned(r);
    for (int l = 0; l < kLanes; ++l)
      if (!kept || kept[l]) ++ranks[l * bins + r[l]];
  }

  // Counts each lane's packed permutation in the lanes where `keep` is all ones.
  template <int N>
  MELANGE_LANE_INLINE void add_positions(const u32& perm, const u32& keep) {
    for (int pos = 0; pos < N; ++pos) {
      const u32 item = (perm >> (4 * pos)) & u32(15u);
      for (int v = 0; v < N; ++v) {
        u32& cell = positions[static_cast<std::size_t>(v) * N + pos];
        cell = cell - (L::equal(item, u32(static_cast<std::uint32_t>(v))) & keep);
      }
    }
  }

  void flush(Tally& tally) {
    if (bins)
      for (std::uint64_t b = 0; b < bins; ++b) {
        std::uint64_t sum = 0;
        for (int l = 0; l < kLanes; ++l) sum += ranks[l * bins + b];
        if (sum) tally[TallyKind::ranks].add(b, sum);
      }
    std::fill(ranks.begin(), ranks.end(), 0u);
    for (std::size_t c = 0; c < positions.size(); ++c) {
      alignas(64) std::uint32_t lane[kLanes];
      positions[c].store_aligned(lane);
      for (int l = 0; l < kLanes; ++l) tally[TallyKind::positions].counts()[c] += lane[l];
      positions[c] = u32(0u);
    }
    batches = 0;
  }
};

// Position counts of the wide path in 32 bits, laid out as the 64-bit
// matrix ([item][position]) so that a flush is one sequential pass.
struct WideCounters {
  int n;
  std::vector<std::uint32_t> counts;
  std::uint64_t batches = 0;
  WideCounters(int n_, bool want) : n(n_), counts(want ? static_cast<std::size_t>(n_) * n_ : 0, 0) {}
  void add(const std::uint16_t* a) {
    std::uint32_t* cell = counts.data();
#pragma GCC unroll 4
    for (int pos = 0; pos < n; ++pos) ++cell[static_cast<std::size_t>(a[pos]) * n + pos];
  }
  void flush(Tally& tally) {
    std::uint64_t* to = tally[TallyKind::positions].counts().data();
    for (std::size_t c = 0; c < counts.size(); ++c) to[c] += counts[c];
    std::fill(counts.begin(), counts.end(), 0u);
    batches = 0;
  }
};


}  // namespace melange::simd::internal
