// Bounded integers of one stream, for a caller that wants numbers rather
// than shuffles (contract §5): the draws bounded(range), one after
// another, from stream `stream` of a seed.
//
// The sequence is infinite and fixed: under `batched` its batches are cut
// from an endless schedule of the same range, so every batch is full and the
// i-th value never depends on how many are asked for. That is what lets a
// caller take the values in pieces of any size (fill() again and again) and
// get the bits of one call.
#pragma once

#include <cstdint>
#include <span>

#include "melange/bounded.hpp"
#include "melange/stream.hpp"

namespace melange {

class BoundedIntegers {
 public:
  // Throws UsageError unless 1 <= range <= 2^spec.bits (validate_bounded).
  BoundedIntegers(std::uint64_t seed, std::uint64_t stream, std::uint64_t range, BoundedSpec spec = {})
      : words_(seed, stream), range_(range), spec_(spec) {
    validate_bounded(spec, range);
  }

  std::uint32_t next() {
    ++drawn_;
    if (spec_.method != Method::batched) return internal::bounded_one_a_word(words_, range_, spec_);
    const std::uint64_t r = range_;
    return batch_.next(words_, r, [r](int) { return r; });
  }

  // The next out.size() values, in order.
  void fill(std::span<std::uint32_t> out) {
    for (std::uint32_t& v : out) v = next();
  }

  std::uint64_t range() const { return range_; }
  BoundedSpec spec() const { return spec_; }
  std::uint64_t drawn() const { return drawn_; }
  std::uint64_t words_consumed() const { return words_.words_consumed(); }

 private:
  PhiloxStream words_;
  std::uint64_t range_;
  BoundedSpec spec_;
  BatchedDraws batch_;
  std::uint64_t drawn_ = 0;
};

// The first out.size() values of the stream: BoundedIntegers(seed, stream,
// range, spec).fill(out).
inline void fill_integers(std::uint64_t seed, std::uint64_t stream, std::uint64_t range, BoundedSpec spec,
                          std::span<std::uint32_t> out) {
  BoundedIntegers(seed, stream, range, spec).fill(out);
}

}  // namespace melange
