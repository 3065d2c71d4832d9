// The block level: a thread's counts (rank, position, any other kind) into
// the block's shared counters, aggregated within each warp, or global
// atomics where the bins do not fit (policy.cuh).
// Included by backend.cu alone: its names stay in that translation unit's
// anonymous namespace, as the kernels' names the scripts read expect.
#pragma once

#include <cstdint>

#include "melange/tallies.hpp"
#include "policy.cuh"

namespace melange::cuda {
namespace {

struct Outputs {
  std::uint32_t* partials;  // [bin * grid + block], shared-counter modes
  // By TallyKind, the kinds a GPU counts (tallies.hpp: kDeviceTallyKinds):
  // each kind's bins (the ranks' in global mode; the positions' [item * k +
  // slot]), null for a kind the job does not tally.
  unsigned long long* counts[kDeviceTallyKinds];
  std::uint64_t bins[kDeviceTallyKinds];
  unsigned long long* usage;  // [0] stream words, [1] draws and coins
};

// The order counters' layout as a kernel knows it: read from the Layout at
// run time, or fixed at compile time (a kernel per layout), which takes the
// switch out of every trial's rank.
struct RanksOfLayout {
  __device__ static RankCounters of(const Layout& l) { return l.ranks; }
};
template <RankCounters R>
struct FixedRanks {
  static constexpr RankCounters kRanks = R;
  __device__ static constexpr RankCounters of(const Layout&) { return R; }
};

// Reports of one thread, counted in the block's shared memory. Ranks: where
// its order counters are (RanksOfLayout or FixedRanks).
template <class Ranks>
struct BlockSink {
  const Layout& layout;
  std::uint32_t* shared;
  const Outputs& out;
  int k;  // columns of the position matrix: n, or a deal's k slots
  std::uint64_t words_total = 0, draws_total = 0;

  __device__ void rank(std::uint64_t r) {
    switch (Ranks::of(layout)) {
      case RankCounters::lane_shared:
        atomicAdd(&shared[r * 32 + (threadIdx.x & 31)], 1u);
        break;
      case RankCounters::warp_shared:
      case RankCounters::block_shared: {
        // Threads of a warp that share a bin add once, through one leader.
        std::uint32_t* bins = shared;
        if (Ranks::of(layout) == RankCounters::warp_shared) bins += (threadIdx.x / 32) * layout.bins;
        const unsigned peers = __match_any_sync(__activemask(), static_cast<unsigned>(r));
        if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1))
          atomicAdd(&bins[r], static_cast<unsigned>(__popc(peers)));
        break;
      }
      case RankCounters::global: atomicAdd(&out.counts[static_cast<int>(TallyKind::ranks)][r], 1ull); break;
      case RankCounters::none: break;
    }
  }
  __device__ void position(int item, int p) {
    if (!layout.shared_positions) {
      atomicAdd(&out.counts[static_cast<int>(TallyKind::positions)][item * k + p], 1ull);
      return;
    }
    const int cell = layout.position_offset + item * layout.position_stride + p;
    if (!layout.aggregate_positions) {
      atomicAdd(&shared[cell], 1u);
      return;
    }
    // Peers are matched on the cell itself, so threads of the warp that are
    // at different positions p never merge.
    const unsigned peers = __match_any_sync(__activemask(), static_cast<unsigned>(cell));
    if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1))
      atomicAdd(&shared[cell], static_cast<unsigned>(__popc(peers)));
  }
  // The other kinds, in global memory. A few bins that most threads share
  // (the ten poker categories) take one atomic a bin a warp; many bins (the
  // 2,598,960 hands of poker) spread the atomics by themselves.
  __device__ void add(TallyKind kind, std::uint64_t bin) {
    const int i = static_cast<int>(kind);
    if (out.bins[i] > tuning::kWarpAggregatedBins) {
      atomicAdd(&out.counts[i][bin], 1ull);
      return;
    }
    const unsigned peers = __match_any_sync(__activemask(), static_cast<unsigned>(bin));
    if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1))
      atomicAdd(&out.counts[i][bin], static_cast<unsigned long long>(__popc(peers)));
  }
  __device__ void usage(std::uint64_t words, std::uint64_t draws) {
    words_total += words;
    draws_total += draws;
  }
};

}  // namespace
}  // namespace melange::cuda
