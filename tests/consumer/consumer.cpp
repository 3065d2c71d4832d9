// melange::engine: a tiny audit through the backend table, and the table.
#include <melange/engine.hpp>
#include <melange/stream.hpp>

#include <cstdio>

int main() {
  melange::PhiloxStream s(0, 0);
  melange::Job job;
  job.n = 4;
  job.trials = 1000;
  const melange::RunResult r = melange::run(job);
  const bool has_scalar = melange::backend_table().front().name == "scalar";
  std::printf("%08x %llu %s\n", s.next(), static_cast<unsigned long long>(r.tally[melange::TallyKind::ranks].total()),
              has_scalar ? "table" : "no-table");
  return 0;
}
