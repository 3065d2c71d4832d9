// The one inlining rule of the SIMD kernel's pieces: the per-batch pieces
// must inline into the trial loop, because a call boundary sends the vectors
// through memory.
#pragma once

#define MELANGE_LANE_INLINE [[gnu::always_inline]] inline
#define MELANGE_LANE_LAMBDA __attribute__((always_inline))

namespace melange::simd::internal {
// The few lane operations an architecture adds (lanes_<arch>.hpp), which
// every piece of the kernel is written against.
template <class Arch>
struct Lanes;
}  // namespace melange::simd::internal
