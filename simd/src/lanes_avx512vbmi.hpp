// AVX-512 with VBMI's byte permutes: the lanes of AVX-512 (F, BW, DQ), plus
// a whole deck of up to 64 items held in one register per trial. xsimd 8.1
// has no VBMI architecture, so the tag below names these lanes and their
// batches stay AVX-512 BW's. Include only where the VBMI flags are on.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "lanes_avx512.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

// The architecture tag of the VBMI kernels.
struct avx512vbmi {};

template <>
struct Lanes<avx512vbmi> : Lanes<xsimd::avx512bw> {
  // Decks of at most this many items fit a register, a byte an item.
  static constexpr int kDeckItems = 64;

  // The inverses of the sixteen lanes' permutations, as rows of 64 bytes
  // (out[lane * 64 + item] = the item's position), for schedules in which
  // every draw's position lies above every later draw's position and range
  // (Plan::inverse_by_assignment). The permutation is the draws' swaps in
  // turn, a = t_0 t_1 ... t_{m-1} as position swaps; its inverse is the same
  // swaps in reverse order, and by then each draw's position i still holds
  // i, so swap(b[i], b[j]) is two assignments: b[i] = b[j], one masked byte
  // permute with a constant mask, and b[j] = i, a compare and a masked move.
  // The sixteen decks stay in registers across the draws, sixteen
  // independent chains: where the wide path loads and stores two items a
  // swap a lane, this is three vector instructions, and no item goes
  // through memory until the last.
  // digits: [draw][lane], each lane's j in the low byte of its 32 bits.
  static void inverse_decks(const DrawPlan* draws, std::size_t count, const std::uint32_t* digits,
                            std::uint8_t* out) {
    constexpr int kLanes = 16;
    const __m512i identity = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38,
        37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12,
        11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    __m512i deck[kLanes];
    for (int l = 0; l < kLanes; ++l) deck[l] = identity;
    for (std::size_t k = count; k-- > 0;) {
      const std::uint32_t i = draws[k].i;
      const __m512i vi = _mm512_set1_epi8(static_cast<char>(i));
      const __mmask64 at_i = _cvtu64_mask64(std::uint64_t{1} << i);
      const auto* j = reinterpret_cast<const std::uint8_t*>(digits + k * kLanes);
#pragma GCC unroll 16
      for (int l = 0; l < kLanes; ++l) {
        const __m512i vj = _mm512_set1_epi8(static_cast<char>(j[4 * l]));
        const __mmask64 at_j = _mm512_cmpeq_epi8_mask(identity, vj);
        deck[l] = _mm512_mask_mov_epi8(_mm512_mask_permutexvar_epi8(deck[l], at_i, vj, deck[l]), at_j, vi);
      }
    }
    for (int l = 0; l < kLanes; ++l) _mm512_storeu_si512(out + 64 * l, deck[l]);
  }
};

}  // namespace melange::simd::internal
