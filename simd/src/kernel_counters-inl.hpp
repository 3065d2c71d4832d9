// The lane-private counters of the packed and wide paths, flushed into the
// 64-bit tally. Part of kernel.hpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_inline.hpp"
#include "melange/decision_table.hpp"
#include "melange/job.hpp"
#include "melange/rank.hpp"
#include "plan.hpp"
#include "tuning.hpp"

namespace melange::simd::internal {

template <class Arch>
struct LaneCounters {
  using L = Lanes<Arch>;
  using u32 = typename L::u32;
  static constexpr int kLanes = static_cast<int>(u32::size);

  int n;
  std::uint64_t bins;
  std::vector<std::uint32_t> ranks;  // [lane][bin]
  std::vector<u32> positions;        // [item][position], one count per lane
  std::uint64_t batches = 0;

  LaneCounters(const Plan& p, bool want_ranks, bool want_positions)
      : n(p.job.n), bins(want_ranks ? factorial(p.job.n) : 0), ranks(bins * kLanes, 0),
        positions(want_positions ? static_cast<std::size_t>(p.job.n) * p.job.n : 0, u32(0u)) {}

  // Counts each lane's rank, except lanes whose kept[l] is 0 (kept null: all).
  MELANGE_LANE_INLINE void add_ranks(const u32& rank, const std::uint32_t* kept) {
    alignas(64) std::uint32_t r[kLanes];
    rank.store_aligned(r);
    for (int l = 0; l < kLanes; ++l)
      if (!kept || kept[l]) ++ranks[l * bins + r[l]];
  }

  // Counts each lane's packed permutation in the lanes where `keep` is all ones.
  template <int N>
  MELANGE_LANE_INLINE void add_positions(const u32& perm, const u32& keep) {
    for (int pos = 0; pos < N; ++pos) {
      const u32 item = (perm >> (4 * pos)) & u32(15u);
      for (int v = 0; v < N; ++v) {
        u32& cell = positions[static_cast<std::size_t>(v) * N + pos];
        cell = cell - (L::equal(item, u32(static_cast<std::uint32_t>(v))) & keep);
      }
    }
  }

  void flush(Tally& tally) {
    if (bins)
      for (std::uint64_t b = 0; b < bins; ++b) {
        std::uint64_t sum = 0;
        for (int l = 0; l < kLanes; ++l) sum += ranks[l * bins + b];
        if (sum) tally[TallyKind::ranks].add(b, sum);
      }
    std::fill(ranks.begin(), ranks.end(), 0u);
    for (std::size_t c = 0; c < positions.size(); ++c) {
      alignas(64) std::uint32_t lane[kLanes];
      positions[c].store_aligned(lane);
      for (int l = 0; l < kLanes; ++l) tally[TallyKind::positions].counts()[c] += lane[l];
      positions[c] = u32(0u);
    }
    batches = 0;
  }
};

// Indices counted kDepth - 1 groups after they were stored, the first
// Counted lanes of each, lane l into the column at l * Column: read back
// at once, loads forwarded from one vector store held each increment up
// (n = 8 ran at 0.55 of the Philox limit), and extracting the lanes in
// registers takes the vector pipes that Philox runs on. The slots start,
// and are left by a drain, holding `nothing`, an index whose counter no
// flush reads.
template <class U32, int Counted, std::size_t Column>
struct IndexRing {
  static constexpr int kDepth = 4;
  static constexpr int kWidth = static_cast<int>(U32::size);
  alignas(64) std::uint32_t slot[kDepth][kWidth];
  std::uint32_t nothing;
  int oldest = 0;

  explicit IndexRing(std::uint32_t nothing_) : nothing(nothing_) {
    std::fill_n(&slot[0][0], kDepth * kWidth, nothing);
  }

  // Counts the oldest group and stores `index` in its place; returns that
  // slot, for lanes to be set to `nothing`.
  MELANGE_LANE_INLINE std::uint32_t* push(const U32& index, std::uint32_t* counts) {
    count_oldest(counts);
    std::uint32_t* newest = slot[oldest];
    index.store_aligned(newest);
    oldest = (oldest + 1) % kDepth;
    return newest;
  }
  void drain(std::uint32_t* counts) {
    for (int g = 0; g < kDepth; ++g) {
      count_oldest(counts);
      std::fill_n(slot[oldest], kWidth, nothing);
      oldest = (oldest + 1) % kDepth;
    }
  }

