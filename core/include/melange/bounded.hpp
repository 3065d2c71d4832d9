// Bounded integers (DESIGN.md section 2): words from a stream become values in
// [0, s). `lemire` is the unbiased default; the others exist to show bias.
// Every method first narrows the word to its top `bits` bits, so a source of
// width b has 2^b equally likely words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "melange/config.hpp"

namespace melange {

enum class Method : std::uint8_t { lemire, modulo, rejection, multiply };

struct BoundedSpec {
  Method method = Method::lemire;
  int bits = 32;  // source width, 1..32
  friend constexpr bool operator==(const BoundedSpec&, const BoundedSpec&) = default;
};

std::string_view method_name(Method m);
std::optional<Method> parse_method(std::string_view name);
// "lemire, modulo, ..." in kAllMethods order, joined by `sep`.
std::string method_names(std::string_view sep);
inline constexpr Method kAllMethods[] = {Method::lemire, Method::modulo, Method::rejection,
                                         Method::multiply};

// Throws UsageError unless bits is in 1..32 and 1 <= max_range <= 2^bits.
void validate_bounded(BoundedSpec spec, std::uint64_t max_range);

namespace internal {

MELANGE_HD inline std::uint64_t narrow(std::uint32_t word, int bits) {
  return static_cast<std::uint64_t>(word >> (32 - bits));
}

// (2^bits - s) mod s, the count of source words that must be rejected.
MELANGE_HD inline std::uint64_t reject_threshold(std::uint64_t s, int bits) {
  const std::uint64_t span = std::uint64_t{1} << bits;
  return (span - s) % s;
}

}  // namespace internal

// A value in [0, s) drawn from `words` (anything with next() -> uint32).
// Requires 1 <= s <= 2^spec.bits (see validate_bounded).
template <class WordSource>
MELANGE_HD inline std::uint32_t bounded(WordSource& words, std::uint64_t s, BoundedSpec spec) {
  const int b = spec.bits;
  const std::uint64_t low_mask = (std::uint64_t{1} << b) - 1;
  switch (spec.method) {
    case Method::lemire: {
      std::uint64_t m = internal::narrow(words.next(), b) * s;
      std::uint64_t l = m & low_mask;
      if (l < s) {
        const std::uint64_t t = internal::reject_threshold(s, b);
        while (l < t) {
          m = internal::narrow(words.next(), b) * s;
          l = m & low_mask;
        }
      }
      return static_cast<std::uint32_t>(m >> b);
    }
    case Method::modulo:
      return static_cast<std::uint32_t>(internal::narrow(words.next(), b) % s);
    case Method::rejection: {
      const std::uint64_t t = internal::reject_threshold(s, b);
      std::uint64_t x = internal::narrow(words.next(), b);
      while (x < t) x = internal::narrow(words.next(), b);
      return static_cast<std::uint32_t>(x % s);
    }
    case Method::multiply:
      return static_cast<std::uint32_t>((internal::narrow(words.next(), b) * s) >> b);
  }
  return 0;
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
};

DrawLaw draw_law(std::uint64_t s, BoundedSpec spec);

}  // namespace melange
