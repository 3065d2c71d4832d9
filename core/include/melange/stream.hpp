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

}  // namespace melange
