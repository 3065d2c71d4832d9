#include "melange/decision_table.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "melange/job.hpp"
#include "melange/rank.hpp"
#include "melange/source.hpp"

namespace melange {
namespace {

// Answers the algorithm's coins from a fixed string: coin i is bit
// depth-1-i of `index` (0: "less").
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

// Answers a one-batch schedule's draws from v in [0, P): its mixed-radix
// digits, most significant first, in the schedule's ranges. Made once per
// table entry, so it holds its digits in place rather than on the heap.
struct IndexDigits {
  std::array<std::uint32_t, kMaxTableItems> digits{};
  const std::vector<std::uint64_t>& ranges;
  int used = 0;
  IndexDigits(std::uint64_t v, const std::vector<std::uint64_t>& r) : ranges(r) {
    if (r.size() > digits.size()) throw std::logic_error("a one-batch schedule longer than a table's items");
    for (std::size_t i = r.size(); i-- > 0;) {
      digits[i] = static_cast<std::uint32_t>(v % r[i]);
      v /= r[i];
    }
  }
  std::uint32_t bounded(std::uint64_t s) {
    if (used >= static_cast<int>(ranges.size()) || ranges[used] != s)
      throw std::logic_error("a draw off the schedule");
    return digits[used++];
  }
  bool less() { throw std::logic_error("a swap algorithm drew a coin"); }
};
static_assert(RandomSource<IndexDigits>);

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

bool table_items(int n) { return n >= 2 && n <= kMaxTableItems; }

// The one batch of a schedule under `batched`, if the schedule is one.
bool one_batch(const Job& job, ScheduleBatch& batch) {
  // Swaps only: a table's entry is the swaps its batch's digits make.
  if (draw_kind(job.algorithm) != DrawKind::schedule || job.spec.method != Method::batched) return false;
  const std::vector<ScheduleBatch> batches = schedule_batches(job.algorithm, shape_of(job));
  if (batches.size() != 1 || batches[0].product > kMaxTableEntries) return false;
  batch = batches[0];
  return true;
}

}  // namespace

int coin_depth(Algorithm a, int n) {
  if (!uses_coins(a) || n < 2) return 0;
  std::vector<bool> path;
  std::vector<std::uint8_t> items(static_cast<std::size_t>(n));
  std::size_t deepest = 0;
  for (;;) {
    ReplayCoins coins{path};
    iota_items(items.data(), n);
    shuffle(a, items.data(), Shape{n, n}, coins);
    path.resize(coins.used);
    deepest = std::max(deepest, path.size());
    // The next path: the last "less" becomes "not less", later coins go.
    while (!path.empty() && path.back()) path.pop_back();
    if (path.empty()) break;
    path.back() = true;
  }
  return static_cast<int>(deepest);
}

bool DecisionTable::fits(const Job& job) {
  // Entries are whole permutations: a deal of k < n items has none.
  if (!table_items(job.n) || is_deal(job)) return false;
  // A table's trial counts the rank and the positions; other kinds take
  // the trial body.
  if (!lane_kinds_only(job.tallies)) return false;
  // Every coin algorithm stays within kMaxTableEntries up to kMaxTableItems
  // (binary insertion 2^17 at n = 8, TimSort 2^18; a test holds this), so
  // fits() need not walk the paths.
  if (uses_coins(job.algorithm)) return true;
  ScheduleBatch batch;
  return one_batch(job, batch);
}

DecisionTable::DecisionTable(const Job& job) : algorithm_(job.algorithm), n_(job.n) {
  if (!fits(job)) throw std::invalid_argument("this job has no decision table");
  ScheduleBatch batch{};
  if (uses_coins(job.algorithm)) {
    view_.kind = TableIndex::coins;
    view_.depth = coin_depth(job.algorithm, job.n);
    if ((std::uint64_t{1} << view_.depth) > kMaxTableEntries) throw std::invalid_argument("coin table too deep");
  } else {
    one_batch(job, batch);
    view_.kind = TableIndex::batch;
    view_.product = static_cast<std::uint32_t>(batch.product);
    view_.threshold = static_cast<std::uint32_t>(internal::reject_threshold(batch.product, 32));
  }
  const std::uint64_t entries =
      view_.kind == TableIndex::coins ? std::uint64_t{1} << view_.depth : std::uint64_t{view_.product};
  perms_.resize(entries);
  meta_.resize(entries);
  std::vector<std::uint64_t> ranges;
  for (int k = 0; k < batch.count; ++k) ranges.push_back(scheduled_draw(job.algorithm, shape_of(job), k).range);

  const int n = job.n;
  with_algorithm(job.algorithm, [&](auto algo) {
    constexpr Algorithm A = decltype(algo)::value;
    std::uint8_t items[kMaxTableItems];
    for (std::uint64_t index = 0; index < entries; ++index) {
      iota_items(items, n);
      int draws = 0;
      if constexpr (draw_kind(A) == DrawKind::coins) {
        IndexCoins coins{static_cast<std::uint32_t>(index), view_.depth};
        shuffle_as<A>(items, Shape{n, n}, coins);
        draws = coins.used;
      } else {
        IndexDigits digits(index, ranges);
        shuffle_as<A>(items, Shape{n, n}, digits);
        draws = digits.used;
      }
      std::uint32_t packed = 0;
      for (int p = 0; p < n; ++p) packed |= static_cast<std::uint32_t>(items[p]) << (4 * p);
      perms_[index] = packed;
      meta_[index] = static_cast<std::uint32_t>(lehmer_rank(items, n)) |
                     static_cast<std::uint32_t>(draws) << kTableDrawShift;
    }
  });
  view_.perms = perms_.data();
  view_.meta = meta_.data();
}

std::shared_ptr<const DecisionTable> DecisionTables::get(const Job& job) const {
  if (!DecisionTable::fits(job)) return nullptr;
  std::lock_guard<std::mutex> lock(mutex_);
  // A table depends on the algorithm and n alone: swap algorithms have one
  // only under `batched`, and a coin table serves every method.
  for (const auto& t : built_)
    if (t->algorithm() == job.algorithm && t->n() == job.n) return t;
  if (job.trials < kTableMinTrials) return nullptr;
  built_.push_back(std::make_shared<const DecisionTable>(job));
  return built_.back();
}

std::uint64_t DecisionTables::bytes(const Job& job) const {
  if (!DecisionTable::fits(job) || job.trials < kTableMinTrials) return 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& t : built_)
      if (t->algorithm() == job.algorithm && t->n() == job.n) return t->bytes();
  }
  return decision_table_bytes(job);
}

std::uint64_t decision_table_bytes(const Job& job) {
  if (!DecisionTable::fits(job) || job.trials < kTableMinTrials) return 0;
  const std::uint64_t entries = uses_coins(job.algorithm) ? std::uint64_t{1} << coin_depth(job.algorithm, job.n)
                                                          : schedule_batches(job.algorithm, shape_of(job))[0].product;
  return entries * 2 * sizeof(std::uint32_t);
}

}  // namespace melange
