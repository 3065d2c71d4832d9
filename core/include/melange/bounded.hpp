// Bounded integers (contract §2): words from a stream become values in
// [0, s). `batched`, the default, draws several values from one word
// (Brackett-Rozinsky and Lemire 2024); `lemire` draws one value a word; the
// others show bias.
// Every method first narrows the word to its top `bits` bits, so a source of
// width b has 2^b equally likely words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "melange/config.hpp"
#include "melange/internal/dispatch.hpp"

namespace melange {

enum class Method : std::uint8_t { lemire, modulo, rejection, multiply, batched };

// The default is `batched` from melange 0.2 on (contract §2): the
// fewest words for the same exactly uniform draws. `lemire` keeps version-1
// results of 0.1 reproducible, one word a draw.
struct BoundedSpec {
  Method method = Method::batched;
  int bits = 32;  // source width, 1..32
  friend constexpr bool operator==(const BoundedSpec&, const BoundedSpec&) = default;
};

std::string_view method_name(Method m);
std::optional<Method> parse_method(std::string_view name);
// "lemire, modulo, ..." in kAllMethods order, joined by `sep`.
std::string method_names(std::string_view sep);
inline constexpr Method kAllMethods[] = {Method::lemire, Method::modulo, Method::rejection,
                                         Method::multiply, Method::batched};
static_assert(internal::lists_every_value_in_order<kAllMethods>(),
              "kAllMethods lists each Method once, in the enum's order");

// The one dispatch from a run-time Method to compile-time code: calls
// f(std::integral_constant<Method, M>{}), generated from kAllMethods. Host code.
template <class F>
inline decltype(auto) with_method(Method m, F&& f) {
  return internal::dispatch_over<kAllMethods>(m, std::forward<F>(f));
}

// Throws UsageError unless bits is in 1..32 and 1 <= max_range <= 2^bits, and
// bits is 32 for `batched`.
void validate_bounded(BoundedSpec spec, std::uint64_t max_range);

namespace internal {

MELANGE_HD inline std::uint64_t narrow(std::uint32_t word, int bits) {
  return static_cast<std::uint64_t>(word >> (32 - bits));
}

// (2^bits - s) mod s, the count of source words that must be rejected.
// The divisions are 32-bit (s = 2^32 aside, where nothing is rejected): a
// 64-bit remainder is a slow subroutine on a GPU.
MELANGE_HD inline std::uint64_t reject_threshold(std::uint64_t s, int bits) {
  const std::uint64_t span = std::uint64_t{1} << bits;
  if (s > 0xffffffffu) return 0;
  return static_cast<std::uint32_t>(span - s) % static_cast<std::uint32_t>(s);
}

// x s for x < 2^32 and s <= 2^32 as one 32 x 32 -> 64-bit multiply (a single
// wide multiply-add on a GPU, where a 64 x 64 product takes several).
MELANGE_HD inline std::uint64_t product(std::uint64_t x, std::uint64_t s) {
  if (s > 0xffffffffu) return x << 32;
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) * static_cast<std::uint32_t>(s);
}

// x mod s for x < 2^32 and s <= 2^32, in 32-bit arithmetic.
MELANGE_HD inline std::uint32_t remainder(std::uint64_t x, std::uint64_t s) {
  if (s > 0xffffffffu) return static_cast<std::uint32_t>(x);
  return static_cast<std::uint32_t>(x) % static_cast<std::uint32_t>(s);
}

}  // namespace internal

// ---- batched: several draws from one word ---------------------------------

// A batch's ranges multiply to at most this (kBatchProduct, contract §2).
inline constexpr std::uint64_t kBatchProduct = std::uint64_t{1} << 24;
// Ranges in one batch: 24 of at least 2, and room for ranges of 1.
inline constexpr int kMaxBatch = 32;
// Coins from one word under `batched`: bit 31 - i is coin i.
inline constexpr int kCoinsPerWord = 24;
// Batches of up to this many draws are unrolled where a batch's size is
// made a constant (the scalar draws' runs of one range, the SIMD kernel's
// digits): every batch of ranges from 8 up, as 8^8 = kBatchProduct.
inline constexpr int kUnrolledBatch = 8;

namespace internal {

// One batch on `Bits`-bit words (32 in every stream; narrower in the tests
// that walk every word): from word x0, the mixed-radix digits of
// floor(x0 * P / 2^Bits) for ranges[0..count), and whether x0 is accepted
// (Lemire's test on P: the final x is x0 * P mod 2^Bits).
template <int Bits>
MELANGE_HD inline bool batch_digits(std::uint64_t x0, const std::uint64_t* ranges, int count,
                                    std::uint64_t product, std::uint32_t* digits) {
  constexpr std::uint64_t kMask = (std::uint64_t{1} << Bits) - 1;
  std::uint64_t x = x0;
  for (int i = 0; i < count; ++i) {
    const std::uint64_t m = x * ranges[i];
    digits[i] = static_cast<std::uint32_t>(m >> Bits);
    x = m & kMask;
  }
  return !(x < product && x < reject_threshold(product, Bits));
}

}  // namespace internal