 private:
  MELANGE_LANE_INLINE void count_oldest(std::uint32_t* counts) {
    const std::uint32_t* at = slot[oldest];
    for (int l = 0; l < Counted; ++l) ++counts[static_cast<std::size_t>(l) * Column + at[l]];
  }
};

// A batch table's trials counted by their index into it: the index says
// all a trial's tallies hold (its rank, its items, its draws), so a trial
// costs an increment, and a flush turns the counts into tallies through the
// table, an entry at a time, rather than every trial gathering its entry.
// Few entries (n <= 5): a column a lane ([lane][index]), so that lanes that
// meet the same entry do not wait on each other's stores; more: one column,
// whose n! counters meet rarely. Fewer still (entries^2 <= kMaxPairEntries,
// n <= 4): a group whose lanes all count is counted in pairs, lane l with
// lane l + kLanes/2 as one index a * entries + b into a column of
// entries^2, half the increments; a flush splits each pair's count between
// its two entries. Columns lie a constant apart, so that a lane's column is
// an offset in the increment, and each has a spare counter past its
// entries for IndexRing's `nothing`.
template <class Arch>
struct IndexCounters {
  using L = Lanes<Arch>;
  using u32 = typename L::u32;
  static constexpr int kLanes = static_cast<int>(u32::size);
  static constexpr std::uint32_t kMaxEntriesApart = 120;
  static constexpr std::size_t kLaneColumn = kMaxEntriesApart + 8;
  static constexpr std::uint32_t kMaxPairEntries = 1024;
  static constexpr std::size_t kPairColumn = kMaxPairEntries + 16;

  std::uint32_t entries;
  bool apart;  // a column a lane
  bool paired;  // groups counted in pairs
  std::vector<std::uint32_t> counts;
  std::vector<std::uint32_t> pairs;  // [lane < kLanes / 2][kPairColumn], at a * entries + b
  IndexRing<u32, kLanes, kLaneColumn> apart_ring;
  IndexRing<u32, kLanes, 0> one_column_ring;
  IndexRing<u32, kLanes / 2, kPairColumn> pair_ring;
  std::uint64_t batches = 0;

  explicit IndexCounters(std::uint32_t table_entries)
      : entries(table_entries), apart(table_entries <= kMaxEntriesApart),
        paired(std::uint64_t{table_entries} * table_entries <= kMaxPairEntries),
        counts(apart ? kLaneColumn * kLanes : table_entries + 1, 0),
        pairs(paired ? kPairColumn * (kLanes / 2) : 0, 0),
        apart_ring(table_entries), one_column_ring(table_entries), pair_ring(kMaxPairEntries) {}

  // Counts each lane's index, except lanes whose kept[l] is 0 (kept null: all).
  MELANGE_LANE_INLINE void add(const u32& index, const std::uint32_t* kept) {
    if (!kept && paired) {
      pair_ring.push(L::mullo(index, u32(entries)) + L::swap_halves(index), pairs.data());
      return;
    }
    std::uint32_t* newest = apart ? apart_ring.push(index, counts.data()) : one_column_ring.push(index, counts.data());
    if (kept)
      for (int l = 0; l < kLanes; ++l)
        if (!kept[l]) newest[l] = entries;  // the rings' `nothing`
  }

  // Into the tallies through the table (ranks; positions from the packed
  // items, N of them); returns the draws the counted trials made.
  template <int N>
  std::uint64_t flush(const DecisionTableView& table, Tally& tally) {
    const bool want_ranks = !tally[TallyKind::ranks].empty(), want_positions = !tally[TallyKind::positions].empty();
    if (apart) apart_ring.drain(counts.data());
    if (!apart) one_column_ring.drain(counts.data());
    if (paired) pair_ring.drain(pairs.data());
    split_pairs();
    std::uint64_t draws = 0;
    for (std::uint32_t e = 0; e < entries; ++e) {
      std::uint64_t sum = 0;
      for (int l = 0; l < (apart ? kLanes : 1); ++l) sum += counts[static_cast<std::size_t>(l) * kLaneColumn + e];
      if (sum == 0) continue;
      const std::uint32_t meta = table.meta[e];
      draws += sum * table_draws(meta);
      if (want_ranks) tally[TallyKind::ranks].add(table_rank(meta), sum);
      if (want_positions)
        for (int pos = 0; pos < N; ++pos) {
          const std::uint32_t item = (table.perms[e] >> (4 * pos)) & 15u;
          tally[TallyKind::positions].counts()[static_cast<std::size_t>(item) * N + pos] += sum;
        }
    }
    std::fill(counts.begin(), counts.end(), 0u);
    batches = 0;
    return draws;
  }

