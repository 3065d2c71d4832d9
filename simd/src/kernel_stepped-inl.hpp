// The kernel's draws of a group with the cipher a step at a time
// (SteppedDigits), for a caller that lays other work between the steps:
// kernel_wide-inl.hpp's count_slots runs the next group's cipher between
// this group's swaps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernel_draws-inl.hpp"
#include "kernel_inline.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

// lane_digits with its cipher a step at a time, for a caller that lays
// other work between the steps (count_slots runs the next group's cipher
// between this group's swaps): a step is kRoundsAStep Philox rounds of
// the block at hand, whose words are kept once its rounds are done, and
// finish() makes the digits from them (DigitRows). The swaps wait on
// their loads and stores, the rounds on their multiplies' latency, and
// side by side the rounds cost next to nothing: n = 52 on AVX2 (Zen 5,
// 30 million trials), the swaps alone took 0.72 s, with the rounds
// between them 0.75 s, and the cipher, digits and swaps one after the
// other 1.08 s. The digits are made apart, after the swaps: laid between
// them as well, a row a step, their loads and stores beside the swaps'
// made the whole 1.07 s against 1.00 s apart. Under the methods of a
// word a draw (n words a trial, not 11) the steps' words kept were as
// many stores as the digits, beside the swaps', and made the whole 6%
// slower: there finish() draws the group whole, as lane_digits does.
template <class Arch, Method M>
class SteppedDigits {
  using D = LaneDraws<Arch>;
  using L = typename D::L;
  using u32 = typename D::u32;
  using Philox = typename D::Philox;
  static constexpr int kLanes = D::kLanes;

 public:
  static constexpr int kRoundsAStep = 2;
  static_assert(philox::kRounds % kRoundsAStep == 0);

  static constexpr bool kStepped = M == Method::batched;

  // The group's Philox blocks, and its steps.
  static std::size_t blocks(const Plan& p) { return kStepped ? (p.words.size() + 3) / 4 : 0; }
  static std::size_t steps(const Plan& p) { return blocks(p) * (philox::kRounds / kRoundsAStep); }
  // The digits a group needs room for: its draws' and the spare slot
  // (DigitRows); the words kept, a block's four words as even and odd lanes.
  static std::size_t digits_size(const Plan& p) { return (p.draws.size() + 1) * kLanes; }
  static std::size_t words_size(const Plan& p) { return blocks(p) * 8 * kLanes; }

  // The draws of trials first, first + 1, ... into `digits` (digits_size),
  // a byte each (the caller's items are bytes: LaneDraws::store_digits),
  // by way of `words` (words_size); with `wanted` false, none (done() from
  // the start).
  MELANGE_LANE_INLINE SteppedDigits(const Plan& p, std::uint64_t first, std::uint32_t* words,
                                    std::uint8_t* digits, bool wanted)
      : p_(p), first_(first), words_(words), digits_(digits), streams_(first),
        blocks_(wanted ? blocks(p) : 0), wanted_(wanted) {
    streams_.counters(0, even_[0], odd_[0]);
  }

  MELANGE_LANE_INLINE bool done() const { return block_ >= blocks_; }

  // Call only while !done() (never, where not kStepped).
  MELANGE_LANE_INLINE void step() {
    if constexpr (kStepped) rounds();
  }

  // The steps left, the digits, and the lanes that rejected a word
  // resumed (resume_lanes): every lane's digits are the contract's.
  // Returns the words the resumed lanes read beyond words_per_trial.
  MELANGE_LANE_INLINE std::uint64_t finish() {
    if constexpr (kStepped) {
      while (!done()) rounds();
      for (std::size_t b = 0; b < blocks_; ++b) {
        u32 e[4], o[4];
        for (int w = 0; w < 4; ++w) {
          e[w] = u32::load_aligned(words_ + (8 * b + 2 * w) * kLanes);
          o[w] = u32::load_aligned(words_ + (8 * b + 2 * w + 1) * kLanes);
        }
        block_digits(b, e, o);
      }
      if (!p_.may_reject || !blocks_ || !L::any(reject_)) return 0;
      return D::template resume_lanes<M>(p_, first_, first_rejected_, digits_);
    } else {
      u32 reject(0u);
      return wanted_ ? D::template lane_digits<M>(p_, first_, reject, digits_) : 0;
    }
  }

 private:
  // A step: kRoundsAStep rounds, and the block's words kept once its
  // rounds are done.
  MELANGE_LANE_INLINE void rounds() {
#pragma GCC unroll 10
    for (int r = 0; r < kRoundsAStep; ++r) Philox::round_slots(p_, round_ + r, even_, odd_);
    round_ += kRoundsAStep;
    if (round_ < philox::kRounds) return;
    std::uint32_t* kept = words_ + block_ * 8 * kLanes;
    for (int w = 0; w < 4; ++w) {
      even_[0][w].store_aligned(kept + (2 * w) * kLanes);
      odd_[0][w].store_aligned(kept + (2 * w + 1) * kLanes);
    }
    round_ = 0;
    if (++block_ < blocks_) streams_.counters(block_, even_[0], odd_[0]);
  }

  // Block b's words' batches side by side, a row at a time (the plan's
  // DigitRows).
  MELANGE_LANE_INLINE void block_digits(std::size_t b, u32 (&e)[4], u32 (&o)[4]) {
    static_assert(DigitRows::kWords == 4, "a Philox block's words");
    const DigitRows::Block& block = p_.digit_rows.blocks[b];
    const DigitRows::Row* row = p_.digit_rows.rows.data() + block.first_row;
    for (std::size_t r = 0; r < block.rows; ++r, ++row)
      for (std::size_t w = 0; w < DigitRows::kWords; ++w) {
        const u32 s(row->s[w]);
        e[w] = L::even_products(e[w], s);
        o[w] = L::even_products(o[w], s);
        D::store_digits(L::products_high(e[w], o[w]), digits_ + std::size_t{row->out[w]} * kLanes);
      }
    reject_test(b, block, e, o);
  }

  // The block's words' rejection tests (LaneDraws::kept_lanes); a block
  // rejects in few groups, so its lanes are noted only then.
  MELANGE_LANE_INLINE void reject_test(std::size_t b, const DigitRows::Block& block, const u32 (&e)[4],
                                       const u32 (&o)[4]) {
    u32 kept[4];
    for (int w = 0; w < 4; ++w) kept[w] = D::kept_lanes(e[w], o[w], block.threshold[w]);
    if (L::all((kept[0] & kept[1]) & (kept[2] & kept[3]))) [[likely]]
      return;
    for (int w = 0; w < 4; ++w)
      D::note_word_rejected(kept[w], b * 4 + static_cast<std::size_t>(w), reject_, first_rejected_);
  }

  const Plan& p_;
  std::uint64_t first_;
  std::uint32_t* words_;
  std::uint8_t* digits_;
  typename Philox::Streams streams_;
  std::size_t blocks_, block_ = 0;
  bool wanted_;
  int round_ = 0;
  u32 even_[1][4], odd_[1][4];
  u32 reject_ = u32(0u), first_rejected_ = u32(~0u);
};

}  // namespace melange::simd::internal
