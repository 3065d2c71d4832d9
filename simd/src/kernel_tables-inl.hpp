// The table path of the vector kernel: jobs whose whole trial is one index
// into a decision table (decision_table.hpp), a multiply or a few coins a
// lane, and a gather or a count by index in place of the algorithm.
#pragma once

#include <cstdint>

#include "kernel_draws-inl.hpp"

namespace melange::simd::internal {

template <class Arch>
struct TablePath {
  using D = LaneDraws<Arch>;
  using L = typename D::L;
  using u32 = typename D::u32;
  static constexpr int kLanes = D::kLanes;
  using Philox = LanePhilox<Arch>;
  using Counters = LaneCounters<Arch>;

  // Each lane's index into the job's decision table (decision_table.hpp).
  // Coins: the top `depth` bits of the first word under `batched`, else the
  // top bit of each of the first `depth` words; never rejected. One-batch
  // schedules: v = mulhi(x0, P), and the lanes whose x0 P mod 2^32 falls
  // below 2^32 mod P set `reject` (their trials are redone on the scalar
  // path, which reads the next word as the method says).
  template <TableIndex K>
  MELANGE_LANE_INLINE static u32 table_indices(const Plan& p, std::uint64_t first, u32& reject) {
    u32 index(0u);
    if (one_word_index<K>(p)) {
      Philox::for_each_word(p, first, 1, [&](std::size_t, const u32& word) MELANGE_LANE_LAMBDA {
        index = index_of_word<K>(p, word, reject);
      });
    } else {
      const int depth = p.table.depth;
      Philox::for_each_word(p, first, static_cast<std::size_t>(depth), [&](std::size_t k, const u32& word) MELANGE_LANE_LAMBDA {
        index = index | ((word >> 31) << (depth - 1 - static_cast<int>(k)));
      });
    }
    return index;
  }

  // True where a trial's index comes from its first word alone.
  template <TableIndex K>
  static bool one_word_index(const Plan& p) {
    return K == TableIndex::batch || p.job.spec.method == Method::batched;
  }
  template <TableIndex K>
  MELANGE_LANE_INLINE static u32 index_of_word(const Plan& p, const u32& word, u32& reject) {
    if constexpr (K == TableIndex::batch) {
      u32 index, low;
      L::mul_wide(word, u32(p.table.product), index, low);
      reject = L::less(low, u32(p.table.threshold));
      return index;
    } else {
      return word >> (32 - p.table.depth);
    }
  }

  // count(t, index, reject) for each group of lanes from trial t in
  // [begin, full): their table indices, and the lanes that rejected. Two
  // groups a step where the index is one word (their blocks side by side),
  // else one.
  template <TableIndex K, class Count>
  MELANGE_LANE_INLINE static void for_each_index(const Plan& p, std::uint64_t begin, std::uint64_t full, Count&& count) {
    const bool pairs = one_word_index<K>(p);
    for (std::uint64_t t = begin; t != full;) {
      if (pairs && full - t >= 2 * kLanes) {
        u32 words[2], reject[2] = {u32(0u), u32(0u)};
        Philox::template first_words<2>(p, t, words);
        const u32 first_index = index_of_word<K>(p, words[0], reject[0]);
        const u32 second_index = index_of_word<K>(p, words[1], reject[1]);
        count(t, first_index, reject[0]);
        count(t + kLanes, second_index, reject[1]);
        t += 2 * kLanes;
      } else {
        u32 reject(0u);
        count(t, table_indices<K>(p, t, reject), reject);
        t += kLanes;
      }
    }
  }

