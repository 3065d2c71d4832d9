// The SIMD backend: one trial per 32-bit lane, bit-identical to the scalar
// reference, on the widest architecture this CPU runs from those the build
// has kernels for. The dispatcher that builds it is compiled without
// architecture flags; only each architecture's kernels get theirs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "melange/backend.hpp"

namespace melange::simd {

// The architectures this build has kernels for, widest first ("avx2").
std::vector<std::string> compiled_architectures();
// Those of them this CPU executes (CPUID at run time), widest first.
std::vector<std::string> available_architectures();

// The backend on `arch`, or on the widest available when `arch` is empty;
// nullptr when this CPU runs none of them (or not `arch`).
std::unique_ptr<Backend> make_backend(std::string_view arch = "");

// Raw stream words on the widest available architecture: fills
// out[0..streams * words_per_stream) with words of streams first, first+1, ...
// (each stream's words in order). For benchmarks and tests of the lanes.
void stream_words(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                  int words_per_stream, std::uint32_t* out);

// Blocks first_block .. first_block + blocks - 1 of one stream, four words
// each in order, on the widest available architecture (a BlockFill,
// stream.hpp): what a caller drawing many values from one stream reads.
void stream_blocks(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block, std::uint64_t blocks,
                   std::uint32_t* out);
// The same on `arch`; false (and nothing written) where this CPU does not run it.
bool stream_blocks_on(std::string_view arch, std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block,
                      std::uint64_t blocks, std::uint32_t* out);

// The Philox ceiling: XOR of the four words of block 0 of streams
// first .. first + streams - 1, generated a register at a time and never
// stored, on `arch` (empty, or one this CPU does not run: the widest it runs).
std::uint32_t philox_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                              std::string_view arch = {});

}  // namespace melange::simd
