// The block's tuning policy (CUB's agent policies): where a block keeps its
// counters, shared memory or global, for a job's bins, in one place.
// Included by backend.cu alone: its names stay in that translation unit's
// anonymous namespace, as the kernels' names the scripts read expect.
#pragma once

#include <cstddef>
#include <cstdint>

#include "melange/deal.hpp"
#include "melange/job.hpp"
#include "melange/rank.hpp"
#include "tuning.cuh"

namespace melange::cuda {
namespace {

// Where the order counters live. lane_shared: [bin][lane], a column per
// lane of a warp shared by the block's warps, for the few bins of n <= 5 (120
// bins, 15 KB): each lane adds to its own bank with one shared atomic, where
// warp_shared first matches the warp's peers on the bin (a match, a popc, a
// leader's branch and its atomic, every trial).
enum class RankCounters : int { none, lane_shared, warp_shared, block_shared, global };

constexpr bool shared_ranks(RankCounters r) {
  return r == RankCounters::lane_shared || r == RankCounters::warp_shared || r == RankCounters::block_shared;
}

// Where `bins` order counters go: the first layout whose copies fit half the
// shared budget. A constant expression, so that a kernel compiled for one n
// knows its layout (FixedRanks) and layout_for gives the same at run time.
constexpr RankCounters rank_counters_for(std::uint64_t bins) {
  if (bins <= tuning::kLaneCounterBins && bins * 32 * 4 <= tuning::kSharedBudget / 2) return RankCounters::lane_shared;
  if (bins * tuning::kWarpsPerBlock * 4 <= tuning::kSharedBudget / 2) return RankCounters::warp_shared;
  if (bins * 4 <= tuning::kSharedBudget / 2) return RankCounters::block_shared;
  return RankCounters::global;
}

constexpr std::uint64_t rank_copies(RankCounters r) {
  return r == RankCounters::lane_shared ? 32 : r == RankCounters::warp_shared ? tuning::kWarpsPerBlock : 1;
}

struct Layout {
  RankCounters ranks = RankCounters::none;
  bool shared_positions = false;
  std::uint64_t bins = 0;
  std::size_t shared_bytes = 0;
  std::size_t position_offset = 0;  // in 32-bit words
  // Shared position counters sit at item * position_stride + position: an
  // odd stride spreads a warp's items over the 32 banks (n = 52 would use 8).
  int position_stride = 0;
  // Small n: a warp's threads that add to the same position cell add once,
  // through one leader (many of them do: n^2 cells for 32 threads).
  bool aggregate_positions = false;
};

Layout layout_for(const Job& job) {
  const Shape s = shape_of(job);
  Layout l;
  std::uint64_t used = 0;
  if (job.tallies.has(TallyKind::ranks)) {
    l.bins = s.whole() ? factorial(s.n) : deal_count(s.n, s.k);
    l.ranks = rank_counters_for(l.bins);
    if (shared_ranks(l.ranks)) used = l.bins * rank_copies(l.ranks);
  }
  l.position_offset = used;
  l.position_stride = s.k | 1;
  l.aggregate_positions = job.n <= tuning::kRegisterItems;
  const std::uint64_t shared_cells = static_cast<std::uint64_t>(job.n) * l.position_stride;
  if (job.tallies.has(TallyKind::positions) && (used + shared_cells) * 4 <= tuning::kSharedBudget) {
    l.shared_positions = true;
    used += shared_cells;
  }
  l.shared_bytes = used * 4;
  return l;
}

}  // namespace
}  // namespace melange::cuda
