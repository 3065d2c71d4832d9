// The vector kernels for AVX-512 with VBMI: AVX-512's sixteen lanes, and
// decks of up to 64 items in a register (lanes_avx512vbmi.hpp). This file
// alone is compiled with the VBMI flags.
#include "lanes_avx512vbmi.hpp"
// lanes first: the kernel body is written against Lanes<Arch>.
#include "kernel.hpp"

namespace melange::simd::internal {

KernelEntry avx512vbmi_kernels() {
  using K = Kernel<avx512vbmi>;
  return KernelEntry{&K::tally, &K::sample, &K::sample_bytes, &K::words, &K::checksum, &K::blocks};
}

}  // namespace melange::simd::internal
