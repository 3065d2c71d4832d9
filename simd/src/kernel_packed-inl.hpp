// The packed path of the vector kernel: n <= kPackedItems, one trial's
// permutation in a lane's register, four bits an item; swaps as shifts and
// masks, ranks by comparisons, counts in lane-private counters.
#pragma once

#include <cstdint>
#include <vector>

#include "kernel_draws-inl.hpp"
#include "kernel_rows-inl.hpp"

namespace melange::simd::internal {

template <class Arch>
struct PackedPath {
  using D = LaneDraws<Arch>;
  using L = typename D::L;
  using u32 = typename D::u32;
  static constexpr int kLanes = D::kLanes;
  using Philox = LanePhilox<Arch>;
  using Counters = LaneCounters<Arch>;
  using Rows = LaneRows<Arch>;

  // Items 0..n-1 packed four bits each: the identity permutation.
  static std::uint32_t packed_identity(int n) {
    std::uint32_t v = 0;
    for (int k = 0; k < n; ++k) v |= static_cast<std::uint32_t>(k) << (4 * k);
    return v;
  }

  // Runs the draws and swaps of one batch with the permutation in a register.
  // Returns the packed permutations and sets `reject`.

  template <Method M, int N>
  MELANGE_LANE_INLINE static u32 packed_batch(const Plan& p, std::uint64_t first, u32& reject) {
    u32 perm(packed_identity(N));
    // swap(a[i], a[j]) on four-bit items: j differs by lane, i does not.
    auto swap = [&perm](std::uint32_t i, const u32& j) MELANGE_LANE_LAMBDA {
      const u32 j4 = j << 2;
      const int i4 = static_cast<int>(i) * 4;
      const u32 x = ((perm >> i4) ^ L::shift_right(perm, j4)) & u32(15u);
      perm = perm ^ (x << i4) ^ L::shift_left(x, j4);
    };
    if constexpr (M == Method::batched) {
      D::batched_draws(p, first, reject,
                    [&](const DrawPlan& d, const u32& j) MELANGE_LANE_LAMBDA { swap(d.i, j); });
    } else {
      auto swap_along = [&](std::size_t draws) MELANGE_LANE_LAMBDA {
        Philox::for_each_word(p, first, draws, [&](std::size_t k, const u32& word) MELANGE_LANE_LAMBDA {
          const DrawPlan& d = p.draws[k];
          swap(d.i, D::template draw<M>(p, d, word, reject));
        });
      };
      // The plan's draws are the algorithm's schedule. The usual counts, n - 1
      // (fisher-yates, sattolo) and n (naive-swap), get loops of constant trip
      // count, which the compiler unrolls; any other count runs as it is.
      const std::size_t draws = p.draws.size();
      if (draws == N - 1)
        swap_along(N - 1);
      else if (draws == N)
        swap_along(N);
      else
        swap_along(draws);
    }
    return perm;
  }

  // Lehmer rank of packed permutations: sum over i < j of [p_j < p_i] (n-1-i)!.
  template <int N>
  MELANGE_LANE_INLINE static u32 packed_rank(u32 perm) {
    u32 item[N];
    for (int k = 0; k < N; ++k) item[k] = (perm >> (4 * k)) & u32(15u);
    u32 rank(0u);
    for (int i = 0; i < N - 1; ++i) {
      const u32 weight(static_cast<std::uint32_t>(factorial(N - 1 - i)));
      for (int j = i + 1; j < N; ++j) rank = rank + (L::greater_small(item[i], item[j]) & weight);
    }
    return rank;
  }

  // Small n: the permutation stays in a register; counts go to lane-private
  // counters. Returns the number of trials counted here (not redone).
  template <Method M, int N>
  static std::uint64_t tally_packed(const Plan& p, std::uint64_t begin, std::uint64_t full,
                                    Tally& tally) {
    const bool want_ranks = !tally[TallyKind::ranks].empty(), want_positions = !tally[TallyKind::positions].empty();
    Counters c(p, want_ranks, want_positions);
    // A serial job (n <= kMaxSerialPairItems): the lanes' ranks in trial
    // order make pairs with the trial before each; count_rank_pairs counts
    // everything a pair holds. A lane the scalar reference redoes counts
    // its own pair; its rank is still the next lane's "before".
    const bool serial = has_serial_kinds(p.job.tallies);
    const std::uint64_t orders = serial ? factorial(N) : 0;
    std::vector<std::uint64_t> pairs(orders * orders);
    std::uint64_t before = serial ? scalar_rank(p, begin - 1) : 0;
    std::uint64_t clean = 0;
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      u32 reject(0u);
      const u32 perm = packed_batch<M, N>(p, t, reject);
      const bool some_rejected = p.may_reject && L::any(reject);
      const u32 keep = some_rejected ? D::redo_rejected(p, t, reject, tally) : u32(~0u);
      alignas(64) std::uint32_t kept[kLanes];
      if (some_rejected) keep.store_aligned(kept);
      if (serial) {
        // Every kind of the pair's second record follows from its rank too:
        // count_rank_pairs counts them, and the lanes count only the pairs.
        alignas(64) std::uint32_t rank[kLanes];
        packed_rank<N>(perm).store_aligned(rank);
        for (int l = 0; l < kLanes; ++l) {
          const bool redone = some_rejected && !kept[l];
          const std::uint64_t r = redone ? scalar_rank(p, t + static_cast<std::uint64_t>(l)) : rank[l];
          if (!redone) ++pairs[before * orders + r];
          before = r;
        }
      } else {
        if (want_ranks) c.add_ranks(packed_rank<N>(perm), some_rejected ? kept : nullptr);
        if (want_positions) c.template add_positions<N>(perm, keep);
      }
      if (some_rejected) {
        for (int l = 0; l < kLanes; ++l) clean += kept[l] != 0;
      } else {
        clean += kLanes;
      }
      if (++c.batches == kFlushBatches) c.flush(tally);
    }
    c.flush(tally);
    if (serial) count_rank_pairs(p.job, pairs, tally);
    return clean;
  }

  // The rank of trial t's permutation, by the scalar reference.
  static std::uint64_t scalar_rank(const Plan& p, std::uint64_t t) {
    std::uint16_t items[kPackedItems];
    p.reference->sample(t, t + 1, items);
    return lehmer_rank(items, p.job.n);
  }

  template <class Item>
  static void store_rows(const u32& packed, int n, Item* rows) {
    if (n >= 2) return D::with_packed_n(n, [&](auto c) { Rows::template store_rows<c()>(packed, rows); });
    alignas(64) std::uint32_t perm[kLanes];
    packed.store_aligned(perm);
    for (int l = 0; l < kLanes; ++l)
      for (int k = 0; k < n; ++k) rows[l * n + k] = static_cast<Item>((perm[l] >> (4 * k)) & 15u);
  }
};

}  // namespace melange::simd::internal
