// Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as easy
// as 1, 2, 3", SC'11): a pure function of (counter, key). Constants are named
// as in the paper; multiply-high is the only portability seam.
#pragma once

#include <cstdint>

#include "melange/config.hpp"

namespace melange {

struct PhiloxCounter {
  std::uint32_t v[4];
  friend constexpr bool operator==(const PhiloxCounter&, const PhiloxCounter&) = default;
};

struct PhiloxKey {
  std::uint32_t v[2];
  friend constexpr bool operator==(const PhiloxKey&, const PhiloxKey&) = default;
};

namespace philox {

inline constexpr std::uint32_t kM0 = 0xD2511F53u;  // PHILOX_M4x32_0, multiplies ctr[0]
inline constexpr std::uint32_t kM1 = 0xCD9E8D57u;  // PHILOX_M4x32_1, multiplies ctr[2]
inline constexpr std::uint32_t kW0 = 0x9E3779B9u;  // Weyl key bump: golden ratio
inline constexpr std::uint32_t kW1 = 0xBB67AE85u;  // Weyl key bump: sqrt(3) - 1
inline constexpr int kRounds = 10;

// The portability seam: 32x32 -> 64-bit product split into halves.
MELANGE_HD inline void mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi,
                               std::uint32_t& lo) {
#if defined(__CUDA_ARCH__)
  hi = __umulhi(a, b);
  lo = a * b;
#else
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
#endif
}

// One round on four words of any type W, a scalar or a vector of lanes, given
// the one operation beyond xor: mulhilo(a, b, hi, lo). The vector kernels run
// this same round over their lanes.
template <class W, class MulHiLo>
MELANGE_HD_FORCE_INLINE void round_words(W (&c)[4], const W& k0, const W& k1, const W& m0, const W& m1,
                                   MulHiLo&& mul) {
  W hi0, lo0, hi1, lo1;
  mul(m0, c[0], hi0, lo0);
  mul(m1, c[2], hi1, lo1);
  c[0] = hi1 ^ c[1] ^ k0;
  c[1] = lo1;
  c[2] = hi0 ^ c[3] ^ k1;
  c[3] = lo0;
}

struct ScalarMulHiLo {
  MELANGE_HD void operator()(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) const {
    mulhilo(a, b, hi, lo);
  }
};

MELANGE_HD inline PhiloxCounter round(PhiloxCounter c, PhiloxKey k) {
  const std::uint32_t m0 = kM0, m1 = kM1;
  round_words(c.v, k.v[0], k.v[1], m0, m1, ScalarMulHiLo{});
  return c;
}

MELANGE_HD inline PhiloxKey bump(PhiloxKey k) {
  return PhiloxKey{{k.v[0] + kW0, k.v[1] + kW1}};
}

}  // namespace philox

// Philox4x32 with R rounds; R = 10 is the generator of the stream contract.
template <int R>
MELANGE_HD inline PhiloxCounter philox4x32_with_rounds(PhiloxCounter ctr, PhiloxKey key) {
  for (int r = 0; r < R; ++r) {
    if (r > 0) key = philox::bump(key);
    ctr = philox::round(ctr, key);
  }
  return ctr;
}

MELANGE_HD inline PhiloxCounter philox4x32_10(PhiloxCounter ctr, PhiloxKey key) {
  return philox4x32_with_rounds<philox::kRounds>(ctr, key);
}

}  // namespace melange
