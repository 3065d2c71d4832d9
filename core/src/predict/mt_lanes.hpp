// MT19937's first outputs for many seeds at once: the searches over
// std::mt19937(seed), mt_srand(seed) and CPython's random.seed(seed) spend
// their time seeding. An output m of the first generation needs the seeded
// words m, m + 1 and m + 397: init_genrand's word 397 is 397 dependent
// multiplications from the seed, and init_by_array mixes all 624 words
// twice. One seed's chain waits on each multiplication; kMtLanes chains
// side by side keep the multipliers busy, and the compiler makes vector
// lanes of them (for the widest vectors the CPU has, chosen at run time).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "generators.hpp"

namespace melange::predict::internal {

inline constexpr int kMtLanes = 128;
// Outputs a lane makes ahead, at most: more than a 52-card deck's shuffle
// reads in any family here (libstdc++'s pairs read 26; PHP's and
// CPython's shuffles stop at their first card that differs). A shuffle
// that reads more goes on from a generator seeded afresh. Where the first
// output decides nearly every seed (a deck's bottom card seen), a few are
// enough: kMtFewOutputs, and 40 fewer seeding steps a lane.
inline constexpr int kMtOutputs = 48, kMtFewOutputs = 8;

// out[m * kMtLanes + lane] = output m of std::mt19937(seeds[lane]), for
// m < outputs <= kMtOutputs.
void mt19937_first_outputs(const std::uint32_t (&seeds)[kMtLanes], int outputs, std::uint32_t* out);

// The same after CPython's random.seed(seeds[lane]) (init_by_array of the
// seed's words); every seed's key has key_size words (1: below 2^32).
// `state` is scratch, kept between calls.
void mt19937_by_array_first_outputs(const std::uint64_t (&seeds)[kMtLanes], std::size_t key_size, int outputs,
                                    std::vector<std::uint32_t>& state, std::uint32_t* out);

// MT19937 read from one lane's `ahead` outputs, then past them from a
// generator seeded afresh (by `seeded`) and wound on: the same words as
// seeded(seed).
class Mt19937Replay {
 public:
  Mt19937Replay(const std::uint32_t* lane_outputs, Mt19937 (*seeded)(std::uint64_t), std::uint64_t seed, int ahead)
      : outputs_(lane_outputs), seeded_(seeded), seed_(seed), ahead_(ahead) {}
  std::uint32_t next() {
    if (at_ < ahead_) return outputs_[kMtLanes * at_++];
    if (!more_) {
      more_.emplace(seeded_(seed_));
      for (int i = 0; i < ahead_; ++i) more_->next();
    }
    return more_->next();
  }

 private:
  const std::uint32_t* outputs_;
  Mt19937 (*seeded_)(std::uint64_t);
  std::uint64_t seed_;
  int ahead_, at_ = 0;
  std::optional<Mt19937> more_;
};

}  // namespace melange::predict::internal
