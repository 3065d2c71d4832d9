// Item containers for GPU threads, reached as a[i] by the algorithms of
// algorithms.hpp and the trial body of trial.hpp.
//
// PackedItems: up to eight items in one 32-bit word, four bits an item: a[i] reads and
// writes nibble i with shifts. A GPU thread keeps its items this way at small
// n, in a register, where an array indexed by a drawn j would live in local
// memory. The algorithms of algorithms.hpp run on it unchanged (a[i] is a
// reference object; see internal::item_value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "melange/config.hpp"

namespace melange {

// Items one 32-bit word holds, four bits an item: the one limit of every
// packed permutation (a GPU thread's register, a SIMD lane).
inline constexpr int kPackedItems = 8;

// Calls f(std::integral_constant<int, N>{}) for the N of [kLow, kHigh] equal
// to n and returns true, or returns false without calling f: a count known
// at compile time, for the loops that unroll on it (the SIMD and GPU kernels
// of n <= kPackedItems). The cases are generated from the bounds, so none
// can be missing or run another's code.
template <int kLow, int kHigh, class F>
MELANGE_HD constexpr bool with_count_in(int n, F&& f) {
  if constexpr (kLow > kHigh) {
    return false;
  } else {
    if (n == kLow) {
      f(std::integral_constant<int, kLow>{});
      return true;
    }
    return with_count_in<kLow + 1, kHigh>(n, static_cast<F&&>(f));
  }
}

struct PackedItems {
  static constexpr int kMaxItems = kPackedItems;
  std::uint32_t bits = 0;

  struct Ref {
    using value_type = std::uint8_t;
    std::uint32_t& bits;
    int shift;
    MELANGE_HD operator value_type() const { return static_cast<value_type>((bits >> shift) & 15u); }
    MELANGE_HD Ref& operator=(value_type v) {
      bits = (bits & ~(15u << shift)) | (static_cast<std::uint32_t>(v) << shift);
      return *this;
    }
  };

  MELANGE_HD Ref operator[](int i) { return Ref{bits, 4 * i}; }
  MELANGE_HD std::uint8_t operator[](int i) const { return item(i); }
  MELANGE_HD std::uint8_t item(int i) const { return static_cast<std::uint8_t>((bits >> (4 * i)) & 15u); }

  // Items 0..n-1 in order.
  MELANGE_HD static PackedItems identity(int n) {
    PackedItems p;
    for (int i = 0; i < n; ++i) p.bits |= static_cast<std::uint32_t>(i) << (4 * i);
    return p;
  }
};

// A thread's items in memory shared with other threads, four to a 32-bit
// word and the words interleaved by thread: item i of thread t is byte
// i % 4 of word (i / 4) * stride + t. With base = block memory + 4 threadIdx.x
// and stride = blockDim.x, the lanes of a warp each read their own bank
// whatever item each reads (a random a[j] in a shuffle): items a byte apart
// by thread put four lanes in each bank, a 4-way conflict on every access.
struct InterleavedItems {
  // `base`: the thread's first word; `threads`: the threads that share the
  // memory. 32-bit index math: a block's items are a few tens of KB.
  MELANGE_HD InterleavedItems(std::uint8_t* base, int threads) : base(base), row(4 * threads) {}
  MELANGE_HD std::uint8_t& operator[](int i) const { return base[(i >> 2) * row + (i & 3)]; }

  std::uint8_t* base;
  int row;  // bytes from one word of a thread to its next: 4 threads
  // Bytes the items of `threads` threads of n items take.
  static constexpr std::size_t bytes(int n, int threads) {
    return static_cast<std::size_t>((n + 3) / 4) * 4 * static_cast<std::size_t>(threads);
  }
};

}  // namespace melange
