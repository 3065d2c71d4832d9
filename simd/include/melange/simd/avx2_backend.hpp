// The AVX2 backend: eight trials per 256-bit register, bit-identical to the
// scalar reference. The dispatcher that builds it is compiled without
// architecture flags; only the kernels get -mavx2.
#pragma once

#include <cstdint>
#include <memory>

#include "melange/backend.hpp"

namespace melange::simd {

// True when this CPU executes AVX2 (checked with CPUID at run time).
bool avx2_available();

// The backend, or nullptr when the CPU lacks AVX2.
std::unique_ptr<Backend> make_avx2_backend();

// Raw stream words, eight streams at a time: fills out[0..count) with words
// of streams first, first+1, ... (each stream's `words_per_stream` words in
// order, streams one after another). For benchmarks and tests of the lanes.
void avx2_stream_words(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                       int words_per_stream, std::uint32_t* out);

// The Philox ceiling: XOR of the four words of block 0 of streams
// first .. first + streams - 1, generated eight at a time and never stored.
std::uint32_t avx2_philox_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams);

}  // namespace melange::simd
