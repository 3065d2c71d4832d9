// Packed permutations (four bits an item, a lane each) as rows of 16-bit
// items or bytes. Part of kernel.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_inline.hpp"

namespace melange::simd::internal {

template <class Arch>
struct LaneRows {
  using L = Lanes<Arch>;
  using u32 = typename L::u32;
  static constexpr int kLanes = static_cast<int>(u32::size);

  // Four 4-bit items (the low 16 bits of x) as four 16-bit items, in a
  // 64-bit word: nibble i moves to bits 16i..16i+3.
  static std::uint64_t spread_nibbles(std::uint32_t x) {
    std::uint64_t v = x & 0xffffu;
    v = (v | v << 24) & 0x000000ff000000ffull;
    return (v | v << 12) & 0x000f000f000f000full;
  }
  // Eight 4-bit items as eight bytes: nibble i moves to bits 8i..8i+3.
  static std::uint64_t spread_nibbles_to_bytes(std::uint32_t x) {
    std::uint64_t v = x;
    v = (v | v << 16) & 0x0000ffff0000ffffull;
    v = (v | v << 8) & 0x00ff00ff00ff00ffull;
    return (v | v << 4) & 0x0f0f0f0f0f0f0f0full;
  }

  // Each lane's packed permutation as a row of N items, 16-bit or bytes: a
  // few shifts and masks a lane and one or two stores, where a loop over
  // the items would shift by a variable count per item. At N = 4 a row is
  // one 64-bit or 32-bit lane, and the rows are spread in the registers.
  template <int N, class Item>
  static void store_rows(const u32& packed, Item* rows) {
    if constexpr (N == 4 && sizeof(Item) == 2) {
      return L::rows_of_four(packed, rows);
    } else if constexpr (N == 4) {
      u32 v = packed & u32(0xffffu);
      v = (v | (v << 8)) & u32(0x00ff00ffu);
      v = (v | (v << 4)) & u32(0x0f0f0f0fu);
      return v.store_unaligned(reinterpret_cast<std::uint32_t*>(rows));
    }
    alignas(64) std::uint32_t perm[kLanes];
    packed.store_aligned(perm);
    for (int l = 0; l < kLanes; ++l) {
      Item* row = rows + l * N;
      if constexpr (sizeof(Item) == 1) {
        const std::uint64_t all = spread_nibbles_to_bytes(perm[l]);
        std::memcpy(row, &all, N);
      } else {
        const std::uint64_t low = spread_nibbles(perm[l]);
        std::memcpy(row, &low, sizeof(Item) * std::min(N, 4));
        if constexpr (N > 4) {
          const std::uint64_t high = spread_nibbles(perm[l] >> 16);
          std::memcpy(row + 4, &high, sizeof(Item) * (N - 4));
        }
      }
    }
  }
};

}  // namespace melange::simd::internal
