// Tuning constants of the CUDA backend, in one place.
#pragma once

#include <cstdint>

#include "melange/packed_items.hpp"

namespace melange::cuda::tuning {

inline constexpr int kThreadsPerBlock = 256;
inline constexpr int kWarpsPerBlock = kThreadsPerBlock / 32;
// Up to this many items a thread's kernel is compiled for its n, items in
// registers (as many as one word packs); the sort one-liners there run
// through their decision tables.
inline constexpr int kRegisterItems = kPackedItems;
// The grid is as many resident blocks as fit (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
// Shared memory one block may use for its counters (bytes).
inline constexpr std::uint64_t kSharedBudget = 40 * 1024;
// Orders counted a column per lane ([bin][lane]) up to this many bins: n = 5's
// 120 orders, 15 KB a block.
inline constexpr std::uint64_t kLaneCounterBins = 120;
// A tally kind of at most this many bins (not ranks or positions, which have
// counters of their own) is counted once a bin a warp: its threads share bins.
inline constexpr std::uint64_t kWarpAggregatedBins = 64;
// Trials per launch: block counters are 32-bit, and a launch gives each block
// far fewer than 2^32 trials. Indices inside a launch stay below 2^32.
inline constexpr std::uint64_t kLaunchTrials = std::uint64_t{1} << 32;
// Trials per run_range call, the unit of progress reports.
inline constexpr std::uint64_t kRangeTrials = std::uint64_t{1} << 36;
// Permutations per sampling launch (bounded so the device buffer stays small).
inline constexpr std::uint64_t kSampleTrials = std::uint64_t{1} << 24;

}  // namespace melange::cuda::tuning
