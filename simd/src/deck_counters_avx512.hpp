// Position counts of the decks in registers (lanes_avx512vbmi.hpp), kept as
// bit planes. Include only where the AVX-512 flags are on.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "melange/job.hpp"

namespace melange::simd::internal {

// counts[item][position] for decks of up to 64 items, sixteen trials a
// group (kernel.hpp's tally_decks). An item's position in a trial is one
// bit of a 64-bit word, 1 << position, and eight items' words fill a
// 512-bit vector. Sixteen trials' words go through a Harley-Seal tree of
// carry-save adders (two ternary-logic instructions each) into four planes
// that hold every cell's count mod 16 as bits of weight 1, 2, 4 and 8; what
// carries out of the top is a plane of 16s, added to a byte a cell. At
// n = 52 a trial's count is about 86 instructions (197 a vector of items
// for the group's 16 trials), few of them loads or stores, where one
// scalar increment a cell took 104 loads and 52 stores: a third of the time.
struct DeckCounters {
  static constexpr int kItems = 64;
  static constexpr int kGroupItems = 8;  // items to a vector, a 64-bit word each
  static constexpr int kGroups = kItems / kGroupItems;
  static constexpr int kTrials = 16;     // a group's trials, the tree's inputs
  // The 16s bytes take at most one a group: drained before they wrap.
  static constexpr std::uint64_t kGroupsPerDrain = 255;

  int n;
  int groups;                   // vectors of items the job fills
  std::uint64_t batches = 0;    // groups added since the last drain
  __m512i planes[kGroups][4];   // bits of weight 1, 2, 4, 8
  alignas(64) std::uint8_t sixteens[kItems][kItems];  // [item][position], in 16s

  explicit DeckCounters(int n_) : n(n_), groups((n_ + kGroupItems - 1) / kGroupItems) {
    for (auto& g : planes)
      for (auto& plane : g) plane = _mm512_setzero_si512();
    std::memset(sixteens, 0, sizeof sixteens);
  }

  // Adds the trials of a group (every one counts: lane_digits leaves no
  // lane rejected): inverse[trial * 64 + item] = the item's position.
  void add_group(const std::uint8_t* inverse) {
    const __m512i one = _mm512_set1_epi64(1);
    for (int g = 0; g < groups; ++g) {
      __m512i x[kTrials];
      for (int l = 0; l < kTrials; ++l) {
        const __m128i positions = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(inverse + 64 * l + 8 * g));
        x[l] = _mm512_sllv_epi64(one, _mm512_cvtepu8_epi64(positions));
      }
      add_sixteens(g, add_tree(planes[g], x));
    }
    ++batches;
  }
  bool full() const { return batches == kGroupsPerDrain; }

  // The 16s into the tally.
  void drain(Tally& tally) {
    std::uint64_t* to = tally[TallyKind::positions].counts().data();
    for (int v = 0; v < n; ++v)
      for (int pos = 0; pos < n; ++pos) to[static_cast<std::size_t>(v) * n + pos] += 16u * sixteens[v][pos];
    std::memset(sixteens, 0, sizeof sixteens);
    batches = 0;
  }
  // Everything into the tally: the 16s and the planes.
  void flush(Tally& tally) {
    drain(tally);
    std::uint64_t* to = tally[TallyKind::positions].counts().data();
    for (int g = 0; g < groups; ++g) {
      alignas(64) std::uint64_t bits[4][kGroupItems];
      for (int w = 0; w < 4; ++w) {
        _mm512_store_si512(bits[w], planes[g][w]);
        planes[g][w] = _mm512_setzero_si512();
      }
      for (int q = 0; q < kGroupItems && g * kGroupItems + q < n; ++q) {
        const int v = g * kGroupItems + q;
        for (int pos = 0; pos < n; ++pos) {
          std::uint64_t count = 0;
          for (int w = 0; w < 4; ++w) count += ((bits[w][q] >> pos) & 1u) << w;
          to[static_cast<std::size_t>(v) * n + pos] += count;
        }
      }
    }
  }

 private:
  // A carry-save adder: a + b + c = 2 carry + sum, bit by bit.
  static void csa(__m512i& carry, __m512i& sum, __m512i a, __m512i b, __m512i c) {
    carry = _mm512_ternarylogic_epi64(a, b, c, 0xE8);  // majority
    sum = _mm512_ternarylogic_epi64(a, b, c, 0x96);    // parity
  }
  // Adds sixteen words to the planes; returns the plane of 16s.
  static __m512i add_tree(__m512i (&plane)[4], const __m512i (&x)[kTrials]) {
    __m512i& ones = plane[0];
    __m512i& twos = plane[1];
    __m512i& fours = plane[2];
    __m512i& eights = plane[3];
    __m512i twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
    for (int half = 0; half < 2; ++half) {
      const __m512i* in = x + 8 * half;
      csa(twos_a, ones, ones, in[0], in[1]);
      csa(twos_b, ones, ones, in[2], in[3]);
      csa(fours_a, twos, twos, twos_a, twos_b);
      csa(twos_a, ones, ones, in[4], in[5]);
      csa(twos_b, ones, ones, in[6], in[7]);
      csa(fours_b, twos, twos, twos_a, twos_b);
      csa(half == 0 ? eights_a : eights_b, fours, fours, fours_a, fours_b);
    }
    csa(sixteens, eights, eights, eights_a, eights_b);
    return sixteens;
  }
  // One 16 for each set bit: a bit's word becomes a byte mask, 0xFF a cell.
  void add_sixteens(int g, __m512i plane) {
    alignas(64) std::uint64_t words[kGroupItems];
    _mm512_store_si512(words, plane);
    for (int q = 0; q < kGroupItems && g * kGroupItems + q < n; ++q) {
      auto* row = reinterpret_cast<__m512i*>(sixteens[g * kGroupItems + q]);
      _mm512_store_si512(row, _mm512_sub_epi8(_mm512_load_si512(row), _mm512_movm_epi8(_cvtu64_mask64(words[q]))));
    }
  }
};

}  // namespace melange::simd::internal
