// The SIMD kernel's pieces are written against Lanes<Arch> (lanes_<arch>.hpp)
// and inline by the one rule of lane code (melange/algorithms/lane_inline.hpp).
#pragma once

#include "melange/algorithms/lane_inline.hpp"

namespace melange::simd::internal {
// The few lane operations an architecture adds (lanes_<arch>.hpp), which
// every piece of the kernel is written against.
template <class Arch>
struct Lanes;
}  // namespace melange::simd::internal