// One batch of a draw schedule, with what its rejection test needs: P and
// 2^32 mod P, worked out once per job (planned_batches in source.hpp) so
// that a trial that reads the plan makes no division.
struct PlannedBatch {
  std::uint64_t product;   // P, at most 2^32 (a range above 2^24 is a batch of one)
  std::uint32_t threshold; // 2^32 mod P: Lemire's rejection threshold for P
  std::uint32_t count;     // the draws it serves
};

// The batch that starts at a draw of range s, `ahead(j)` the range j draws
// later (0: none): s, then each next range while the product stays at most
// kBatchProduct. A range above 2^24 is a batch of one, P <= 2^32.
template <class Ahead>
MELANGE_HD inline PlannedBatch cut_batch(std::uint64_t s, Ahead& ahead) {
  std::uint64_t product = s;
  std::uint32_t count = 1;
  for (int j = 1; count < kMaxBatch; ++j) {
    const std::uint64_t r = ahead(j);
    if (r == 0 || product > kBatchProduct / r) break;  // product * r > kBatchProduct, without overflow
    ++count;
    product *= r;
  }
  return PlannedBatch{product, static_cast<std::uint32_t>(internal::reject_threshold(product, 32)), count};
}

// Draws along a known sequence of ranges, a batch at a time: `ahead(j)` is the
// range of the j-th draw after the current one (0 when there is none). The
// first range of a batch is always taken; the next while the product stays
// <= kBatchProduct. A rejected batch is redrawn whole before any digit is used.
//
// The digits come lazily: the batch's final x is x0 P mod 2^32, so the
// rejection test is made on the word before any digit is taken, and then
// each draw is one multiply of what is left (the digits of batch_digits, in
// the same order). No array: on a GPU the state stays in registers.
class BatchedDraws {
 public:
  BatchedDraws() = default;
  // Resumes a plan at its batch `first_batch`, the batches before it drawn
  // elsewhere: a SIMD lane's, up to the first word the lane rejected.
  MELANGE_HD explicit BatchedDraws(int first_batch) : batch_(first_batch) {}

  template <class WordSource, class Ahead>
  MELANGE_HD std::uint32_t next(WordSource& words, std::uint64_t s, Ahead&& ahead) {
    if (left_ == 0) refill(words, s, ahead);
    --left_;
    return digit(s);
  }

  // `count` draws of one range s whose every batch is b (an endless
  // schedule of s, as BoundedIntegers draws), each handed to emit: next()'s
  // draws, a whole batch's digits in a loop of their own rather than a
  // test for an empty batch a draw.
  template <class WordSource, class Emit>
  void draw_repeated(WordSource& words, std::uint64_t s, const PlannedBatch& b, std::uint64_t count, Emit&& emit) {
    for (; count > 0 && left_ > 0; --count, --left_) emit(digit(s));
    // Digit j of a word x0 is the high half of (x0 s^j mod 2^32) s: each
    // digit two multiplies of its own, where digit() chains every digit on
    // the one before (a multiply's latency a digit).
    std::uint32_t powers[kMaxBatch];
    std::uint32_t power = 1;
    for (std::uint32_t j = 0; j < b.count; ++j, power *= static_cast<std::uint32_t>(s)) powers[j] = power;
    // A batch of at most kUnrolledBatch draws has its size as a constant:
    // its digits unrolled, no loop test a digit.
    const std::uint64_t batches = count / b.count;
    [&]<std::uint32_t... K>(std::integer_sequence<std::uint32_t, K...>) {
      if (!((b.count == K + 1 && (full_batches<K + 1>(words, s, b, powers, batches, emit), true)) || ...))
        full_batches<0>(words, s, b, powers, batches, emit);
    }(std::make_integer_sequence<std::uint32_t, kUnrolledBatch>{});
    count -= batches * b.count;
    if (count == 0) return;
    draw_word(words, b.product, b.threshold);
    left_ = static_cast<int>(b.count - count);
    for (; count > 0; --count) emit(digit(s));
  }

  // The same draws along a plan of the schedule's batches: batches[i] is
  // the i-th batch refill() would cut (planned_batches). The product and the
  // threshold are read, not computed: no division a batch.
  template <class WordSource, class Batches>
  MELANGE_HD std::uint32_t next_planned(WordSource& words, std::uint64_t s, const Batches& batches) {
    if (left_ == 0) {
      const PlannedBatch b = batches[batch_++];
      left_ = static_cast<int>(b.count);
      draw_word(words, b.product, b.threshold);
    }
    --left_;
    return digit(s);
  }

