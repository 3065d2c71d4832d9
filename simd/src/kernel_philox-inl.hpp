// Philox4x32-10 across the lanes of Lanes<Arch>: a stream per lane, the
// core's round (philox.hpp) on vectors. Part of kernel.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_inline.hpp"
#include "melange/philox.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

template <class Arch>
struct LanePhilox {
  using L = Lanes<Arch>;
  using u32 = typename L::u32;
  static constexpr int kLanes = static_cast<int>(u32::size);

  // Philox4x32-10 on G groups of kLanes counters at once; c[g] holds
  // (ctr0..ctr3) per lane.
  template <int G = 1>
  MELANGE_LANE_INLINE static void philox(const Plan& p, u32 (*c)[4]) {
    u32 even[G][4], odd[G][4];
    for (int g = 0; g < G; ++g)
      for (int w = 0; w < 4; ++w) {
        even[g][w] = c[g][w];
        odd[g][w] = L::high_halves(c[g][w]);
      }
    philox_slots<G>(p, even, odd);
    for (int g = 0; g < G; ++g)
      for (int w = 0; w < 4; ++w) c[g][w] = L::interleave(even[g][w], odd[g][w]);
  }

  // The rounds, on the even and the odd lanes separately: one lane per
  // 64-bit slot, its word in the slot's low half (the slot view), where a
  // widening multiply gives hi and lo without blends; the high halves carry
  // leftovers that no later step reads. The 2G chains of a round are
  // independent, which hides the multiplies' latency.
  template <int G = 1>
  MELANGE_LANE_INLINE static void philox_slots(const Plan& p, u32 (*even)[4], u32 (*odd)[4]) {
    // Unrolled: a rolled loop must hand each round's words back to the
    // registers it started from, a register move a word a round.
#pragma GCC unroll 10
    for (int r = 0; r < philox::kRounds; ++r) round_slots<G>(p, r, even, odd);
  }

  // Round r of philox_slots: the core's round (philox.hpp), with a multiply
  // that leaves the full 64-bit product in each slot (lo is the product, hi
  // its high half). A round on its own serves callers that lay other work
  // between the rounds (SteppedDigits, kernel_stepped-inl.hpp).
  template <int G = 1>
  MELANGE_LANE_INLINE static void round_slots(const Plan& p, int r, u32 (*even)[4], u32 (*odd)[4]) {
    const u32 m0(philox::kM0), m1(philox::kM1);
    auto mul = [](const u32& m, const u32& a, u32& hi, u32& lo) MELANGE_LANE_LAMBDA {
      lo = L::even_products(a, m);
      hi = L::high_halves(lo);
    };
    const u32 k0(p.round_keys[r].v[0]), k1(p.round_keys[r].v[1]);
    for (int g = 0; g < G; ++g) {
      philox::round_words(even[g], k0, k1, m0, m1, mul);
      philox::round_words(odd[g], k0, k1, m0, m1, mul);
    }
  }

  // Stream ids first, first+1, ... of the batch's lanes, split into counter
  // words 2 and 3, computed in registers (a scalar loop stored to memory and
  // reloaded as a vector stalls on store forwarding).
  MELANGE_LANE_INLINE static void lane_streams(std::uint64_t first, u32& lo, u32& hi) {
    alignas(64) static constexpr std::uint32_t kIota[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                            8, 9, 10, 11, 12, 13, 14, 15};
    static_assert(kLanes <= 16);
    const u32 base_lo(static_cast<std::uint32_t>(first));
    lo = base_lo + u32::load_aligned(kIota);
    hi = u32(static_cast<std::uint32_t>(first >> 32)) - L::less(lo, base_lo);  // carry
  }

  // Calls f(k, word) for the first `count` words of every lane's stream, a
  // Philox block at a time.
  template <class F>
  MELANGE_LANE_INLINE static void for_each_word(const Plan& p, std::uint64_t first, std::size_t count, F&& f) {
    for_each_word_slots(p, first, count, [&](std::size_t k, const u32& even, const u32& odd) MELANGE_LANE_LAMBDA {
      f(k, L::interleave(even, odd));
    });
  }

  // The same in the slot view (philox_slots): f(k, even, odd) gets the
  // word's even lanes and its odd lanes, each in the low halves of the
  // 64-bit slots, for a caller whose next step is a widening multiply. The
  // block's four words are named one by one so that they stay in registers.
  template <class F>
  MELANGE_LANE_INLINE static void for_each_word_slots(const Plan& p, std::uint64_t first, std::size_t count, F&& f) {
    const Streams streams(first);
    for (std::size_t k = 0, block = 0; k < count; k += 4, ++block) {
      u32 even[1][4], odd[1][4];
      streams.counters(block, even[0], odd[0]);
      philox_slots(p, even, odd);
      const std::size_t left = count - k;
      f(k, even[0][0], odd[0][0]);
      if (left > 1) f(k + 1, even[0][1], odd[0][1]);
      if (left > 2) f(k + 2, even[0][2], odd[0][2]);
      if (left > 3) f(k + 3, even[0][3], odd[0][3]);
    }
  }

  // The lanes' stream ids (lane_streams) in the slot view, and each
  // block's counters from them.
  struct Streams {
    u32 lo, hi, odd_lo, odd_hi;
    MELANGE_LANE_INLINE explicit Streams(std::uint64_t first) {
      lane_streams(first, lo, hi);
      odd_lo = L::high_halves(lo);
      odd_hi = L::high_halves(hi);
    }
    MELANGE_LANE_INLINE void counters(std::size_t block, u32 (&even)[4], u32 (&odd)[4]) const {
      const u32 b0(static_cast<std::uint32_t>(block)), b1(static_cast<std::uint32_t>(std::uint64_t{block} >> 32));
      even[0] = odd[0] = b0;
      even[1] = odd[1] = b1;
      even[2] = lo;
      even[3] = hi;
      odd[2] = odd_lo;
      odd[3] = odd_hi;
    }
  };

  // The first word of every lane's stream in G groups of lanes at once
  // (streams first, first + 1, ...): independent chains hide the
  // multiplies' latency.
  template <int G>
  MELANGE_LANE_INLINE static void first_words(const Plan& p, std::uint64_t first, u32 (&words)[G]) {
    u32 c[G][4];
    for (int g = 0; g < G; ++g) {
      c[g][0] = c[g][1] = u32(0u);
      lane_streams(first + static_cast<std::uint64_t>(g) * kLanes, c[g][2], c[g][3]);
    }
    philox<G>(p, c);
    for (int g = 0; g < G; ++g) words[g] = c[g][0];
  }
};

}  // namespace melange::simd::internal
