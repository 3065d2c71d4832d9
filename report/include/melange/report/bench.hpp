// The bench document: rows of shuffles per second, each beside its peers
// (std::shuffle, and Fisher-Yates by batched ranged integers) and, where a
// trial is one Philox block, the machine's Philox limit, as the text table a person reads, the JSON and the CSV
// (contract §8). `melange bench` measures; this writes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace melange::report {

// The machine a bench ran on; an empty field: none.
struct BenchMachine {
  std::string cpu;
  unsigned hardware_threads = 0;
  std::string simd_arch;  // the widest the SIMD backend runs here
  std::string gpu;
  std::string compiler;
};
// The CPU's model name (/proc/cpuinfo) and the compiler of this build; the
// rest is the caller's to fill.
BenchMachine probe_machine();
// The 1-minute load average (/proc/loadavg), or -1 where it cannot be read.
double load_average();
// The CPUs' time so far, all of it and the part stolen by the hypervisor
// (/proc/stat, in ticks); zeros where it cannot be read.
struct CpuTimes {
  double total = 0, steal = 0;
};
CpuTimes cpu_times();

struct BenchRow {
  std::string algorithm;
  int n = 0;
  std::string backend;  // as asked: "scalar", "simd", "avx2", "cuda"
  int threads = 1;
  std::string tallies;  // what each trial fed: "rank histogram", "position matrix", or rows to a buffer
  // Measured.
  std::string ran_on;                    // the backend and architecture that ran it
  double median = 0, low = 0, high = 0;  // shuffles/s over the repeats
  double words_per_trial = 0;
  double peer = 0;  // std::shuffle's median shuffles/s on the same threads
  // Fisher-Yates by batched ranged integers over lehmer64 (bench_peer.hpp):
  // the strongest scalar peer's median shuffles/s, same tallies and threads.
  double batched_peer = 0;
  // The Philox limit (philox_limit_checksum): blocks/s on the same threads,
  // measured beside rows where a trial is one block (n <= 8, on the CPU);
  // 0 elsewhere.
  double limit = 0;
  std::string limit_arch;  // the architecture the limit ran on: the row's, or the widest ("scalar": none)
  std::uint64_t trials_per_run = 0;
  bool fallback = false;  // the asked backend had no kernel; the scalar path ran it
  bool steady = false;    // its runs and its peer's were long enough for set-up to weigh little
};

// A row whose runs spread over more than this share of their median
// (max - min): noisy, told with its likely cause.
inline constexpr double kNoisySpread = 0.10;
bool noisy(const BenchRow& r);
// A row measured above the Philox limit, which no trial rate can pass: a
// measurement error (the row's and the limit's runs saw different machine
// speeds), never a result.
bool above_limit(const BenchRow& r);

struct BenchDocument {
  BenchMachine machine;
  std::string mode;  // "audit" or "sample"
  std::string method;
  double seconds = 0;
  int repeats = 0;
  std::uint64_t sample_bytes = 0;  // sample mode: the reused buffer's size
  std::vector<BenchRow> rows;
  double elapsed_seconds = 0;  // what the measuring took
  // What else ran, the likely causes of noisy rows: the 1-minute load
  // average before the bench began (/proc/loadavg: other work; the bench's
  // own threads would count once it runs), and the share of CPU time the
  // hypervisor gave to other machines while it ran (/proc/stat's steal).
  // Negative: not known.
  double load_before = -1, steal_share = -1;
  bool sample_mode() const { return mode == "sample"; }
};

// "melange bench: audit mode, ..." and the machine: printed before measuring.
std::string bench_header_text(const BenchDocument& doc);
// The table of rows and its notes.
std::string bench_table_text(const BenchDocument& doc);
void write_bench_json(std::ostream& out, const BenchDocument& doc);
void write_bench_csv(std::ostream& out, const BenchDocument& doc);

}  // namespace melange::report
