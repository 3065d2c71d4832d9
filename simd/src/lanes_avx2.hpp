// The few lane operations xsimd 8.1 lacks for 32-bit integers on AVX2:
// multiply-high (over _mm256_mul_epu32 on the even and odd lanes), unsigned
// compare, per-lane variable shifts and gathers. Include only where -mavx2 is on.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <xsimd/xsimd.hpp>

namespace melange::simd::internal {

template <class Arch>
struct Lanes;

template <>
struct Lanes<xsimd::avx2> {
  using u32 = xsimd::batch<std::uint32_t, xsimd::avx2>;

  // High halves of the 32 x 32 -> 64-bit products, lane by lane.
  static u32 mulhi(u32 a, u32 b) {
    const __m256i even = _mm256_mul_epu32(a, b);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
    return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  }

  // The 64-bit-slot view Philox runs in: each 64-bit slot carries one lane's
  // value in its low half; whatever sits in the high half is ignored.
  // even_products(a, m): full products a * m of lanes 0, 2, 4, 6, one per slot.
  static u32 even_products(u32 a, u32 m) { return _mm256_mul_epu32(a, m); }
  // Moves lanes 1, 3, 5, 7 (and a slot's high half in general) into the low halves.
  static u32 high_halves(u32 a) { return _mm256_srli_epi64(a, 32); }
  // Lanes 0, 2, 4, 6 from `even`'s low halves, lanes 1, 3, 5, 7 from `odd`'s.
  static u32 interleave(u32 even, u32 odd) {
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  }
  // The high halves of even_products of the even and the odd lanes, in lane
  // order: the odd lanes' are in place already.
  static u32 products_high(u32 even, u32 odd) { return _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA); }

  static u32 mullo(u32 a, u32 b) { return _mm256_mullo_epi32(a, b); }

  // Each lane's low byte to out[0..7] (lanes below 256): a byte shuffle
  // gathers each half's four, a permute joins the halves.
  static void store_low_bytes(u32 a, std::uint8_t* out) {
    const __m256i low = _mm256_shuffle_epi8(a, _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1,
                                                                -1, -1, -1, -1));
    const __m256i joined = _mm256_permutevar8x32_epi32(low, _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm256_castsi256_si128(joined));
  }
  // Lane l + 4 into lane l and back: the two 128-bit halves swapped.
  static u32 swap_halves(u32 a) { return _mm256_permute2x128_si256(a, a, 1); }

  // Both halves of the 32 x 32 -> 64-bit products from the two widening
  // multiplies: no slow 32-bit mullo on a dependency chain.
  static void mul_wide(u32 a, u32 b, u32& hi, u32& lo) {
    const __m256i even = _mm256_mul_epu32(a, b);
    const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
    hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
    lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  }

  // All ones where a < b as unsigned 32-bit values.
  static u32 less(u32 a, u32 b) {
    const __m256i flip = _mm256_set1_epi32(static_cast<int>(0x80000000u));
    return _mm256_cmpgt_epi32(_mm256_xor_si256(b, flip), _mm256_xor_si256(a, flip));
  }

  // All ones where a > b; both below 2^31.
  static u32 greater_small(u32 a, u32 b) { return _mm256_cmpgt_epi32(a, b); }
  static u32 equal(u32 a, u32 b) { return _mm256_cmpeq_epi32(a, b); }

  static u32 shift_left(u32 a, u32 counts) { return _mm256_sllv_epi32(a, counts); }
  static u32 shift_right(u32 a, u32 counts) { return _mm256_srlv_epi32(a, counts); }

  static bool any(u32 mask) { return !_mm256_testz_si256(mask, mask); }
  // True where every lane of a mask is all ones.
  static bool all(u32 mask) { return _mm256_testc_si256(mask, _mm256_set1_epi32(-1)); }
  // Lane by lane, for sorting networks (card_keys.hpp).
  static u32 min(u32 a, u32 b) { return xsimd::min(a, b); }
  static u32 max(u32 a, u32 b) { return xsimd::max(a, b); }

  // base[index] lane by lane (the coin tables).
  static u32 gather(const std::uint32_t* base, u32 index) {
    return _mm256_i32gather_epi32(reinterpret_cast<const int*>(base), index, 4);
  }

  // A table of at most kSmallTable entries in one register, read with one
  // permute instead of a gather.
  static constexpr std::uint32_t kSmallTable = 8;
  struct SmallTable {
    __m256i entries;
  };
  static SmallTable small_table(const std::uint32_t* base, std::uint32_t size) {
    alignas(32) std::uint32_t e[8] = {};
    for (std::uint32_t i = 0; i < size && i < 8; ++i) e[i] = base[i];
    return {_mm256_load_si256(reinterpret_cast<const __m256i*>(e))};
  }
  static u32 lookup(const SmallTable& t, u32 index) { return _mm256_permutevar8x32_epi32(t.entries, index); }

  // Permutations of four packed 4 bits an item (the low 16 bits of each
  // lane) as rows of four 16-bit items, the 8 rows stored in two writes
  // (see lanes_avx512.hpp).
  static void rows_of_four(u32 packed, std::uint16_t* rows) {
    const __m256i low16 = _mm256_set1_epi64x(0xffff), bytes = _mm256_set1_epi64x(0x000000ff000000ffll),
                  nibbles = _mm256_set1_epi64x(0x000f000f000f000fll);
    const __m256i all = packed;
    for (int half = 0; half < 2; ++half) {
      __m256i v = _mm256_cvtepu32_epi64(half ? _mm256_extracti128_si256(all, 1) : _mm256_castsi256_si128(all));
      v = _mm256_and_si256(v, low16);
      v = _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi64(v, 24)), bytes);
      v = _mm256_and_si256(_mm256_or_si256(v, _mm256_slli_epi64(v, 12)), nibbles);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(rows + 16 * half), v);
    }
  }
};

}  // namespace melange::simd::internal
