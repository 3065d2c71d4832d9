// The lane operations xsimd 8.1 lacks for 32-bit integers on AVX-512 (F, BW
// and DQ): multiply-high over _mm512_mul_epu32 on the even and odd lanes,
// unsigned compares as all-ones lanes, per-lane variable shifts, gathers. Include only
// where the AVX-512 flags are on.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <xsimd/xsimd.hpp>

namespace melange::simd::internal {

template <class Arch>
struct Lanes;

template <>
struct Lanes<xsimd::avx512bw> {
  using u32 = xsimd::batch<std::uint32_t, xsimd::avx512bw>;

  // High halves of the 32 x 32 -> 64-bit products, lane by lane.
  static u32 mulhi(u32 a, u32 b) {
    const __m512i even = _mm512_mul_epu32(a, b);
    const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32));
    return _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
  }

  // The 64-bit-slot view Philox runs in (see lanes_avx2.hpp): full products
  // of the even lanes, one per slot.
  static u32 even_products(u32 a, u32 m) { return _mm512_mul_epu32(a, m); }
  // A shuffle, not a 64-bit shift: on Intel cores both the widening multiply
  // and 512-bit shifts issue only on port 0, shuffles on port 5, so Philox's
  // rounds keep both ports busy (the high halves' leftovers go unread).
  // (Spelled as a shuffle of a under a full mask: GCC 12's plain
  // _mm512_shuffle_epi32 reads an "undefined" operand it then warns about.)
  static u32 high_halves(u32 a) { return _mm512_mask_shuffle_epi32(a, 0xFFFF, a, _MM_PERM_DDBB); }
  static u32 interleave(u32 even, u32 odd) {
    return _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  }
  // The high halves of even_products of the even and the odd lanes, in lane
  // order: one masked shuffle.
  static u32 products_high(u32 even, u32 odd) { return _mm512_mask_shuffle_epi32(odd, 0x5555, even, _MM_PERM_DDBB); }

  static u32 mullo(u32 a, u32 b) { return _mm512_mullo_epi32(a, b); }
  // Each lane's low byte to out[0..15] (lanes below 256).
  static void store_low_bytes(u32 a, std::uint8_t* out) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(a));
  }
  // Lane l + 8 into lane l and back: the two 256-bit halves swapped.
  static u32 swap_halves(u32 a) { return _mm512_shuffle_i64x2(a, a, _MM_SHUFFLE(1, 0, 3, 2)); }

  // Both halves of the 32 x 32 -> 64-bit products from the two widening
  // multiplies: no slow 32-bit mullo on a dependency chain.
  static void mul_wide(u32 a, u32 b, u32& hi, u32& lo) {
    const __m512i even = _mm512_mul_epu32(a, b);
    const __m512i odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32));
    hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
    lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
  }

  // All ones where a < b as unsigned 32-bit values.
  static u32 less(u32 a, u32 b) { return _mm512_movm_epi32(_mm512_cmplt_epu32_mask(a, b)); }
  // All ones where a > b.
  static u32 greater_small(u32 a, u32 b) { return _mm512_movm_epi32(_mm512_cmpgt_epu32_mask(a, b)); }
  static u32 equal(u32 a, u32 b) { return _mm512_movm_epi32(_mm512_cmpeq_epu32_mask(a, b)); }

  static u32 shift_left(u32 a, u32 counts) { return _mm512_sllv_epi32(a, counts); }
  static u32 shift_right(u32 a, u32 counts) { return _mm512_srlv_epi32(a, counts); }

  static bool any(u32 mask) { return _mm512_test_epi32_mask(mask, mask) != 0; }
  // True where every lane of a mask is all ones.
  static bool all(u32 mask) { return _mm512_cmpneq_epi32_mask(mask, _mm512_set1_epi32(-1)) == 0; }
  // Lane by lane, for sorting networks (card_keys.hpp).
  static u32 min(u32 a, u32 b) { return xsimd::min(a, b); }
  static u32 max(u32 a, u32 b) { return xsimd::max(a, b); }

  // base[index] lane by lane (the coin tables).
  static u32 gather(const std::uint32_t* base, u32 index) { return _mm512_i32gather_epi32(index, base, 4); }

  // A table of at most kSmallTable entries held in two registers and read
  // with one permute, where a gather of 16 lanes would wait on memory.
  static constexpr std::uint32_t kSmallTable = 32;
  struct SmallTable {
    __m512i low, high;
  };
  static SmallTable small_table(const std::uint32_t* base, std::uint32_t size) {
    const auto mask = [](std::uint32_t count) {
      return static_cast<__mmask16>(count >= 16 ? 0xffffu : (1u << count) - 1u);
    };
    return {_mm512_maskz_loadu_epi32(mask(size), base),
            _mm512_maskz_loadu_epi32(mask(size > 16 ? size - 16 : 0), base + 16)};
  }
  static u32 lookup(const SmallTable& t, u32 index) { return _mm512_permutex2var_epi32(t.low, index, t.high); }

  // Permutations of four packed 4 bits an item (the low 16 bits of each
  // lane) as rows of four 16-bit items: each lane widened to 64 bits, its
  // nibbles spread to 16-bit fields, and the 16 rows stored in two writes.
  static void rows_of_four(u32 packed, std::uint16_t* rows) {
    const __m512i low16 = _mm512_set1_epi64(0xffff), bytes = _mm512_set1_epi64(0x000000ff000000ffll),
                  nibbles = _mm512_set1_epi64(0x000f000f000f000fll);
    for (int half = 0; half < 2; ++half) {
      __m512i v = _mm512_cvtepu32_epi64(half ? _mm512_extracti64x4_epi64(packed, 1) : _mm512_castsi512_si256(packed));
      v = _mm512_and_si512(v, low16);
      v = _mm512_and_si512(_mm512_or_si512(v, _mm512_slli_epi64(v, 24)), bytes);
      v = _mm512_and_si512(_mm512_or_si512(v, _mm512_slli_epi64(v, 12)), nibbles);
      _mm512_storeu_si512(rows + 32 * half, v);
    }
  }
};

}  // namespace melange::simd::internal
