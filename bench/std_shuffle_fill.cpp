// The C++ peer of melange's serving API: std::shuffle with std::mt19937_64
// filling a buffer of `count` permutations of n items (uint8, row-major),
// each row shuffled from the identity, as a Monte Carlo author would write
// it. Prints the seconds the fill took and a checksum (so that nothing is
// optimized away).
// Usage: std_shuffle_fill N COUNT
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: std_shuffle_fill N COUNT\n");
    return 2;
  }
  const int n = std::atoi(argv[1]);
  const std::uint64_t count = std::strtoull(argv[2], nullptr, 10);
  if (n < 1 || n > 256 || count == 0) {
    std::fprintf(stderr, "std_shuffle_fill: 1 <= N <= 256 and COUNT >= 1\n");
    return 2;
  }
  std::vector<std::uint8_t> out(count * static_cast<std::uint64_t>(n));
  std::mt19937_64 engine(2024);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t r = 0; r < count; ++r) {
    std::uint8_t* row = out.data() + r * n;
    std::iota(row, row + n, std::uint8_t{0});
    std::shuffle(row, row + n, engine);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::uint64_t sum = 0;
  for (std::uint64_t r = 0; r < count; r += 997) sum += out[r * n];
  std::printf("%.6f %llu\n", seconds, static_cast<unsigned long long>(sum));
  return 0;
}
