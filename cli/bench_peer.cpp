#include "bench_peer.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <thread>
#include <vector>

namespace melange::cli {
namespace {

// Trials [0, trials) of one thread's share; rows go to `out` (rows only).
std::uint64_t one_thread(const PeerTallies& job, std::uint64_t trials, std::uint64_t seed, std::uint16_t* out) {
  const int n = job.n;
  std::vector<std::uint64_t> factorial(static_cast<std::size_t>(n) + 1, 1);
  for (int i = 1; i <= n; ++i) factorial[i] = factorial[i - 1] * static_cast<std::uint64_t>(i);
  const bool rank = job.kind == PeerTallies::Kind::rank_histogram;
  const bool rows = job.kind == PeerTallies::Kind::rows;
  std::vector<std::uint64_t> counts(rows ? 1 : rank ? factorial[n] : static_cast<std::size_t>(n) * n, 0);
  std::mt19937_64 gen(seed);
  std::vector<std::uint16_t> a(static_cast<std::size_t>(n));
  for (std::uint64_t t = 0; t < trials; ++t) {
    std::iota(a.begin(), a.end(), std::uint16_t{0});
    std::shuffle(a.begin(), a.end(), gen);
    if (rows) {
      std::copy(a.begin(), a.end(), out + t * static_cast<std::size_t>(n));
    } else if (rank) {
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
  std::uint64_t checksum = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) checksum += counts[i] * (i + 1);
  if (rows && trials > 0) checksum += out[trials * static_cast<std::size_t>(n) - 1];
  return checksum;
}

}  // namespace

std::uint64_t run_std_shuffle(const PeerTallies& job, std::uint64_t trials, int threads) {
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
        [&, w] { sums[w] = one_thread(job, at(w + 1) - at(w), 20261201 + static_cast<std::uint64_t>(w), rows_of(w)); });
  sums[0] = one_thread(job, at(1), 20261201, rows_of(0));
  for (std::thread& t : pool) t.join();
  return std::accumulate(sums.begin(), sums.end(), std::uint64_t{0});
}

}  // namespace melange::cli
