// The inverses of sixteen lanes' permutations built in registers, a byte an
// item, by VBMI's byte permutes. Include only where the VBMI flags are on.
#pragma once

#include <immintrin.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "plan.hpp"

namespace melange::simd::internal::deck_avx512vbmi {

inline constexpr int kLanes = 16;
inline constexpr int kItems = 64;  // a register's bytes

// R decks of 64 / R positions interleaved in one register: position q of
// deck t at byte spread(q) | t << kLow, where q's kLow lowest bits stay at
// the bottom and the rest go above bit 2. Every 8-byte group then holds
// 8 / R consecutive positions of each of the R decks, so that one 64-bit
// pattern broadcast to all the groups can hold a value for each deck.
template <int R>
struct Interleave {
  static_assert(R == 1 || R == 2 || R == 4);
  static constexpr int kLow = R == 1 ? 3 : R == 2 ? 2 : 1;
  static constexpr int kRegisters = kLanes / R;
  static constexpr int kPositions = kItems / R;
  static constexpr int spread(int q) { return (q & ((1 << kLow) - 1)) | (q >> kLow) << 3; }
  static constexpr int byte(int q, int t) { return spread(q) | t << kLow; }
  static constexpr int position(int b) { return (b & ((1 << kLow) - 1)) | (b >> 3) << kLow; }
  static constexpr int deck(int b) { return (b >> kLow) & (R - 1); }
};

using Bytes = std::array<std::uint8_t, kItems>;
template <class F>
constexpr Bytes bytes(F f) {
  Bytes b{};
  for (int p = 0; p < kItems; ++p) b[p] = static_cast<std::uint8_t>(f(p));
  return b;
}
inline __m512i load(const Bytes& b) { return _mm512_loadu_si512(b.data()); }

// Each register holds its decks' identity: byte b holds its position.
template <int R>
inline constexpr Bytes kIdentity = bytes([](int b) { return Interleave<R>::position(b); });

// The index that moves the decks of register `half` of a pair out of an
// R-deck register into an R/2-deck register (the wider half of each deck
// is still the identity there, and comes from the identity's bytes, which
// a two-table permute addresses from 64 up).
template <int R>
constexpr Bytes widening(int half) {
  using From = Interleave<R>;
  using To = Interleave<R / 2>;
  return bytes([half](int b) {
    const int q = To::position(b), t = (R / 2) * half + To::deck(b);
    return q < From::kPositions ? From::byte(q, t) : kItems + q;
  });
}
template <int R>
inline constexpr std::array<Bytes, 2> kWidening = {widening<R>(0), widening<R>(1)};

// A mask register straight from memory, one uop: GCC splits _load_mask64
// into a load into a general register and a move from it.
inline __mmask64 load_mask(const __mmask64* at) {
  __mmask64 m;
  asm("kmovq %1, %0" : "=k"(m) : "m"(*at));
  return m;
}

// One draw's swap of b[i] and b[j] in each deck, prepared for R decks a
// register: the swap is b[q] = b[q ^ (i ^ j)] at q = i and q = j, so one
// byte permute of the register by the identity xor a pattern (i ^ j spread
// like a position, at the bytes of its deck in each 8-byte group), under a
// mask of the 2 R bytes the swaps move.
struct Swaps {
  alignas(64) std::uint64_t patterns[kLanes];  // a register's pattern, to broadcast
  alignas(64) __mmask64 masks[kLanes];          // a register's bytes to move (R = 1: mask_of)
};

// Positions spread as Interleave<R> places them, in each 32-bit lane: one
// byte permute through a table of the 64 (a 32-bit lane's upper bytes are
// 0, which spreads to 0).
template <int R>
inline __m512i spread(__m512i q) {
  if constexpr (R == 1) return q;
  static constexpr Bytes kSpread = bytes([](int q) { return Interleave<R>::spread(q); });
  return _mm512_permutexvar_epi8(q, load(kSpread));
}

// Where register r's mask lies in Swaps::masks: one deck a register, the
// even lanes' masks come first (prepare makes them from the even 32-bit
// lanes, then the odd ones).
template <int R>
constexpr int mask_of(int r) {
  return R == 1 ? (r % 2) * (kLanes / 2) + r / 2 : r;
}

// The draw's Swaps from its position i and the lanes' j (lane l in deck
// l % R of register l / R).
template <int R>
inline void prepare(std::uint32_t i, __m512i j, Swaps& s) {
  using I = Interleave<R>;
  const __m512i spread_j = spread<R>(j);
  // Patterns: byte b of register b / 8's pattern is lane b >> kLow's spread
  // i ^ j, which sits in the low byte of its 32 bits.
  static constexpr Bytes kPick[2] = {bytes([](int b) { return 4 * ((b >> I::kLow) % kLanes); }),
                                     bytes([](int b) { return 4 * (((b + kItems) >> I::kLow) % kLanes); })};
  const __m512i flips = _mm512_xor_si512(spread_j, _mm512_set1_epi32(I::spread(static_cast<int>(i))));
  for (int half = 0; half < (R == 1 ? 2 : 1); ++half)
    _mm512_store_si512(s.patterns + 8 * half, _mm512_permutexvar_epi8(load(kPick[half]), flips));
  // Masks: lane l's bit is byte(j, l % R); 64-bit shifts of the even and
  // the odd 32-bit lanes make them, and a register's lanes' bits (in
  // different bytes) are or-ed together, with i's bit in each deck.
  static constexpr std::array<std::uint32_t, kLanes> kDeckShift = [] {
    std::array<std::uint32_t, kLanes> a{};
    for (int l = 0; l < kLanes; ++l) a[l] = static_cast<std::uint32_t>((l % R) << I::kLow);
    return a;
  }();
  const __m512i at = R == 1 ? spread_j : _mm512_or_si512(spread_j, _mm512_loadu_si512(kDeckShift.data()));
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i even = _mm512_sllv_epi64(one, _mm512_and_si512(at, _mm512_set1_epi64(0xFFFFFFFF)));
  const __m512i odd = _mm512_sllv_epi64(one, _mm512_srli_epi64(at, 32));
  std::uint64_t at_i = 0;
  for (int t = 0; t < R; ++t) at_i |= std::uint64_t{1} << I::byte(static_cast<int>(i), t);
  const __m512i with_i = _mm512_set1_epi64(static_cast<long long>(at_i));
  if constexpr (R == 1) {
    _mm512_store_si512(s.masks, _mm512_or_si512(even, with_i));
    _mm512_store_si512(s.masks + kLanes / 2, _mm512_or_si512(odd, with_i));
  } else {
    const __m512i pairs = _mm512_ternarylogic_epi64(even, odd, with_i, 0xFE);  // or of the three
    if constexpr (R == 2) {
      _mm512_store_si512(s.masks, pairs);
    } else {
      const __m512i quads = _mm512_or_si512(pairs, _mm512_shuffle_epi32(pairs, _MM_PERM_BADC));
      _mm512_store_si512(s.masks, _mm512_permutexvar_epi64(_mm512_set_epi64(6, 4, 2, 0, 6, 4, 2, 0), quads));
    }
  }
}

// Draws [from, to) prepared for R decks a register.
template <int R>
inline void prepare(const Plan& p, const std::uint32_t* digits, std::size_t from, std::size_t to, Swaps* swaps) {
  for (std::size_t k = from; k < to; ++k)
    prepare<R>(p.draws[k].i, _mm512_load_si512(digits + k * kLanes), swaps[k]);
}

// The prepared swaps of draws [from, to) in reverse, on R decks a register.
template <int R>
inline void swap(__m512i (&reg)[Interleave<R>::kRegisters], const Swaps* swaps, std::size_t from, std::size_t to) {
  const __m512i identity = load(kIdentity<1>);
  for (std::size_t k = to; k-- > from;) {
    const Swaps& s = swaps[k];
#pragma GCC unroll 16
    for (int r = 0; r < Interleave<R>::kRegisters; ++r) {
      // 64-bit lanes, so that the pattern's broadcast folds into the xor.
      const __m512i by = _mm512_xor_epi64(identity, _mm512_set1_epi64(static_cast<long long>(s.patterns[r])));
      reg[r] = _mm512_mask_permutexvar_epi8(reg[r], load_mask(s.masks + mask_of<R>(r)), by, reg[r]);
    }
  }
}

// R decks a register into R / 2.
template <int R>
inline void widen(const __m512i (&from)[Interleave<R>::kRegisters], __m512i (&to)[Interleave<R / 2>::kRegisters]) {
  const __m512i identity = load(kIdentity<1>);
#pragma GCC unroll 16
  for (int r = 0; r < Interleave<R / 2>::kRegisters; ++r)
    to[r] = _mm512_permutex2var_epi8(from[r / 2], load(kWidening<R>[r % 2]), identity);
}

// The inverses of the sixteen lanes' permutations (out[lane * 64 + item] =
// the item's position). The permutation is the draws' swaps in turn, a =
// t_0 t_1 ... t_{m-1} as position swaps; its inverse is the same swaps in
// reverse order. The decks stay in registers across the draws, where the
// wide path loads and stores two items a swap a lane. Taken in reverse, a
// schedule's last draws often swap only low positions (Fisher-Yates: the
// last 15 of 51 at n = 52 swap below 16, the last 31 below 32); while they
// do, four decks (then two) share a register, and a permute swaps in all
// of them: at n = 52, 508 permutes a group where one a deck a draw took 816.
// digits: [draw][lane], each lane's j.
[[gnu::noinline]] inline void inverse_decks(const Plan& p, const std::uint32_t* digits, std::uint8_t* out) {
  const std::size_t count = p.draws.size();
  const std::size_t quarters = count - p.last_draws_below_16, halves = count - p.last_draws_below_32;
  // Every swap's operands made before the first swap, so that every load
  // below reads a store long retired. A deck of at most 64 items takes at
  // most 64 draws (naive-swap: n).
  Swaps swaps[kItems];
  prepare<1>(p, digits, 0, halves, swaps);
  prepare<2>(p, digits, halves, quarters, swaps);
  prepare<4>(p, digits, quarters, count, swaps);
  // Every loop over the registers is unrolled: an array indexed in a loop
  // would live in memory, each swap a store and a load.
  __m512i fours[4], twos[8], ones[16];
#pragma GCC unroll 4
  for (__m512i& r : fours) r = load(kIdentity<4>);
  swap<4>(fours, swaps, quarters, count);
  widen<4>(fours, twos);
  swap<2>(twos, swaps, halves, quarters);
  widen<2>(twos, ones);
  swap<1>(ones, swaps, 0, halves);
#pragma GCC unroll 16
  for (int l = 0; l < kLanes; ++l) _mm512_storeu_si512(out + kItems * l, ones[l]);
}

}  // namespace melange::simd::internal::deck_avx512vbmi