 private:
  // `batches` whole batches of plan b, K draws each (0: b.count).
  template <std::uint32_t K, class WordSource, class Emit>
  void full_batches(WordSource& words, std::uint64_t s, const PlannedBatch& b, const std::uint32_t* powers,
                    std::uint64_t batches, Emit& emit) {
    const std::uint32_t k = K == 0 ? b.count : K;
    for (; batches > 0; --batches) {
      draw_word(words, b.product, b.threshold);
      for (std::uint32_t j = 0; j < k; ++j)
        emit(static_cast<std::uint32_t>(internal::product(x_ * powers[j], s) >> 32));
    }
  }

  // The next digit of the batch's word for range s.
  MELANGE_HD std::uint32_t digit(std::uint64_t s) {
    const std::uint64_t m = internal::product(x_, s);
    x_ = static_cast<std::uint32_t>(m);
    return static_cast<std::uint32_t>(m >> 32);
  }

  // The batch's word: Lemire's test on P, redrawn until it passes. Inlined
  // by force: a call a word was half the time of a run of integers.
  template <class WordSource>
  MELANGE_HD_FORCE_INLINE void draw_word(WordSource& words, std::uint64_t product, std::uint64_t threshold) {
    for (;;) {
      x_ = words.next();
      const std::uint64_t low = internal::product(x_, product) & 0xffffffffu;
      if (!(low < product && low < threshold)) break;
    }
  }

  template <class WordSource, class Ahead>
  MELANGE_HD void refill(WordSource& words, std::uint64_t s, Ahead& ahead) {
    const PlannedBatch b = cut_batch(s, ahead);
    left_ = static_cast<int>(b.count);
    draw_word(words, b.product, b.threshold);
  }

  std::uint32_t x_ = 0;  // what is left of the batch's word
  int left_ = 0;         // draws the batch still serves
  int batch_ = 0;        // next_planned: the batches begun
};

// A value in [0, s) drawn from `words` (anything with next() -> uint32).
// Requires 1 <= s <= 2^spec.bits (see validate_bounded). `batched` drawn one
// at a time is a batch of one range: Lemire's method, word for word.
namespace internal {

// The methods that read a word a draw (every one but `batched`).
template <class WordSource>
MELANGE_HD inline std::uint32_t bounded_one_a_word(WordSource& words, std::uint64_t s, BoundedSpec spec) {
  const int b = spec.bits;
  const std::uint64_t low_mask = (std::uint64_t{1} << b) - 1;
  switch (spec.method) {
    case Method::lemire: {
      std::uint64_t m = product(internal::narrow(words.next(), b), s);
      std::uint64_t l = m & low_mask;
      if (l < s) {
        const std::uint64_t t = internal::reject_threshold(s, b);
        while (l < t) {
          m = product(internal::narrow(words.next(), b), s);
          l = m & low_mask;
        }
      }
      return static_cast<std::uint32_t>(m >> b);
    }
    case Method::modulo:
      return remainder(internal::narrow(words.next(), b), s);
    case Method::rejection: {
      const std::uint64_t t = internal::reject_threshold(s, b);
      std::uint64_t x = internal::narrow(words.next(), b);
      while (x < t) x = internal::narrow(words.next(), b);
      return remainder(x, s);
    }
    case Method::multiply:
      return static_cast<std::uint32_t>(product(internal::narrow(words.next(), b), s) >> b);
    case Method::batched: break;
  }
  return 0;
}

}  // namespace internal

template <class WordSource>
MELANGE_HD inline std::uint32_t bounded(WordSource& words, std::uint64_t s, BoundedSpec spec) {
  if (spec.method != Method::batched) return internal::bounded_one_a_word(words, s, spec);
  BatchedDraws one;
  return one.next(words, s, [](int) { return std::uint64_t{0}; });
}

// Exact law of one draw, used by the exact enumerator: value v of bounded(s)
// occurs with probability weight(v) / total, and a draw reads
// words_num / words_den source words on average. The tests check this against
// an exhaustive walk over every source word.
struct DrawLaw {
  std::uint64_t s;
  BoundedSpec spec;
  std::uint64_t total;      // s for the unbiased methods, 2^bits for the biased ones
  std::uint64_t words_num;  // mean words per draw = words_num / words_den
  std::uint64_t words_den;

  std::uint64_t weight(std::uint64_t v) const;
  bool uniform() const { return total == s; }
  // Every value equally likely: the unbiased methods, and the biased ones
  // where s divides 2^bits (x mod s and x s / 2^bits then meet each value
  // from 2^bits / s words).
  bool exactly_uniform() const { return total % s == 0; }
};

DrawLaw draw_law(std::uint64_t s, BoundedSpec spec);

}  // namespace melange
