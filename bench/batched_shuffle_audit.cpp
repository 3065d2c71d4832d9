// The strongest scalar peer built -O3 -march=native, for compare.sh's check
// that melange bench's build of it (cli/bench_peer.hpp: Fisher-Yates with
// indices drawn several to a 64-bit word by batched ranged integers from
// lehmer64) is no slower than its users' fastest; keeps a Lehmer-rank
// histogram (rank mode) or an item x position matrix (position mode) on
// one thread.
// Usage: batched_shuffle_audit rank|position N TRIALS
// Prints: trials, seconds, shuffles per second, and a checksum.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_peer.hpp"

int main(int argc, char** argv) {
  using melange::cli::PeerTallies;
  if (argc != 4 || (std::strcmp(argv[1], "rank") != 0 && std::strcmp(argv[1], "position") != 0)) {
    std::fprintf(stderr, "usage: batched_shuffle_audit rank|position N TRIALS\n");
    return 2;
  }
  const bool rank_mode = std::strcmp(argv[1], "rank") == 0;
  const int n = std::atoi(argv[2]);
  const auto trials = static_cast<std::uint64_t>(std::strtod(argv[3], nullptr));
  if (n < 2 || n > 1024 || (rank_mode && n > 10) || trials == 0) {
    std::fprintf(stderr, "batched_shuffle_audit: n must be 2..10 for rank, 2..1024 for position\n");
    return 2;
  }
  PeerTallies job;
  job.n = n;
  job.kind = rank_mode ? PeerTallies::Kind::rank_histogram : PeerTallies::Kind::position_matrix;
  job.shuffler = PeerTallies::Shuffler::batched;
  const auto start = std::chrono::steady_clock::now();
  const std::uint64_t checksum = melange::cli::run_peer(job, trials, 1);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%llu %.6f %.6e %llu\n", static_cast<unsigned long long>(trials), seconds, static_cast<double>(trials) / seconds,
              static_cast<unsigned long long>(checksum));
  return 0;
}
