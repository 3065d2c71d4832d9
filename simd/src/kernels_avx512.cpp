// The vector kernels for AVX-512 (F, BW, DQ): sixteen trials per
// register. This file alone is compiled with the AVX-512 flags.
#include "lanes_avx512.hpp"
// lanes first: the kernel body is written against Lanes<Arch>.
#include "kernel.hpp"

namespace melange::simd::internal {

KernelEntry avx512_kernels() {
  using K = Kernel<xsimd::avx512bw>;
  return KernelEntry{&K::tally, &K::sample, &K::sample_bytes, &K::words, &K::checksum, &K::blocks};
}

}  // namespace melange::simd::internal
