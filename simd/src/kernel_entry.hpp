// The functions each architecture's kernel file provides. The dispatcher sees
// only these plain function pointers, never a vector type, so it compiles
// without architecture flags.
#pragma once

#include <cstdint>

#include "melange/job.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

struct KernelEntry {
  void (*tally)(const Plan& plan, std::uint64_t begin, std::uint64_t end, Tally& tally);
  void (*sample)(const Plan& plan, std::uint64_t begin, std::uint64_t end, std::uint16_t* out);
  void (*sample_bytes)(const Plan& plan, std::uint64_t begin, std::uint64_t end, std::uint8_t* out);
  void (*words)(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                int words_per_stream, std::uint32_t* out);
  std::uint32_t (*checksum)(std::uint64_t seed, std::uint64_t first, std::uint64_t streams);
  void (*blocks)(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block, std::uint64_t blocks,
                 std::uint32_t* out);
};

KernelEntry avx2_kernels();    // kernels_avx2.cpp, compiled with -mavx2
KernelEntry avx512_kernels();  // kernels_avx512.cpp, compiled with -mavx512f/bw/dq
KernelEntry avx512vbmi_kernels();  // kernels_avx512vbmi.cpp, the same and -mavx512vbmi

}  // namespace melange::simd::internal
