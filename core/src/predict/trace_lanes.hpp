// The cards a shuffle leaves at a few positions, for many seeds at once,
// where the draws, not the seeding, are the cost: an LCG, or MT19937 whose
// first outputs mt_lanes.hpp has made in lanes. A lane makes the shuffle's draws, then follows
// each position back through the swaps (the card at p after p was swapped
// with q was at q before it) to the card the fresh deck held there; only a
// seed whose cards there are the ones seen is dealt whole. A downward
// Fisher-Yates settles its positions from the bottom, so the lowest traced
// position bounds the draws made: a whole deck needs two, not fifty-one;
// the others settle every position at their last swap.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "melange/predict/probe.hpp"

namespace melange::predict::internal {

inline constexpr int kTraceLanes = 64;
static_assert(kTraceLanes % 8 == 0, "lanes' flags are read 8 at once");
inline constexpr int kTraced = 2;  // positions followed: chance agreement 1 in n(n-1)

// The library's swaps, in the order it makes them.
enum class Swaps {
  downward,  // i = n-1 down to 1: swap i with a draw below i + 1
  asf,       // ctr = 0 .. 51: swap ctr with Random(51)
  upward,    // libstdc++'s std::shuffle: i = 1 .. n-1 swapped with a draw below i + 1
};

// What the lanes follow: the record's seen positions that settle first,
// their cards, and the swaps made until the last of them settles.
struct Traced {
  int count = 0;
  int position[kTraced] = {};
  std::uint32_t card[kTraced] = {};
  int steps = 0;
};

// x / d for x below 2^31 as (x * magic) >> shift (Granlund and Montgomery's
// round-up method: exact for every 31-bit x), so that lanes divide by a
// multiply.
struct Divisor {
  std::uint32_t d;
  std::uint32_t magic;  // below 2^32 for every d
  unsigned shift;
};
Divisor divisor_of(std::uint32_t d);

// One call libstdc++'s std::shuffle makes of its generator where the
// generator's range holds two draws (n^2 at most): a draw below `range`,
// split into two swaps' draws (x / b1, x % b1) or, the first alone where n
// is even, one. Its generator's word becomes the draw by Lemire's
// multiply for a 32-bit generator (rejected: low word below `threshold`),
// else by downscaling (rejected at `past` and above, then / scaling).
struct UpwardCall {
  std::uint32_t range;
  bool pair;
  Divisor b1;
  std::uint32_t threshold;
  Divisor scaling;
  std::uint32_t past;
};

// Made once a scan.
struct TracePlan {
  int n = 0;
  Traced traced;
  std::vector<Divisor> divisors;   // d = 1 .. n, for nextInt(d)
  std::vector<UpwardCall> calls;   // Swaps::upward: every call, or none where n is too large to pair draws
};
// `gen_range`: an upward shuffle's generator's max - min.
TracePlan trace_plan(const Probe& probe, Swaps swaps, std::uint64_t gen_range = 0);

// deal[lane] = 1 where the lane's seed may show the traced cards: it shows
// them, or a draw the lanes could not make as the library does (a
// rejection, rare) leaves it to the dealer. `scratch`: traced.steps *
// kTraceLanes words.
using DealFlags = std::uint8_t[kTraceLanes];
// The families seeded cheaply: seed `base + lane`.
using TraceLanes = void (*)(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal);
void glibc_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal);
void delphi_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal);
void asf_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal);
void java_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal);
void minstd_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal);
// std::mt19937's: a lane's outputs at outputs[call * stride + lane], one a
// call (plan.calls.size() of them).
void mt19937_trace(const std::uint32_t* outputs, int stride, const TracePlan& plan, std::uint32_t* scratch,
                   DealFlags& deal);

}  // namespace melange::predict::internal
