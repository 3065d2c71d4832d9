// Tuning constants of the vector kernels, in one place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "melange/packed_items.hpp"  // kPackedItems: up to so many items a permutation lives in one lane

namespace melange::simd::internal {

// The most 32-bit lanes any architecture runs (AVX-512: 16); memory
// estimates count this many lane-private counters.
inline constexpr int kMaxLanes = 16;
// Lane-private 32-bit counters are flushed into the 64-bit tallies after this
// many batches, long before any of them can overflow.
inline constexpr std::uint64_t kFlushBatches = std::uint64_t{1} << 24;

// The wide path's position counts (WideCounters) stage whole groups' rows
// from this many items, this many groups at a time, and count them this
// many positions at a time.
inline constexpr int kWideStagedItems = 256;
inline constexpr std::uint64_t kWideStagedGroups = 32;
inline constexpr std::size_t kWideBlockRows = 16;

}  // namespace melange::simd::internal
