#include "melange/coin_table.hpp"

#include <algorithm>
#include <stdexcept>

#include "melange/rank.hpp"

namespace melange {
namespace {

// Answers the algorithm's coins from a fixed string: coin i is bit
// depth-1-i of `index` (0: "less"), and counts how many were asked for.
struct IndexCoins {
  std::uint32_t index;
  int depth;
  int used = 0;
  std::uint32_t bounded(std::uint64_t) { throw std::logic_error("a coin algorithm drew a bounded integer"); }
  bool less() {
    const int i = used++;
    if (i >= depth) throw std::logic_error("a trial used more coins than the table's depth");
    return ((index >> (depth - 1 - i)) & 1u) == 0;
  }
};
static_assert(RandomSource<IndexCoins>);

// Replays a prefix of coins, then answers "less" (bit 0) and records the
// choice: with an odometer over the recorded bits, every path once.
struct ReplayCoins {
  std::vector<bool>& path;
  std::size_t used = 0;
  std::uint32_t bounded(std::uint64_t) { throw std::logic_error("a coin algorithm drew a bounded integer"); }
  bool less() {
    if (used == path.size()) path.push_back(false);
    return !path[used++];
  }
};
static_assert(RandomSource<ReplayCoins>);

}  // namespace

int coin_depth(Algorithm a, int n) {
  if (!uses_coins(a) || n < 2) return 0;
  std::vector<bool> path;
  std::vector<std::uint8_t> items(static_cast<std::size_t>(n));
  std::size_t deepest = 0;
  for (;;) {
    ReplayCoins coins{path};
    iota_items(items.data(), n);
    shuffle(a, items.data(), n, coins);
    path.resize(coins.used);
    deepest = std::max(deepest, path.size());
    // The next path: the last "less" becomes "not less", later coins go.
    while (!path.empty() && path.back()) path.pop_back();
    if (path.empty()) break;
    path.back() = true;
  }
  return static_cast<int>(deepest);
}

bool CoinTable::fits(Algorithm a, int n) {
  // Every coin algorithm stays within kMaxTableCoins up to kMaxTableItems
  // (binary insertion 17 coins at n = 8, TimSort 18; a test holds this), so
  // fits() need not walk the paths.
  return uses_coins(a) && n >= 2 && n <= kMaxTableItems;
}

CoinTable::CoinTable(Algorithm a, int n) : algorithm_(a), n_(n), depth_(0) {
  if (!uses_coins(a) || n < 2 || n > kMaxTableItems) throw std::invalid_argument("no coin table for this job");
  depth_ = coin_depth(a, n);
  if (depth_ > kMaxTableCoins) throw std::invalid_argument("coin table too deep");
  const std::size_t entries = std::size_t{1} << depth_;
  perms_.resize(entries);
  meta_.resize(entries);
  with_algorithm(a, [&](auto algo) {
    std::uint8_t items[kMaxTableItems];
    for (std::size_t index = 0; index < entries; ++index) {
      IndexCoins coins{static_cast<std::uint32_t>(index), depth_};
      iota_items(items, n);
      shuffle_as<decltype(algo)::value>(items, n, coins);
      std::uint32_t packed = 0;
      for (int p = 0; p < n; ++p) packed |= static_cast<std::uint32_t>(items[p]) << (4 * p);
      perms_[index] = packed;
      meta_[index] = static_cast<std::uint32_t>(lehmer_rank(items, n)) |
                     static_cast<std::uint32_t>(coins.used) << kTableCoinShift;
    }
  });
}

std::shared_ptr<const CoinTable> CoinTables::get(Algorithm a, int n) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& t : built_)
    if (t->algorithm() == a && t->n() == n) return t;
  if (!CoinTable::fits(a, n)) return nullptr;
  built_.push_back(std::make_shared<const CoinTable>(a, n));
  return built_.back();
}

std::uint64_t coin_table_bytes(Algorithm a, int n) {
  if (!CoinTable::fits(a, n)) return 0;
  return (std::uint64_t{2} * sizeof(std::uint32_t)) << coin_depth(a, n);
}

}  // namespace melange
