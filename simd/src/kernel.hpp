// The vector kernel, written once for any lane width: one trial per lane,
// Philox4x32-10 and the bounded draw computed across lanes, the permutation
// kept in a register (four bits an item) for small n, or applied per lane in
// memory for larger n. A lane that rejects a word takes the contract's
// scalar draws from that word on (resume_lane), or, where the draws are not
// stored first (packed permutations, card shuffles, tables), has its whole
// trial re-run on the scalar reference path; so the words consumed are
// always the contract's. Included only by the per-architecture .cpp files.
//
// Its pieces, each a struct of the same Arch: kernel_philox-inl.hpp (the
// cipher across lanes), kernel_draws-inl.hpp (bounded draws, batches, and
// the scalar reference where a lane rejects), kernel_counters-inl.hpp
// (lane-private tallies), and one a path: kernel_packed-inl.hpp,
// kernel_wide-inl.hpp (with kernel_cards-inl.hpp), kernel_decks-inl.hpp,
// kernel_tables-inl.hpp, kernel_sampling-inl.hpp. This file picks the path
// for a job and holds the entry points (KernelEntry).
#pragma once

#include <cstdint>

#include "kernel_decks-inl.hpp"
#include "kernel_draws-inl.hpp"
#include "kernel_entry.hpp"
#include "kernel_packed-inl.hpp"
#include "kernel_sampling-inl.hpp"
#include "kernel_tables-inl.hpp"
#include "kernel_wide-inl.hpp"

namespace melange::simd::internal {

template <class Arch>
struct Kernel {
  using D = LaneDraws<Arch>;
  using L = typename D::L;
  using u32 = typename D::u32;
  static constexpr int kLanes = D::kLanes;
  using Philox = LanePhilox<Arch>;
  using P = PackedPath<Arch>;
  using W = WidePath<Arch>;
  using Decks = DeckPath<Arch>;
  using T = TablePath<Arch>;
  using S = SamplingPath<Arch>;

