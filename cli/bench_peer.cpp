#include "bench_peer.hpp"

#include <algorithm>
#include <array>
#include <type_traits>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

namespace melange::cli {
namespace {

// lehmer64: a 128-bit state times an odd constant, the high 64 bits out.
class Lehmer64 {
 public:
  explicit Lehmer64(std::uint64_t seed) {
    // splitmix64 twice for the two halves: any seed gives a well-mixed, odd state.
    const std::uint64_t hi = splitmix(seed), lo = splitmix(seed + 1) | 1;
    state_ = (static_cast<unsigned __int128>(hi) << 64) | lo;
  }
  std::uint64_t operator()() {
    state_ *= kMultiplier;
    return static_cast<std::uint64_t>(state_ >> 64);
  }

 private:
  static std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  static constexpr std::uint64_t kMultiplier = 0xda942042e4dd58b5ull;
  unsigned __int128 state_;
};

// Ranges go into one word while their product stays below this: a batch is
// redrawn with probability under product / 2^64, here under 2^-16, and its
// chain of dependent multiplies stays short (8 ranges at n = 52; with 2^60,
// 10, measured no faster).
constexpr std::uint64_t kBatchProduct = std::uint64_t{1} << 48;

// Uniform indices for the ranges bound[0..count) from one word each try:
// the word is multiplied by each range in turn, the high half the index and
// the low half what the next range multiplies. The low half left at the
// end is uniform over 2^64 choices of which `product` map to each result
// (2^64 mod product too many); a leftover below (2^64 - product) mod
// product marks one of those, and the batch is drawn again. That remainder
// is computed only when the leftover is below the product (rarely).
template <class Generator>
void batched_ranges(Generator& gen, const std::uint64_t* bound, int count, std::uint64_t product, std::uint64_t* out) {
  for (;;) {
    std::uint64_t left = gen();
    for (int i = 0; i < count; ++i) {
      const unsigned __int128 m = static_cast<unsigned __int128>(left) * bound[i];
      out[i] = static_cast<std::uint64_t>(m >> 64);
      left = static_cast<std::uint64_t>(m);
    }
    if (left >= product || left >= (0 - product) % product) return;
  }
}

// Fisher-Yates from the last position down takes ranges n, n - 1, .., 2;
// they are cut into batches once per n, so that a shuffle divides nothing.
struct Batch {
  int top = 0;    // the first position of the batch; its ranges are top + 1, top, ..
  int count = 0;  // ranges in the batch
  std::uint64_t product = 1;
};
// The batches of n items, into out[0..returned).
constexpr int cut_batches(int n, Batch* out) {
  int batches = 0;
  for (int i = n - 1; i > 0;) {
    Batch b{i, 0, 1};
    while (i - b.count > 0 && b.product <= kBatchProduct / static_cast<std::uint64_t>(i - b.count + 1))
      b.product *= static_cast<std::uint64_t>(i - b.count++ + 1);
    out[batches++] = b;
    i -= b.count;
  }
  return batches;
}
std::vector<Batch> batches_of(int n) {
  std::vector<Batch> out(static_cast<std::size_t>(std::max(n, 1)));
  out.resize(static_cast<std::size_t>(cut_batches(n, out.data())));
  return out;
}
// For a deck size known when compiling: a fixed list the loops unroll over.
template <int N>
struct FixedBatches {
  std::array<Batch, N> batch{};
  int size = 0;
  constexpr FixedBatches() { size = cut_batches(N, batch.data()); }
  const Batch* begin() const { return batch.data(); }
  const Batch* end() const { return batch.data() + size; }
};

// One shuffle: swap(i, j) for each position i from n - 1 down, j uniform in [0, i].
template <class Generator, class Batches, class Swap>
void batched_shuffle(Generator& gen, const Batches& batches, Swap&& swap) {
  std::uint64_t bound[64], index[64];
  for (const Batch& b : batches) {
    for (int c = 0; c < b.count; ++c) bound[c] = static_cast<std::uint64_t>(b.top - c + 1);
    batched_ranges(gen, bound, b.count, b.product, index);
    for (int c = 0; c < b.count; ++c) swap(b.top - c, index[c]);
  }
}

// The tallies of one shuffle, as melange counts them; the kind is a
// template argument, so that a trial's loop carries no test of it.
template <PeerTallies::Kind Kind>
struct Tallies {
  int n;
  std::vector<std::uint64_t> factorial, counts;
  explicit Tallies(int items) : n(items), factorial(static_cast<std::size_t>(items) + 1, 1) {
    for (int i = 1; i <= n; ++i) factorial[i] = factorial[i - 1] * static_cast<std::uint64_t>(i);
    counts.assign(Kind == PeerTallies::Kind::rows ? 1
                  : Kind == PeerTallies::Kind::rank_histogram ? factorial[n]
                                                              : static_cast<std::size_t>(n) * n,
                  0);
  }
  void count(const std::uint16_t* a, std::uint16_t* row_out) {
    if constexpr (Kind == PeerTallies::Kind::rows) {
      std::copy(a, a + n, row_out);
    } else if constexpr (Kind == PeerTallies::Kind::rank_histogram) {
      std::uint64_t r = 0;  // the Lehmer rank, as melange's rank histogram counts it
      for (int i = 0; i < n; ++i) {
        std::uint64_t smaller = 0;
        for (int j = i + 1; j < n; ++j) smaller += a[j] < a[i];
        r += smaller * factorial[n - 1 - i];
      }
      ++counts[r];
    } else {
      for (int pos = 0; pos < n; ++pos) ++counts[static_cast<std::size_t>(a[pos]) * n + pos];
    }
  }
  std::uint64_t checksum() const {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) sum += counts[i] * (i + 1);
    return sum;
  }
};

// Trials [0, trials) of one thread's share; rows go to `out` (rows only).
// N > 0: the deck size, known when compiling (the bench's usual sizes), so
// that the items stay in an array the compiler sees whole.
template <PeerTallies::Kind Kind, PeerTallies::Shuffler Shuffler, int N>
std::uint64_t one_thread(int items, std::uint64_t trials, std::uint64_t seed, std::uint16_t* out) {
  const auto n = static_cast<std::size_t>(N > 0 ? N : items);
  Tallies<Kind> tallies(static_cast<int>(n));
  std::conditional_t<(N > 0), std::array<std::uint16_t, static_cast<std::size_t>(N)>, std::vector<std::uint16_t>> a{};
  if constexpr (N == 0) a.resize(n);
  std::mt19937_64 mt(seed);
  Lehmer64 lehmer(seed);
  static constexpr FixedBatches<(N > 0 ? N : 1)> kFixed;
  const std::vector<Batch> runtime = N > 0 ? std::vector<Batch>{} : batches_of(static_cast<int>(n));
  for (std::uint64_t t = 0; t < trials; ++t) {
    std::iota(a.begin(), a.end(), std::uint16_t{0});
    const auto swap = [&](int i, std::uint64_t j) { std::swap(a[static_cast<std::size_t>(i)], a[j]); };
    if constexpr (Shuffler == PeerTallies::Shuffler::std_shuffle)
      std::shuffle(a.begin(), a.end(), mt);
    else if constexpr (N > 0)
      batched_shuffle(lehmer, kFixed, swap);
    else
      batched_shuffle(lehmer, runtime, swap);
    tallies.count(a.data(), out ? out + t * n : nullptr);
  }
  std::uint64_t checksum = tallies.checksum();
  if (out && trials > 0) checksum += out[trials * n - 1];
  return checksum;
}

// The deck sizes the bench and compare.sh use most, compiled as constants.
template <PeerTallies::Kind Kind, PeerTallies::Shuffler Shuffler>
std::uint64_t one_thread_sized(int n, std::uint64_t trials, std::uint64_t seed, std::uint16_t* out) {
  switch (n) {
    case 4: return one_thread<Kind, Shuffler, 4>(n, trials, seed, out);
    case 8: return one_thread<Kind, Shuffler, 8>(n, trials, seed, out);
    case 13: return one_thread<Kind, Shuffler, 13>(n, trials, seed, out);
    case 52: return one_thread<Kind, Shuffler, 52>(n, trials, seed, out);
    default: return one_thread<Kind, Shuffler, 0>(n, trials, seed, out);
  }
}

// The one_thread for a job's tallies and shuffler.
template <PeerTallies::Kind Kind>
std::uint64_t one_thread_of(const PeerTallies& job, std::uint64_t trials, std::uint64_t seed, std::uint16_t* out) {
  return job.shuffler == PeerTallies::Shuffler::std_shuffle
             ? one_thread_sized<Kind, PeerTallies::Shuffler::std_shuffle>(job.n, trials, seed, out)
             : one_thread_sized<Kind, PeerTallies::Shuffler::batched>(job.n, trials, seed, out);
}
std::uint64_t one_thread_of(const PeerTallies& job, std::uint64_t trials, std::uint64_t seed, std::uint16_t* out) {
  switch (job.kind) {
    case PeerTallies::Kind::rank_histogram: return one_thread_of<PeerTallies::Kind::rank_histogram>(job, trials, seed, out);
    case PeerTallies::Kind::position_matrix: return one_thread_of<PeerTallies::Kind::position_matrix>(job, trials, seed, out);
    case PeerTallies::Kind::rows: return one_thread_of<PeerTallies::Kind::rows>(job, trials, seed, out);
  }
  return 0;
}

}  // namespace