  // A table job with the rank histogram asked for: the lanes count table
  // indices (IndexCounters), the tallies follow at each flush. Per group of
  // lanes: the Philox block, the index (a multiply and a compare, or the
  // coins' top bits), and an increment a lane; no gather. A coin table of
  // more entries than the rank histogram's lane columns keeps the gather
  // (tally_table), within the memory the plan counted (scratch_bytes).
  template <int N, TableIndex K>
  static bool counts_by_index(const Plan& p, const Tally& tally) {
    if (tally[TallyKind::ranks].empty()) return false;
    return K == TableIndex::batch || (std::uint64_t{1} << p.table.depth) <= factorial(N) * kLanes;
  }
  template <int N, TableIndex K>
  static std::uint64_t tally_table_by_index(const Plan& p, std::uint64_t begin, std::uint64_t full, Tally& tally) {
    IndexCounters<Arch> c(K == TableIndex::batch ? p.table.product : std::uint32_t{1} << p.table.depth);
    const bool may_reject = K == TableIndex::batch && p.table.threshold != 0;
    std::uint64_t draws_total = 0, clean = 0;
    auto count = [&](std::uint64_t t, const u32& index, const u32& reject) MELANGE_LANE_LAMBDA {
      if (may_reject && L::any(reject)) {
        alignas(64) std::uint32_t kept[kLanes];
        D::redo_rejected(p, t, reject, tally).store_aligned(kept);
        c.add(index, kept);
        for (int l = 0; l < kLanes; ++l) clean += kept[l] != 0;
      } else {
        c.add(index, nullptr);
        clean += kLanes;
      }
      if (++c.batches == kFlushBatches) draws_total += c.template flush<N>(p.table, tally);
    };
    for_each_index<K>(p, begin, full, count);
    draws_total += c.template flush<N>(p.table, tally);
    tally.draws += draws_total;
    tally.words += words_read<K>(p, draws_total, clean);
    return clean;
  }

  // Under `batched` a clean trial read one word (a coin trial's at most
  // kMaxTableItems-item coins fit in one); otherwise a coin trial read a
  // word a coin.
  template <TableIndex K>
  static std::uint64_t words_read(const Plan& p, std::uint64_t draws, std::uint64_t clean) {
    return K == TableIndex::coins && p.job.spec.method != Method::batched ? draws : clean;
  }

  template <int N, TableIndex K>
  static std::uint64_t tally_table(const Plan& p, std::uint64_t begin, std::uint64_t full, Tally& tally) {
    if (counts_by_index<N, K>(p, tally)) return tally_table_by_index<N, K>(p, begin, full, tally);
    const bool want_ranks = !tally[TallyKind::ranks].empty(), want_positions = !tally[TallyKind::positions].empty();
    const bool may_reject = K == TableIndex::batch && p.table.threshold != 0;
    Counters c(p, want_ranks, want_positions);
    u32 draws(0u);
    std::uint64_t draws_total = 0, clean = 0;
    auto flush = [&] {
      alignas(64) std::uint32_t lane[kLanes];
      draws.store_aligned(lane);
      for (int l = 0; l < kLanes; ++l) draws_total += lane[l];
      draws = u32(0u);
      c.flush(tally);
    };
    // Counts the group of lanes from trial t, given their indices.
    auto count = [&](std::uint64_t t, const u32& index, const u32& reject) MELANGE_LANE_LAMBDA {
      const bool some_rejected = may_reject && L::any(reject);
      const u32 keep = some_rejected ? D::redo_rejected(p, t, reject, tally) : u32(~0u);
      alignas(64) std::uint32_t kept[kLanes];
      if (some_rejected) keep.store_aligned(kept);
      const u32 meta = L::gather(p.table.meta, index);
      if (want_ranks) c.add_ranks(meta & u32((1u << kTableDrawShift) - 1), some_rejected ? kept : nullptr);
      if (want_positions) c.template add_positions<N>(L::gather(p.table.perms, index), keep);
      draws = draws + ((meta >> kTableDrawShift) & keep);
      if (some_rejected) {
        for (int l = 0; l < kLanes; ++l) clean += kept[l] != 0;
      } else {
        clean += kLanes;
      }
      if (++c.batches == kFlushBatches) flush();
    };
    for_each_index<K>(p, begin, full, count);
    flush();
    tally.draws += draws_total;
    tally.words += words_read<K>(p, draws_total, clean);
    return clean;
  }

  static void tally_table_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Tally& tally) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    tally.trials += D::with_packed_n(p.job.n, [&](auto n) {
      return p.table.kind == TableIndex::batch ? tally_table<n(), TableIndex::batch>(p, begin, full, tally)
                                               : tally_table<n(), TableIndex::coins>(p, begin, full, tally);
    });
    if (full != end) tally_table_trials(p.job, p.table, full, end, tally);
  }
};

}  // namespace melange::simd::internal
