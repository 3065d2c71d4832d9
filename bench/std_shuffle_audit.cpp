// The peer melange is compared with: the audit a C++ programmer writes with
// the standard library. std::shuffle with std::mt19937_64, then a Lehmer-rank
// histogram (rank mode) or an item x position matrix (position mode).
// Usage: std_shuffle_audit rank|position N TRIALS
// Prints: trials, seconds, shuffles per second, and a checksum.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4 || (std::strcmp(argv[1], "rank") != 0 && std::strcmp(argv[1], "position") != 0)) {
    std::fprintf(stderr, "usage: std_shuffle_audit rank|position N TRIALS\n");
    return 2;
  }
  const bool rank_mode = std::strcmp(argv[1], "rank") == 0;
  const int n = std::atoi(argv[2]);
  const auto trials = static_cast<std::uint64_t>(std::strtod(argv[3], nullptr));
  if (n < 1 || n > 1024 || (rank_mode && n > 10) || trials == 0) {
    std::fprintf(stderr, "std_shuffle_audit: n must be 1..10 for rank, 1..1024 for position\n");
    return 2;
  }
  std::vector<std::uint64_t> factorial(n + 1, 1);
  for (int i = 1; i <= n; ++i) factorial[i] = factorial[i - 1] * i;
  std::vector<std::uint64_t> counts(rank_mode ? factorial[n] : static_cast<std::size_t>(n) * n, 0);
  std::mt19937_64 gen(20261130);
  std::vector<int> a(n);

  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t t = 0; t < trials; ++t) {
    std::iota(a.begin(), a.end(), 0);
    std::shuffle(a.begin(), a.end(), gen);
    if (rank_mode) {
      std::uint64_t r = 0;
      for (int i = 0; i < n; ++i) {
        int smaller = 0;
        for (int j = i + 1; j < n; ++j) smaller += a[j] < a[i];
        r += smaller * factorial[n - 1 - i];
      }
      ++counts[r];
    } else {
      for (int pos = 0; pos < n; ++pos) ++counts[static_cast<std::size_t>(a[pos]) * n + pos];
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t checksum = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) checksum += counts[i] * (i + 1);
  std::printf("%llu %.6f %.6e %llu\n", static_cast<unsigned long long>(trials), seconds,
              trials / seconds, static_cast<unsigned long long>(checksum));
  return 0;
}
