// The deck path of the vector kernel, where the lanes hold a deck a
// register (Lanes::inverse_decks, AVX-512 VBMI): each lane's inverse
// permutation built in a register and its positions counted from it.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel_draws-inl.hpp"

namespace melange::simd::internal {

template <class Arch>
struct DeckPath {
  using D = LaneDraws<Arch>;
  using L = typename D::L;
  using u32 = typename D::u32;
  static constexpr int kLanes = D::kLanes;

  // True where the lanes hold a deck a register (Lanes::inverse_decks) and
  // the job fits it: a whole permutation of at most kDeckItems items made
  // by swaps (not a card shuffle's sorted keys), with no kind but positions
  // (a rank, or a record's statistics, needs the permutation, not its
  // inverse).
  static constexpr bool kDecks = requires { L::kDeckItems; };
  static bool decks_fit(const Plan& p, const Tally& tally) {
    if constexpr (kDecks)
      return !is_deal(p.job) && p.job.n <= L::kDeckItems && !p.sorts_keys &&
             tally[TallyKind::ranks].empty() && lane_kinds_only(p.job.tallies);
    return false;
  }

  // n up to 64 on VBMI: each lane's inverse permutation built in a register
  // and its positions counted from it. Returns the trials counted here.
  template <Method M>
  static std::uint64_t tally_decks(const Plan& p, std::uint64_t begin, std::uint64_t full, Tally& tally) {
    std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>> digits(p.draws.size() * kLanes);
    alignas(64) std::uint8_t inverse[kLanes * 64];
    const bool want_positions = !tally[TallyKind::positions].empty();
    typename L::DeckCounters c(p.job.n);
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      u32 reject(0u);
      tally.words += D::template lane_digits<M>(p, t, reject, digits.data());  // leaves no lane rejected
      if (!want_positions) continue;
      L::inverse_decks(p, digits.data(), inverse);
      c.add_group(inverse);
      if (c.full()) c.drain(tally);
    }
    if (want_positions) c.flush(tally);
    return full - begin;
  }
};

}  // namespace melange::simd::internal
