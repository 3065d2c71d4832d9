// AVX-512 with VBMI's byte permutes: the lanes of AVX-512 (F, BW, DQ), plus
// decks of up to 64 items held in registers, a byte an item. xsimd 8.1
// has no VBMI architecture, so the tag below names these lanes and their
// batches stay AVX-512 BW's. Include only where the VBMI flags are on.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "deck_counters_avx512.hpp"
#include "deck_swaps_avx512vbmi.hpp"
#include "lanes_avx512.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

// The architecture tag of the VBMI kernels.
struct avx512vbmi {};

template <>
struct Lanes<avx512vbmi> : Lanes<xsimd::avx512bw> {
  // Decks of at most this many items fit a register, a byte an item.
  static constexpr int kDeckItems = 64;

  // The counters the decks' positions go into.
  using DeckCounters = internal::DeckCounters;
  // Both take a group of trials as the lanes hold it.
  static_assert(DeckCounters::kTrials == u32::size && deck_avx512vbmi::kLanes == u32::size);

  // The inverses of the sixteen lanes' permutations, built in registers
  // (deck_swaps_avx512vbmi.hpp): out[lane * 64 + item] = the item's position.
  static void inverse_decks(const Plan& p, const std::uint32_t* digits, std::uint8_t* out) {
    deck_avx512vbmi::inverse_decks(p, digits, out);
  }
};

}  // namespace melange::simd::internal
