// The sort one-liners at small n as decision tables. A trial of a comparator
// sort is a pure function of its coins, and it never asks for more than
// `depth` of them (binary insertion at n = 8: 17). So the algorithm's
// definition (shuffle_as in algorithms.hpp) is run once per string of
// `depth` coins, and a trial becomes: read its coins as an index, look up the
// permutation, its Lehmer rank and how many coins it really used.
//
// Coin i of a trial is bit depth-1-i of the index (0 means "less"), which
// makes the index under `batched` simply the top `depth` bits of the trial's
// first word (coin i of a word is its bit 31 - i); under the other methods
// coin i is the top bit of word i. The words a trial consumes are the coins
// it used (one word under `batched`), whatever the index read beyond them.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/config.hpp"

namespace melange {

// Tables index at most this many coins (2^20 entries, 8 MiB)...
inline constexpr int kMaxTableCoins = 20;
// ...and keep a permutation in 32 bits, four bits an item.
inline constexpr int kMaxTableItems = 8;

// Entry fields of `meta`: the Lehmer rank in the low bits, coins used above.
inline constexpr int kTableCoinShift = 24;

// The table as plain pointers, for vector lanes and GPU threads.
struct CoinTableView {
  const std::uint32_t* perms;  // item at position p in bits 4p..4p+3
  const std::uint32_t* meta;   // rank | coins used << kTableCoinShift
  int depth;                   // coins an index holds
};

// The most coins a trial of `a` on n items can use: every path walked.
int coin_depth(Algorithm a, int n);

class CoinTable {
 public:
  // True for a coin algorithm at 2 <= n <= kMaxTableItems.
  static bool fits(Algorithm a, int n);
  // Throws std::invalid_argument unless fits(a, n).
  CoinTable(Algorithm a, int n);

  Algorithm algorithm() const { return algorithm_; }
  int n() const { return n_; }
  int depth() const { return depth_; }
  CoinTableView view() const { return CoinTableView{perms_.data(), meta_.data(), depth_}; }
  std::uint64_t bytes() const { return (perms_.size() + meta_.size()) * sizeof(std::uint32_t); }
  const std::vector<std::uint32_t>& perms() const { return perms_; }
  const std::vector<std::uint32_t>& meta() const { return meta_; }

 private:
  Algorithm algorithm_;
  int n_, depth_;
  std::vector<std::uint32_t> perms_, meta_;
};

// Tables built once per (algorithm, n) and shared by every thread of the
// backend that holds this; nullptr where no table fits.
class CoinTables {
 public:
  std::shared_ptr<const CoinTable> get(Algorithm a, int n) const;

 private:
  mutable std::mutex mutex_;
  mutable std::vector<std::shared_ptr<const CoinTable>> built_;
};

// Bytes the table for (a, n) takes, 0 where none fits: for the memory plan.
std::uint64_t coin_table_bytes(Algorithm a, int n);

// The table index of a trial's coins, read from its stream: `depth` top bits
// of one word under `batched`, else the top bit of each of `depth` words.
template <class Stream>
MELANGE_HD inline std::uint32_t coin_index(Stream& s, int depth, bool batched) {
  if (batched) return s.next() >> (32 - depth);
  std::uint32_t index = 0;
  for (int i = 0; i < depth; ++i) index = (index << 1) | (s.next() >> 31);
  return index;
}

// The coins a table entry used, and the words behind them.
MELANGE_HD inline std::uint32_t table_coins(std::uint32_t meta) { return meta >> kTableCoinShift; }
MELANGE_HD inline std::uint32_t table_rank(std::uint32_t meta) {
  return meta & ((1u << kTableCoinShift) - 1);
}
MELANGE_HD inline std::uint32_t table_words(std::uint32_t coins, bool batched) {
  return batched ? (coins + kCoinsPerWord - 1) / kCoinsPerWord : coins;
}

}  // namespace melange
