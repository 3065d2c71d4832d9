// A Monte Carlo estimate written against melange's serving API: the chance
// that a shuffled deck leaves no card in its place (a derangement). It tends
// to 1/e as the deck grows; for 52 cards the exact value is !52/52!, which
// equals 1/e to 69 digits.
//
// The decks are records [0, decks) of the job; they come in pieces of a
// fixed size (for_each_piece), so memory stays at one piece however many
// decks are asked for, and the estimate is the same for any piece size,
// thread count or backend.
//
//   derangements [DECKS] [THREADS]      (defaults: 10^8 decks, all cores)
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "melange/serve.hpp"

int main(int argc, char** argv) {
  melange::Job job;
  job.n = 52;
  job.trials = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100'000'000;
  melange::RunOptions options;
  options.threads = argc > 2 ? std::atoi(argv[2]) : static_cast<int>(std::thread::hardware_concurrency());

  std::uint64_t deranged = 0;
  try {
    const melange::ServeInfo info = melange::for_each_piece(
        job, 1 << 20,
        melange::RecordPieces<std::uint8_t>(
            [&](std::span<const std::uint8_t> decks, std::uint64_t, std::uint64_t count) {
              for (std::uint64_t d = 0; d < count; ++d) {
                const std::uint8_t* deck = decks.data() + d * 52;
                bool fixed = false;
                for (int i = 0; i < 52; ++i) fixed |= deck[i] == i;
                deranged += !fixed;
              }
              return true;
            }),
        options);
    const double n = static_cast<double>(job.trials), p = static_cast<double>(deranged) / n;
    const double se = std::sqrt(p * (1 - p) / n), e = std::exp(-1.0);
    std::printf("decks %llu (seed %llu, %s, %d threads)\n", static_cast<unsigned long long>(job.trials),
                static_cast<unsigned long long>(job.seed), info.backend.c_str(), info.threads);
    std::printf("no card in its place: %llu, estimate %.6f +- %.6f\n", static_cast<unsigned long long>(deranged), p,
                se);
    std::printf("1/e = %.6f, off by %.2f standard errors\n", e, (p - e) / se);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "derangements: %s\n", e.what());
    return 2;
  }
  return 0;
}