void batched_fisher_yates_indices(int n, std::uint64_t seed, std::uint32_t* swaps) {
  Lehmer64 gen(seed);
  batched_shuffle(gen, batches_of(n), [&](int i, std::uint64_t j) { swaps[n - 1 - i] = static_cast<std::uint32_t>(j); });
}

std::uint64_t run_peer(const PeerTallies& job, std::uint64_t trials, int threads) {
  threads = std::max(1, threads);
  // Thread w's trials: a contiguous share, as the engine splits them.
  const auto at = [&](int i) {
    return static_cast<std::uint64_t>(static_cast<unsigned __int128>(trials) * static_cast<unsigned>(i) /
                                      static_cast<unsigned>(threads));
  };
  const auto rows_of = [&](int w) {
    return job.rows_out ? job.rows_out + at(w) * static_cast<std::size_t>(job.n) : nullptr;
  };
  std::vector<std::uint64_t> sums(static_cast<std::size_t>(threads), 0);
  std::vector<std::thread> pool;
  for (int w = 1; w < threads; ++w)
    pool.emplace_back(
        [&, w] { sums[w] = one_thread_of(job, at(w + 1) - at(w), 20261201 + static_cast<std::uint64_t>(w), rows_of(w)); });
  sums[0] = one_thread_of(job, at(1), 20261201, rows_of(0));
  for (std::thread& t : pool) t.join();
  return std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
}

}  // namespace melange::cli
