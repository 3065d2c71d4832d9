// Decision tables: a trial as one index and a lookup, for the jobs whose
// trials are a pure function of a small index. The algorithm's definition
// (shuffle_as in algorithms.hpp) is run once per index to fill the table, so
// nothing is defined twice; backends then read a trial's index off its
// stream and look up the permutation, its Lehmer rank and its draws.
//
// Two kinds of index:
// - coins: the sort one-liners at n <= kMaxTableItems. A trial never asks
//   for more than `depth` coins (binary insertion at n = 8: 17); coin i is
//   bit depth-1-i of the index (0 means "less"). Under `batched` the index
//   is the top `depth` bits of the trial's first word (coin i of a word is
//   its bit 31 - i); under the other methods coin i is the top bit of word i.
//   The words a trial consumes are the coins it used (one word under
//   `batched`), whatever the index read beyond them.
// - batch: a swap algorithm under `batched` whose whole schedule is one
//   batch (fisher-yates up to n = 8, P = n!). The batch's digits are the
//   mixed-radix digits of v = floor(x0 P / 2^32) (contract §2), so v
//   is the index; a word whose x0 P mod 2^32 falls below 2^32 mod P is
//   rejected and the next word read, as the method says.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/config.hpp"

namespace melange {

struct Job;

// Tables hold at most this many entries (8 MiB)...
inline constexpr std::uint64_t kMaxTableEntries = std::uint64_t{1} << 20;
// ...and keep a permutation in 32 bits, four bits an item.
inline constexpr int kMaxTableItems = 8;
// A table costs about one reference trial an entry to build (8! entries,
// about 3 ms, for Fisher-Yates at n = 8; 2^17, about 10 ms, for binary
// insertion), so a job of fewer trials than this runs the reference loop
// instead, unless its backend already holds the table: 64 permutations of 8
// items then take microseconds, not the table's milliseconds. Both give the
// same trials, bit for bit.
inline constexpr std::uint64_t kTableMinTrials = 4096;
// Entry fields of `meta`: the Lehmer rank in the low bits, draws made above.
inline constexpr int kTableDrawShift = 24;

enum class TableIndex : std::uint8_t { coins, batch };

// The table as plain pointers, for vector lanes and GPU threads.
struct DecisionTableView {
  const std::uint32_t* perms = nullptr;  // item at position p in bits 4p..4p+3
  const std::uint32_t* meta = nullptr;   // rank | draws << kTableDrawShift
  TableIndex kind = TableIndex::coins;
  int depth = 0;                         // coins: coins an index holds
  std::uint32_t product = 0;             // batch: P, the number of entries
  std::uint32_t threshold = 0;           // batch: 2^32 mod P, the rejection bound
};

// The most coins a trial of coin algorithm `a` on n items can use: every
// path walked.
int coin_depth(Algorithm a, int n);

class DecisionTable {
 public:
  // True where the job's trials have a table: a coin algorithm at
  // 2 <= n <= kMaxTableItems, or a swap algorithm under `batched` at those n
  // whose schedule is one batch of at most kMaxTableEntries outcomes.
  static bool fits(const Job& job);
  // Throws std::invalid_argument unless fits(job).
  explicit DecisionTable(const Job& job);
  DecisionTable(const DecisionTable&) = delete;  // view() points into it
  DecisionTable& operator=(const DecisionTable&) = delete;

  Algorithm algorithm() const { return algorithm_; }
  int n() const { return n_; }
  const DecisionTableView& view() const { return view_; }
  std::uint64_t bytes() const { return (perms_.size() + meta_.size()) * sizeof(std::uint32_t); }
  const std::vector<std::uint32_t>& perms() const { return perms_; }
  const std::vector<std::uint32_t>& meta() const { return meta_; }

 private:
  Algorithm algorithm_;
  int n_;
  std::vector<std::uint32_t> perms_, meta_;
  DecisionTableView view_;
};

// Tables built once per (algorithm, n) and shared by every thread of the
// backend that holds this; nullptr where the job has none, or has fewer than
// kTableMinTrials trials and its table is not built yet.
class DecisionTables {
 public:
  std::shared_ptr<const DecisionTable> get(const Job& job) const;
  // decision_table_bytes(job), read off the table where it is built: a coin
  // table's depth walks every path of the algorithm (milliseconds at n = 8),
  // which a memory plan made for every call need not repeat.
  std::uint64_t bytes(const Job& job) const;

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::shared_ptr<const DecisionTable>> built_;
};

// Bytes the job's table takes, 0 where it has none (or too few trials to
// build one): for the memory plan.
std::uint64_t decision_table_bytes(const Job& job);

// The table index of a trial's coins, read from its stream: `depth` top bits
// of one word under `batched`, else the top bit of each of `depth` words.
template <class Stream>
MELANGE_HD inline std::uint32_t coin_index(Stream& s, int depth, bool batched) {
  if (batched) return s.next() >> (32 - depth);
  std::uint32_t index = 0;
  for (int i = 0; i < depth; ++i) index = (index << 1) | (s.next() >> 31);
  return index;
}

// A table's index kind as its reader knows it: from the view at run time, or
// fixed at compile time, so that a GPU kernel compiled for one kind has no
// branch on it (a kernel per kind).
struct TableIndexOfView {
  MELANGE_HD static TableIndex of(const DecisionTableView& t) { return t.kind; }
};
template <TableIndex K>
struct FixedTableIndex {
  MELANGE_HD static constexpr TableIndex of(const DecisionTableView&) { return K; }
};

// A trial's index into `table`, read from its stream.
template <class Kind = TableIndexOfView, class Stream>
MELANGE_HD inline std::uint32_t table_index(Stream& s, const DecisionTableView& table, bool batched) {
  if (Kind::of(table) == TableIndex::coins) return coin_index(s, table.depth, batched);
  for (;;) {
    const std::uint64_t m = static_cast<std::uint64_t>(s.next()) * table.product;
    if (static_cast<std::uint32_t>(m) >= table.threshold) return static_cast<std::uint32_t>(m >> 32);
  }
}

MELANGE_HD inline std::uint32_t table_rank(std::uint32_t meta) { return meta & ((1u << kTableDrawShift) - 1); }
MELANGE_HD inline std::uint32_t table_draws(std::uint32_t meta) { return meta >> kTableDrawShift; }

}  // namespace melange
