// Prints the first word of stream 0 under seed 0 and a tiny audit's total.
#include <melange/engine.hpp>
#include <melange/stream.hpp>

#include <cstdio>

int main() {
  melange::PhiloxStream s(0, 0);
  melange::Job job;
  job.n = 4;
  job.trials = 1000;
  const melange::RunResult r = melange::run(job);
  std::printf("%08x %llu\n", s.next(), static_cast<unsigned long long>(r.tally.ranks.total()));
  return 0;
}
