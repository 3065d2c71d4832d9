// The stream contract (contract §1): trial t of a job with seed s reads
// Philox4x32-10 blocks at counter (block lo, block hi, t lo, t hi) under key
// (s lo, s hi), four words per block in the order x, y, z, w.
#pragma once

#include <cstdint>

#include "melange/config.hpp"
#include "melange/philox.hpp"

namespace melange {

inline constexpr int kStreamVersion = 1;

MELANGE_HD inline PhiloxKey stream_key(std::uint64_t seed) {
  return PhiloxKey{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)}};
}

MELANGE_HD inline PhiloxCounter stream_counter(std::uint64_t stream, std::uint64_t block) {
  return PhiloxCounter{{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32),
                        static_cast<std::uint32_t>(stream),
                        static_cast<std::uint32_t>(stream >> 32)}};
}

// One trial's word stream. Cheap to construct; holds one block of output.
class PhiloxStream {
 public:
  MELANGE_HD PhiloxStream(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block = 0)
      : key_(stream_key(seed)), stream_(stream), next_block_(first_block) {}

  MELANGE_HD std::uint32_t next() {
    if (pos_ == 4) {
      buf_ = philox4x32_10(stream_counter(stream_, next_block_), key_);
      ++next_block_;
      pos_ = 0;
      ++blocks_used_;
    }
    // A select, not buf_.v[pos_]: an array indexed at run time sends the
    // whole stream to a GPU thread's local memory.
    const int p = pos_++;
    return p == 0 ? buf_.v[0] : p == 1 ? buf_.v[1] : p == 2 ? buf_.v[2] : buf_.v[3];
  }

  // Words handed out since construction.
  MELANGE_HD std::uint64_t words_consumed() const {
    return blocks_used_ == 0 ? 0 : (blocks_used_ - 1) * 4 + pos_;
  }

 private:
  PhiloxKey key_;
  std::uint64_t stream_;
  std::uint64_t next_block_;
  std::uint64_t blocks_used_ = 0;
  PhiloxCounter buf_{};
  int pos_ = 4;
};

// Blocks first_block .. first_block + blocks - 1 of one stream into out,
// four words a block in order. A SIMD kernel makes many at once
// (simd::stream_blocks); scalar_stream_blocks is the reference.
using BlockFill = void (*)(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block, std::uint64_t blocks,
                           std::uint32_t* out);

inline void scalar_stream_blocks(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block,
                                 std::uint64_t blocks, std::uint32_t* out) {
  const PhiloxKey key = stream_key(seed);
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const PhiloxCounter block = philox4x32_10(stream_counter(stream, first_block + b), key);
    for (int w = 0; w < 4; ++w) out[4 * b + static_cast<std::uint64_t>(w)] = block.v[w];
  }
}

// PhiloxStream's words, made many blocks at a time by a BlockFill: for a
// caller that reads a long run of one stream (BoundedIntegers), where one
// block at a time costs the cipher's whole latency a block. The first fill
// makes one block and each next twice the last, up to kBlocks, so that a
// caller who wants one value pays for one block. Host code.
class BufferedStream {
 public:
  static constexpr std::uint64_t kBlocks = 128;

  BufferedStream(std::uint64_t seed, std::uint64_t stream, BlockFill fill = nullptr)
      : seed_(seed), stream_(stream), fill_(fill ? fill : &scalar_stream_blocks) {}

  std::uint32_t next() {
    if (pos_ == held_ * 4) refill();
    return words_[pos_++];
  }

  // A 64-bit word of the next two, the first the high half (contract §2).
  std::uint64_t next64() {
    const std::uint64_t high = next();
    return high << 32 | next();
  }

  // Words handed out since construction.
  std::uint64_t words_consumed() const { return (next_block_ - held_) * 4 + pos_; }

  // On to the state after `words` words were handed out (a stream restored).
  void skip_to(std::uint64_t words) {
    next_block_ = words / 4;
    refill();
    pos_ = words % 4;
  }

 private:
  void refill() {
    held_ = next_fill_;
    next_fill_ = next_fill_ < kBlocks ? 2 * next_fill_ : kBlocks;
    fill_(seed_, stream_, next_block_, held_, words_);
    next_block_ += held_;
    pos_ = 0;
  }

  std::uint64_t seed_, stream_;
  BlockFill fill_;
  std::uint64_t next_block_ = 0;  // the first block not yet made
  std::uint64_t held_ = 0;        // blocks in words_, the last made
  std::uint64_t next_fill_ = 1;   // blocks the next fill makes
  std::uint64_t pos_ = 0;
  std::uint32_t words_[kBlocks * 4];
};

}  // namespace melange
