// Item containers for GPU threads, reached as a[i] by the algorithms of
// algorithms.hpp and the trial body of trial.hpp.
//
// PackedItems: up to eight items in one 32-bit word, four bits an item: a[i] reads and
// writes nibble i with shifts. A GPU thread keeps its items this way at small
// n, in a register, where an array indexed by a drawn j would live in local
// memory. The algorithms of algorithms.hpp run on it unchanged (a[i] is a
// reference object; see internal::item_value).
#pragma once

#include <cstdint>

#include "melange/config.hpp"

namespace melange {

struct PackedItems {
  static constexpr int kMaxItems = 8;
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

// A thread's items in memory shared with other threads, interleaved: item i
// at base[i * stride]. With base = block memory + threadIdx.x and stride =
// blockDim.x, a warp that touches the same i touches consecutive bytes.
struct StridedItems {
  std::uint8_t* base;
  int stride;
  MELANGE_HD std::uint8_t& operator[](int i) const { return base[i * stride]; }
};

}  // namespace melange