  // Each pair's count onto its two entries (lane 0's column: the flush sums
  // the columns); at most one count a lane a group, so nothing wraps within
  // kFlushBatches. Walked by (lane, a, b), not divided out of the index: a
  // flush ends every call, and a division an entry cost half a cycle a trial.
  void split_pairs() {
    for (int l = 0; l < (paired ? kLanes / 2 : 0); ++l) {
      const std::uint32_t* pair = pairs.data() + static_cast<std::size_t>(l) * kPairColumn;
      for (std::uint32_t a = 0; a < entries; ++a)
        for (std::uint32_t b = 0; b < entries; ++b, ++pair) {
          counts[a] += *pair;
          counts[b] += *pair;
        }
    }
    std::fill(pairs.begin(), pairs.end(), 0u);  // the spare counters too
  }
};

// Position counts of the wide path in 16 bits, a row of n cells a position
// ([position][item]). A group's lanes are counted position by position, so
// that the lanes' increments of a position fall in that position's row (2 KB
// at n = 1024), which the caches hold while they land and which follow one
// another in memory; counted lane by lane, each increment was a line
// anywhere in the matrix. A cell gains at most one a trial, so flushing
// every kMaxTrials trials keeps it from wrapping, and the matrix of 1024
// items is 2 MB, not 4. A flush transposes the rows into the tally's
// [item][position].
//
// From kWideStagedItems items the matrix outgrows the first-level cache
// (128 KB at 256), and a group's sixteen increments a row still met most of
// the matrix's lines once each, from farther out: there whole groups are
// staged, kWideStagedGroups of them, a slot each ([position][lane]: a
// position's items for all the lanes side by side), and counted
// kWideBlockRows positions at a time, so that a block of rows (32 KB at
// n = 1024) takes every staged trial's increments while it is near
// (n = 1024: +10%). A schedule that fixes its slots writes its items
// straight into the slot (kernel.hpp's slot_fixing_batch); other rows are
// staged by add_group.
//
// Per architecture, as everything compiled with its flags must be: a
// function shared by name between the kernels' objects is kept once by the
// linker, whichever architecture's code that copy is.
template <class Arch>
struct WideCounters {
  static constexpr std::size_t kLanes = Lanes<Arch>::u32::size;
  static constexpr std::uint64_t kMaxTrials = 0xFFFF;
  int n;
  std::vector<std::uint16_t> counts;
  std::vector<std::uint16_t> staged;  // [group][position][lane]
  std::size_t staged_groups = 0;
  std::uint64_t batches = 0;
  WideCounters(int n_, bool want) : n(n_), counts(want ? static_cast<std::size_t>(n_) * n_ : 0, 0) {}
  // True when a group's trials a batch have filled the cells as far as is safe.
  bool full() const { return (batches + 1) * kLanes > kMaxTrials; }
  // True where the groups are staged (the positions counted, from
  // kWideStagedItems items).
  bool stages() const { return !counts.empty() && n >= kWideStagedItems; }
  // The next group's slot, [position][lane], for a caller that writes the
  // group there itself and then calls add_slot.
  std::uint16_t* next_slot() {
    const std::size_t slot = static_cast<std::size_t>(n) * kLanes;
    if (staged.empty()) staged.resize(kWideStagedGroups * slot);
    return staged.data() + staged_groups * slot;
  }
  // Every lane of the group written to next_slot().
  void add_slot() {
    if (++staged_groups == kWideStagedGroups) count_staged();
  }
  // The lanes in `counted` (bit l: lane l) of a group whose items are rows
  // of n ([lane][position]).
  void add_group(const std::uint16_t* items, std::uint32_t counted) {
    const auto width = static_cast<std::size_t>(n);
    constexpr std::uint32_t kAll = (1u << kLanes) - 1;
    if (counted == kAll && stages()) {
      std::uint16_t* slot = next_slot();
      for (std::size_t pos = 0; pos < width; ++pos, slot += kLanes)
        for (std::size_t l = 0; l < kLanes; ++l) slot[l] = items[l * width + pos];
      return add_slot();
    }
    std::uint16_t* row = counts.data();
    if (counted == kAll) {
      for (std::size_t pos = 0; pos < width; ++pos, row += width)
#pragma GCC unroll 16
        for (std::size_t l = 0; l < kLanes; ++l) ++row[items[l * width + pos]];
      return;
    }
    for (std::size_t pos = 0; pos < width; ++pos, row += width)
      for (std::size_t l = 0; l < kLanes; ++l)
        if (counted >> l & 1) ++row[items[l * width + pos]];
  }
  // The staged groups into the cells, a block of positions at a time: the
  // lanes of a position side by side, each increment in that position's row.
  void count_staged() {
    const auto width = static_cast<std::size_t>(n);
    const std::size_t slot = width * kLanes;
    for (std::size_t first = 0; first < width; first += kWideBlockRows) {
      const std::size_t rows = std::min(kWideBlockRows, width - first);
      for (std::size_t g = 0; g < staged_groups; ++g) {
        const std::uint16_t* items = staged.data() + g * slot + first * kLanes;
        std::uint16_t* row = counts.data() + first * width;
        for (std::size_t pos = 0; pos < rows; ++pos, row += width, items += kLanes)
#pragma GCC unroll 16
          for (std::size_t l = 0; l < kLanes; ++l) ++row[items[l]];
      }
    }
    staged_groups = 0;
  }
  // Transposed in tiles of kTile x kTile cells: a row at a time, the tally's
  // writes n x 8 bytes apart each met a new page (9% of n = 1024's time).
  void flush(Tally& tally) {
    count_staged();
    constexpr std::size_t kTile = 64;
    std::uint64_t* to = tally[TallyKind::positions].counts().data();
    const auto width = static_cast<std::size_t>(n);
    for (std::size_t p0 = 0; p0 < width && !counts.empty(); p0 += kTile)
      for (std::size_t i0 = 0; i0 < width; i0 += kTile)
        for (std::size_t item = i0; item < std::min(i0 + kTile, width); ++item)
          for (std::size_t pos = p0; pos < std::min(p0 + kTile, width); ++pos)
            to[item * width + pos] += counts[pos * width + item];
    std::fill(counts.begin(), counts.end(), 0u);
    batches = 0;
  }
};

}  // namespace melange::simd::internal
