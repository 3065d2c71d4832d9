// The one inlining rule of code written for lanes (the SIMD kernel and the
// card shuffles' lane bodies beside their definitions): the per-batch
// pieces must inline into the trial loop, because a call boundary sends
// the vectors through memory.
#pragma once

#define MELANGE_LANE_INLINE [[gnu::always_inline]] inline
#define MELANGE_LANE_LAMBDA __attribute__((always_inline))
