// AVX-512 with VBMI's byte permutes: the lanes of AVX-512 (F, BW, DQ), plus
// a whole deck of up to 64 items held in one register per trial. xsimd 8.1
// has no VBMI architecture, so the tag below names these lanes and their
// batches stay AVX-512 BW's. Include only where the VBMI flags are on.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "deck_counters_avx512.hpp"
#include "lanes_avx512.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

// The architecture tag of the VBMI kernels.
struct avx512vbmi {};

template <>
struct Lanes<avx512vbmi> : Lanes<xsimd::avx512bw> {
  // Decks of at most this many items fit a register, a byte an item.
  static constexpr int kDeckItems = 64;

  // The counters the decks' positions go into.
  using DeckCounters = internal::DeckCounters;

  // The inverses of the sixteen lanes' permutations, as rows of 64 bytes
  // (out[lane * 64 + item] = the item's position). The permutation is the
  // draws' swaps in turn, a = t_0 t_1 ... t_{m-1} as position swaps; its
  // inverse is the same swaps in reverse order. A swap of b[i] and b[j] is
  // one byte permute: b[p] = b[p ^ (i ^ j)] at the two positions i and j,
  // a mask with their two bits, and at any others left as it was. The
  // sixteen decks stay in registers across the draws, sixteen independent
  // chains, where the wide path loads and stores two items a swap a lane.
  // digits: [draw][lane], each lane's j.
  // A mask register straight from memory, one uop: GCC splits
  // _load_mask64 into a load into a general register and a move from it.
  static __mmask64 load_mask(const __mmask64* at) {
    __mmask64 m;
    asm("kmovq %1, %0" : "=k"(m) : "m"(*at));
    return m;
  }

  // Not inlined: alone, the loop keeps the identity and the sixteen decks
  // in registers (inlined into the kernel, the identity went to memory and
  // each xor took an extra load).
  [[gnu::noinline]] static void inverse_decks(const DrawPlan* draws, std::size_t count, const std::uint32_t* digits,
                            std::uint8_t* out) {
    constexpr int kLanes = 16;
    const __m512i identity = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38,
        37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12,
        11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    // Each swap's two operands, made for all the draws before the first
    // swap, so that every load below reads a store long retired: i ^ j in
    // every byte of a word, which the xor takes as a broadcast from memory
    // with no shuffle, and the two positions' bits, which go straight from
    // memory into a mask register. A swap is then two vector instructions
    // a lane (the xor and the permute), where a compare of j against the
    // identity for the mask, j's broadcast and a masked move took five.
    alignas(64) std::uint32_t flips[kDeckItems * kLanes];
    alignas(64) __mmask64 bits[kDeckItems * kLanes];
    const __m512i low_byte_everywhere = _mm512_set4_epi32(0x0C0C0C0C, 0x08080808, 0x04040404, 0);
    const __m512i one = _mm512_set1_epi64(1);
    for (std::size_t k = 0; k < count; ++k) {
      const __m512i i = _mm512_set1_epi32(static_cast<int>(draws[k].i));
      const __m512i j = _mm512_load_si512(digits + k * kLanes);
      _mm512_store_si512(flips + k * kLanes, _mm512_shuffle_epi8(_mm512_xor_si512(i, j), low_byte_everywhere));
      const __m512i at_i = _mm512_sllv_epi64(one, _mm512_cvtepu32_epi64(_mm512_castsi512_si256(i)));
      for (int half = 0; half < 2; ++half) {
        const __m256i j_half = half ? _mm512_extracti64x4_epi64(j, 1) : _mm512_castsi512_si256(j);
        _mm512_store_si512(bits + k * kLanes + 8 * half,
                           _mm512_or_si512(at_i, _mm512_sllv_epi64(one, _mm512_cvtepu32_epi64(j_half))));
      }
    }
    __m512i deck[kLanes];
    for (int l = 0; l < kLanes; ++l) deck[l] = identity;
    for (std::size_t k = count; k-- > 0;) {
#pragma GCC unroll 16
      for (int l = 0; l < kLanes; ++l) {
        const __m512i from = _mm512_xor_si512(identity, _mm512_set1_epi32(static_cast<int>(flips[k * kLanes + l])));
        deck[l] = _mm512_mask_permutexvar_epi8(deck[l], load_mask(bits + k * kLanes + l), from, deck[l]);
      }
    }
    for (int l = 0; l < kLanes; ++l) _mm512_storeu_si512(out + 64 * l, deck[l]);
  }
};

}  // namespace melange::simd::internal
