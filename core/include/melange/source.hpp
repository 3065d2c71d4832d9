// Randomness sources that the shuffle algorithms draw from. An algorithm asks
// only two questions: bounded(s), a value in [0, s), and less(), a comparator
// coin. PhiloxSource answers them from a trial's stream; the exact enumerator
// (exact.hpp) answers them by walking every outcome.
#pragma once

#include <cstdint>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/config.hpp"
#include "melange/stream.hpp"

namespace melange {

// Trial t of a job: stream t under the job's seed, drawn through one bounded method.
class PhiloxSource {
 public:
  MELANGE_HD PhiloxSource(std::uint64_t seed, std::uint64_t trial, BoundedSpec spec)
      : stream_(seed, trial), spec_(spec) {}

  MELANGE_HD std::uint32_t bounded(std::uint64_t s) { return melange::bounded(stream_, s, spec_); }

  // Models `Math.random() - 0.5 < 0`: "less" when the word's top bit is 0.
  MELANGE_HD bool less() { return (stream_.next() >> 31) == 0; }

  MELANGE_HD std::uint64_t words_consumed() const { return stream_.words_consumed(); }

 private:
  PhiloxStream stream_;
  BoundedSpec spec_;
};
static_assert(RandomSource<PhiloxSource>);

}  // namespace melange