  template <Method M>
  static void tally_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Tally& tally) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    const std::uint64_t clean =
        packed(p.job) ? D::with_packed_n(p.job.n, [&](auto n) { return P::template tally_packed<M, n()>(p, begin, full, tally); })
        : Decks::decks_fit(p, tally) ? tally_decks<M>(p, begin, full, tally)
                                     : W::template tally_wide<M>(p, begin, full, tally);
    tally.trials += clean;
    tally.words += clean * p.words_per_trial;
    tally.draws += clean * p.draws.size();
    if (full != end) p.reference->tally(full, end, tally);
  }

  // The deck path where the lanes have one (DeckPath::kDecks), else none.
  template <Method M>
  static std::uint64_t tally_decks(const Plan& p, std::uint64_t begin, std::uint64_t full, Tally& tally) {
    if constexpr (Decks::kDecks) return Decks::template tally_decks<M>(p, begin, full, tally);
    throw Error("internal: no deck path on this architecture");
  }

  static void tally(const Plan& p, std::uint64_t begin, std::uint64_t end, Tally& t) {
    if (p.table.perms) return T::tally_table_range(p, begin, end, t);
    with_method(p.job.spec.method, [&](auto m) { tally_range<decltype(m)::value>(p, begin, end, t); });
  }

  static void sample(const Plan& p, std::uint64_t begin, std::uint64_t end, std::uint16_t* out) {
    S::sample_items(p, begin, end, out);
  }

  // Rows as bytes, straight from the lanes: for jobs whose permutation is
  // packed, and card shuffles (rows_as_bytes); the dispatcher narrows the other
  // paths' rows.
  static void sample_bytes(const Plan& p, std::uint64_t begin, std::uint64_t end, std::uint8_t* out) {
    S::sample_items(p, begin, end, out);
  }

  // Raw words, for the benchmarks and the lane tests.
  static void words(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                    int words_per_stream, std::uint32_t* out) {
    Job job;
    job.seed = seed;
    const Plan p = make_plan(job);
    const std::uint64_t full = streams / kLanes * kLanes;
    for (std::uint64_t s = 0; s < full; s += kLanes)
      Philox::for_each_word(p, first + s, static_cast<std::size_t>(words_per_stream),
                    [&](std::size_t k, const u32& word) {
                      alignas(64) std::uint32_t lane[kLanes];
                      word.store_aligned(lane);
                      for (int l = 0; l < kLanes; ++l) out[(s + l) * words_per_stream + k] = lane[l];
                    });
    for (std::uint64_t s = full; s < streams; ++s) {
      PhiloxStream st(seed, first + s);
      for (int k = 0; k < words_per_stream; ++k) out[s * words_per_stream + k] = st.next();
    }
  }

  // Blocks first_block, first_block + 1, ... of one stream, a block a lane
  // (counter words 0 and 1 differ across the lanes, 2 and 3 are the
  // stream's), two groups of lanes a step; out[4 i + w] is word w of block
  // first_block + i, as PhiloxStream reads them.
  static void blocks(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block, std::uint64_t blocks,
                     std::uint32_t* out) {
    const Plan p = key_plan(seed);
    constexpr int kGroups = 2;
    const u32 stream_lo(static_cast<std::uint32_t>(stream)), stream_hi(static_cast<std::uint32_t>(stream >> 32));
    const std::uint64_t full = blocks / (kGroups * kLanes) * (kGroups * kLanes);
    for (std::uint64_t b = 0; b < full; b += kGroups * kLanes) {
      u32 c[kGroups][4];
      for (int g = 0; g < kGroups; ++g) {
        Philox::lane_streams(first_block + b + static_cast<std::uint64_t>(g) * kLanes, c[g][0], c[g][1]);
        c[g][2] = stream_lo;
        c[g][3] = stream_hi;
      }
      Philox::template philox<kGroups>(p, c);
      alignas(64) std::uint32_t words[kGroups][4][kLanes];
      for (int g = 0; g < kGroups; ++g)
        for (int w = 0; w < 4; ++w) c[g][w].store_aligned(words[g][w]);
      std::uint32_t* at = out + 4 * b;
      for (int g = 0; g < kGroups; ++g)
        for (int l = 0; l < kLanes; ++l)
          for (int w = 0; w < 4; ++w) *at++ = words[g][w][l];
    }
    const PhiloxKey key = stream_key(seed);
    for (std::uint64_t b = full; b < blocks; ++b) {
      const PhiloxCounter block = philox4x32_10(stream_counter(stream, first_block + b), key);
      for (int w = 0; w < 4; ++w) out[4 * b + static_cast<std::uint64_t>(w)] = block.v[w];
    }
  }

  static std::uint32_t checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams) {
    Job job;
    job.seed = seed;
    const Plan p = make_plan(job);
    u32 acc(0u);
    // kGroups groups a step: independent multiply chains per round.
    constexpr int kGroups = 2;
    const std::uint64_t full = streams / (kGroups * kLanes) * (kGroups * kLanes);
    for (std::uint64_t s = 0; s < full; s += kGroups * kLanes) {
      u32 c[kGroups][4];
      for (int g = 0; g < kGroups; ++g) {
        c[g][0] = c[g][1] = u32(0u);
        Philox::lane_streams(first + s + g * kLanes, c[g][2], c[g][3]);
      }
      Philox::template philox<kGroups>(p, c);
      for (int g = 0; g < kGroups; ++g) acc = acc ^ c[g][0] ^ c[g][1] ^ c[g][2] ^ c[g][3];
    }
    alignas(64) std::uint32_t lane[kLanes];
    acc.store_aligned(lane);
    std::uint32_t x = 0;
    for (int l = 0; l < kLanes; ++l) x ^= lane[l];
    for (std::uint64_t s = full; s < streams; ++s) {
      const PhiloxCounter b = philox4x32_10(stream_counter(first + s, 0), stream_key(seed));
      x ^= b.v[0] ^ b.v[1] ^ b.v[2] ^ b.v[3];
    }
    return x;
  }
};

}  // namespace melange::simd::internal
