// The vector kernels for AVX2. This file alone is compiled with -mavx2.
#include "lanes_avx2.hpp"
// lanes first: the kernel body is written against Lanes<Arch>.
#include "kernel.hpp"

namespace melange::simd::internal {

KernelEntry avx2_kernels() {
  using K = Kernel<xsimd::avx2>;
  return KernelEntry{&K::tally, &K::sample, &K::sample_bytes, &K::words, &K::checksum, &K::blocks};
}

}  // namespace melange::simd::internal
