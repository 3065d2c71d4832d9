// Bounded integers of one stream, for a caller that wants numbers rather
// than shuffles (contract §2 and §5): the draws bounded(range), one after
// another, from stream `stream` of a seed.
//
// The sequence is infinite and fixed: under `batched` its batches are cut
// from an endless schedule of the same range, so every batch is full and the
// i-th value never depends on how many are asked for. That is what lets a
// caller take the values in pieces of any size (fill() again and again) and
// get the bits of one call. Ranges above 2^32 (to 2^64) are drawn by
// Lemire's method on 64-bit words of two stream words each.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "melange/bounded.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"

namespace melange {

// Values 0 .. last, both included: a range of last + 1, up to 2^64.
struct ValuesUpTo {
  std::uint64_t last;
};

class BoundedIntegers {
 public:
  // Throws UsageError unless 1 <= range <= 2^spec.bits (validate_bounded).
  // `fill` makes the stream's blocks (simd::stream_blocks through
  // fastest_block_fill(), engine.hpp); the words, and so the values, are
  // the same whichever does.
  BoundedIntegers(std::uint64_t seed, std::uint64_t stream, std::uint64_t range, BoundedSpec spec = {},
                  BlockFill fill = nullptr)
      : words_(seed, stream, fill), last_(range - 1), spec_(spec) {
    validate_bounded(spec, range);
    plan_batch();
  }
  // Any range 1 .. 2^64; above 2^32 under `batched` or `lemire` alone.
  BoundedIntegers(std::uint64_t seed, std::uint64_t stream, ValuesUpTo values, BoundedSpec spec = {},
                  BlockFill fill = nullptr)
      : words_(seed, stream, fill), last_(values.last), spec_(spec) {
    if (wide()) validate_wide(spec, values.last);
    else validate_bounded(spec, values.last + 1);
    plan_batch();
  }

  std::uint64_t next() {
    std::uint64_t v = 0;
    draw(1, [&v](std::uint64_t x) { v = x; });
    return v;
  }

  // The next out.size() values, in order. A range above 2^32 has values 32
  // bits cannot hold: refused rather than cut (fill_shifted<std::uint64_t>).
  void fill(std::span<std::uint32_t> out) {
    if (wide())
      throw UsageError(Param::range, "a {range} of " + std::to_string(last_) + " + 1 has values above 2^32 - 1: "
                                     "fill a 64-bit array (fill_shifted)");
    fill_shifted(out.data(), out.size(), 0);
  }

  // The next `count` values, each plus `offset` modulo 2^64, as T: what
  // NumPy's integers(low, high, dtype=T) stores, offset low.
  template <class T>
  void fill_shifted(T* out, std::uint64_t count, std::uint64_t offset) {
    draw(count, [&out, offset](std::uint64_t x) { *out++ = static_cast<T>(offset + x); });
  }

  // The range, where it is at most 2^64 - 1 (wide ranges: last() + 1).
  std::uint64_t range() const { return last_ + 1; }
  std::uint64_t last() const { return last_; }
  BoundedSpec spec() const { return spec_; }
  std::uint64_t drawn() const { return drawn_; }
  std::uint64_t words_consumed() const { return words_.words_consumed(); }

 private:
  bool wide() const { return last_ > 0xffffffffu; }
  static void validate_wide(BoundedSpec spec, std::uint64_t last) {
    if ((spec.method != Method::batched && spec.method != Method::lemire) || spec.bits != 32)
      throw UsageError(Param::range, "a {range} of " + std::to_string(last) + " + 1, above 2^32, is drawn by Lemire's "
                                     "method on 64-bit words: set {method} to batched or lemire, {bits} 32");
  }

  void plan_batch() {
    if (wide()) {
      // (2^64 - s) mod s, once: a 64-bit division a draw would cost more than the draw.
      if (last_ != ~std::uint64_t{0}) wide_threshold_ = (0 - (last_ + 1)) % (last_ + 1);
      return;
    }
    if (spec_.method != Method::batched) return;
    const std::uint64_t s = last_ + 1;
    auto same = [s](int) { return s; };
    batch_plan_ = cut_batch(s, same);
  }

  // Lemire's method on the 64-bit word 2^32 a + b (contract §2).
  std::uint64_t draw_wide() {
    if (last_ == ~std::uint64_t{0}) return words_.next64();
    const std::uint64_t s = last_ + 1;
    unsigned __int128 m = static_cast<unsigned __int128>(words_.next64()) * s;
    while (static_cast<std::uint64_t>(m) < wide_threshold_) m = static_cast<unsigned __int128>(words_.next64()) * s;
    return static_cast<std::uint64_t>(m >> 64);
  }

  template <class Emit>
  void draw(std::uint64_t count, Emit&& emit) {
    drawn_ += count;
    if (wide()) {
      for (; count > 0; --count) emit(draw_wide());
    } else if (spec_.method == Method::batched) {
      batch_.draw_repeated(words_, last_ + 1, batch_plan_, count, emit);
    } else {
      for (; count > 0; --count) emit(internal::bounded_one_a_word(words_, last_ + 1, spec_));
    }
  }

  BufferedStream words_;
  std::uint64_t last_;
  BoundedSpec spec_;
  PlannedBatch batch_plan_{};
  std::uint64_t wide_threshold_ = 0;  // wide ranges: Lemire's rejection threshold
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
