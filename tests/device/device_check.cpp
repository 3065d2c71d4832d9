// melange_device_check: the GPU proof, runnable where the test frameworks are
// not installed. It checks the CUDA backend against the CPU bit for bit and
// cuRAND's device API word for word, then measures the GPU and the CPU (the
// SIMD backend on every core) on the same jobs and prints a short table
// last. Each section prints as it ends, so a run cut short loses nothing.
//
//   melange_device_check [--cpu-only] [--quick] [--plant-impossible-job]
//   melange_device_check --profile
//
// --cpu-only runs the CPU half alone: every job's CPU reference and every
// check's bookkeeping (the plan, the totals), with the GPU side answered by
// an unavailable device, so that CI catches a broken link, an impossible job
// or a refused plan where there is no GPU. --quick cuts the trial counts a
// hundredfold. --plant-impossible-job adds a job no plan accepts (a test
// that the check catches one). --profile runs only the benchmarks' audit
// kernels, once each on the GPU, for a profiler (ncu) to read: no check, no
// CPU side. Exit status 0 when no check fails (a MISS
// against a speed target is reported, not failed), 1 otherwise.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <span>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <cuda_runtime.h>

#include "melange/cuda/device.hpp"
#include "melange/deal.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/serve.hpp"
#include "melange/stream.hpp"

namespace {

using namespace melange;
using Clock = std::chrono::steady_clock;

struct Options {
  bool cpu_only = false, quick = false, plant_impossible = false, profile = false;
};

// What the GPU side throws in the CPU half: the check is a SKIP, its CPU
// side having run.
struct NoGpu {};

// The GPU side of every check.
class Gpu {
 public:
  virtual ~Gpu() = default;
  virtual RunResult run(const Job& job) = 0;
  virtual std::vector<std::uint16_t> sample(const Job& job) = 0;
  // Byte records (fill_records into std::uint8_t), which the kernels write as bytes.
  virtual std::vector<std::uint8_t> sample_bytes(const Job& job) = 0;
  virtual std::vector<std::uint16_t> fill_device(const Job& job) = 0;
  virtual std::vector<std::uint32_t> stream_words(std::uint64_t seed, std::uint64_t stream, std::uint64_t count) = 0;
  virtual std::vector<std::uint32_t> curand_words(std::uint64_t seed, std::uint64_t stream, std::uint64_t count) = 0;
  virtual cuda::PhiloxChecksum philox(std::uint64_t seed, std::uint64_t first, std::uint64_t streams, int blocks) = 0;
  virtual cuda::KernelShape shape(const Job& job) = 0;
  virtual cuda::TimedAudit timed(const Job& job) = 0;
};

RunOptions on(const std::string& backend, int threads = 1) {
  RunOptions o;
  o.backend = backend;
  o.threads = threads;
  return o;
}

class CudaGpu final : public Gpu {
 public:
  RunResult run(const Job& job) override { return melange::run(job, on("cuda")); }
  std::vector<std::uint16_t> sample(const Job& job) override { return melange::sample(job, on("cuda")).permutations; }
  std::vector<std::uint8_t> sample_bytes(const Job& job) override {
    std::vector<std::uint8_t> out(job.trials * static_cast<std::size_t>(record_items(job)));
    fill_records(job, std::span<std::uint8_t>(out), on("cuda"));
    return out;
  }
  std::vector<std::uint16_t> fill_device(const Job& job) override {
    const std::size_t items = job.trials * static_cast<std::size_t>(record_items(job));
    std::uint16_t* device = nullptr;
    if (cudaMalloc(&device, items * sizeof(std::uint16_t)) != cudaSuccess) throw Error("cudaMalloc failed");
    std::vector<std::uint16_t> back(items);
    cudaError_t copied = cudaSuccess;
    try {
      cuda::fill_device(job, device);
      copied = cudaMemcpy(back.data(), device, items * sizeof(std::uint16_t), cudaMemcpyDeviceToHost);
    } catch (...) {
      cudaFree(device);
      throw;
    }
    cudaFree(device);
    if (copied != cudaSuccess) throw Error(std::string("copying the records back: ") + cudaGetErrorString(copied));
    return back;
  }
  std::vector<std::uint32_t> stream_words(std::uint64_t seed, std::uint64_t stream, std::uint64_t count) override {
    return cuda::stream_words(seed, stream, count);
  }
  std::vector<std::uint32_t> curand_words(std::uint64_t seed, std::uint64_t stream, std::uint64_t count) override {
    return cuda::curand_words(seed, stream, count);
  }
  cuda::PhiloxChecksum philox(std::uint64_t seed, std::uint64_t first, std::uint64_t streams, int blocks) override {
    return cuda::philox_checksum(seed, first, streams, blocks);
  }
  cuda::KernelShape shape(const Job& job) override { return cuda::audit_kernel_shape(job); }
  cuda::TimedAudit timed(const Job& job) override { return cuda::timed_audit(job); }
};

// The CPU half's device: there is none.
class NoDevice final : public Gpu {
 public:
  RunResult run(const Job&) override { throw NoGpu{}; }
  std::vector<std::uint16_t> sample(const Job&) override { throw NoGpu{}; }
  std::vector<std::uint8_t> sample_bytes(const Job&) override { throw NoGpu{}; }
  std::vector<std::uint16_t> fill_device(const Job&) override { throw NoGpu{}; }
  std::vector<std::uint32_t> stream_words(std::uint64_t, std::uint64_t, std::uint64_t) override { throw NoGpu{}; }
  std::vector<std::uint32_t> curand_words(std::uint64_t, std::uint64_t, std::uint64_t) override { throw NoGpu{}; }
  cuda::PhiloxChecksum philox(std::uint64_t, std::uint64_t, std::uint64_t, int) override { throw NoGpu{}; }
  cuda::KernelShape shape(const Job&) override { throw NoGpu{}; }
  cuda::TimedAudit timed(const Job&) override { throw NoGpu{}; }
};

struct Counts {
  int passed = 0, failed = 0, skipped = 0;
};
Counts counts;

void report(const char* status, const std::string& what) {
  std::printf("%s  %s\n", status, what.c_str());
  std::fflush(stdout);
  if (std::strcmp(status, "PASS") == 0) ++counts.passed;
  else if (std::strcmp(status, "FAIL") == 0) ++counts.failed;
  else ++counts.skipped;
}
void report(bool ok, const std::string& what) { report(ok ? "PASS" : "FAIL", what); }

// Runs one check; an exception (a CUDA fault, a refused plan) is a FAIL line
// naming it and the next check runs; NoGpu is a SKIP.
void guarded(const std::string& what, const std::function<void()>& check) {
  try {
    check();
  } catch (const NoGpu&) {
    report("SKIP", what + ": no GPU (the CPU half ran)");
  } catch (const std::exception& e) {
    report(false, what + ": " + e.what());
  }
}

Job job_of(Algorithm a, int n, BoundedSpec spec, std::uint64_t first, std::uint64_t trials) {
  Job j{.seed = 20261130, .algorithm = a, .spec = spec, .n = n, .first = first, .trials = trials,
        .tallies = {TallyKind::positions}};
  j.tallies.set(TallyKind::ranks, n <= 8);
  return j;
}

std::string describe(const Job& job) {
  return std::string(algorithm_name(job.algorithm)) + " n=" + std::to_string(job.n) +
         (is_deal(job) ? " k=" + std::to_string(job.k) : "") + " " + std::string(method_name(job.spec.method)) + "/" +
         std::to_string(job.spec.bits) + (job.tallies.has(TallyKind::ranks) ? " ranks" : "") +
         (job.tallies.has(TallyKind::positions) ? " positions" : "") + (job.tallies.has(TallyKind::hands) ? " hands" : "") + ", " +
         std::to_string(job.trials) + " trials from " + std::to_string(job.first);
}

// "" when equal, else the first difference.
std::string first_difference(const Tally& gpu, const Tally& cpu) {
  if (gpu.trials != cpu.trials) return "trials " + std::to_string(gpu.trials) + " vs " + std::to_string(cpu.trials);
  if (gpu.words != cpu.words) return "words " + std::to_string(gpu.words) + " vs " + std::to_string(cpu.words);
  if (gpu.draws != cpu.draws) return "draws " + std::to_string(gpu.draws) + " vs " + std::to_string(cpu.draws);
  for (std::uint64_t b = 0; b < cpu[TallyKind::ranks].counts().size(); ++b)
    if (gpu[TallyKind::ranks].counts()[b] != cpu[TallyKind::ranks].counts()[b])
      return "rank bin " + std::to_string(b) + ": " + std::to_string(gpu[TallyKind::ranks].counts()[b]) + " vs " +
             std::to_string(cpu[TallyKind::ranks].counts()[b]);
  for (std::size_t c = 0; c < cpu[TallyKind::positions].counts().size(); ++c)
    if (gpu[TallyKind::positions].counts()[c] != cpu[TallyKind::positions].counts()[c])
      return "position cell " + std::to_string(c) + ": " + std::to_string(gpu[TallyKind::positions].counts()[c]) + " vs " +
             std::to_string(cpu[TallyKind::positions].counts()[c]);
  if (gpu[TallyKind::hands] != cpu[TallyKind::hands]) return "hand counts differ";
  if (gpu[TallyKind::poker] != cpu[TallyKind::poker]) return "poker category counts differ";
  return "";
}

class DeviceCheck {
 public:
  DeviceCheck(Gpu& gpu, Options options, int cpu_threads) : gpu_(gpu), o_(options), cpu_threads_(cpu_threads) {}

  // Trials for a check: a hundredth under --quick, at least 1,000.
  std::uint64_t trials(std::uint64_t full) const { return o_.quick ? std::max<std::uint64_t>(full / 100, 1000) : full; }

  // The CPU reference (SIMD on every core; the plan refuses an impossible
  // job here, on any machine) and its totals, then the GPU against it.
  void compare(const Job& job) {
    guarded("tallies = CPU: " + describe(job), [&] {
      const RunResult cpu = run(job, on("simd", cpu_threads_));
      const std::string wrong = tally_inconsistency(job, cpu.tally, job.trials);
      if (!wrong.empty() || cpu.tally.trials != job.trials)
        return report(false, "CPU reference of " + describe(job) + ": " + (wrong.empty() ? "trials" : wrong));
      const RunResult gpu = gpu_.run(job);
      const std::string diff = gpu.backend != "cuda" ? "ran on " + gpu.backend : first_difference(gpu.tally, cpu.tally);
      report(diff.empty(), "tallies = CPU: " + describe(job) + (diff.empty() ? "" : " (first difference: " + diff + ")"));
    });
  }

  void check_streams() {
    for (std::uint64_t seed : {0ull, 42ull, 0xfedcba9876543210ull})
      for (std::uint64_t stream : {0ull, 1ull, 0xffffffffull, 0x123456789abcull, ~0ull})
        guarded("stream words, seed " + std::to_string(seed) + " stream " + std::to_string(stream), [&] {
          PhiloxStream host(seed, stream);
          std::vector<std::uint32_t> want(1001);
          for (auto& w : want) w = host.next();
          const auto gpu = gpu_.stream_words(seed, stream, 1001);
          report(gpu == want, "stream words = host, seed " + std::to_string(seed) + " stream " + std::to_string(stream));
          report(gpu_.curand_words(seed, stream, 37) == std::vector<std::uint32_t>(want.begin(), want.begin() + 37),
                 "stream words = curand_init(seed, t, 0) + curand(), seed " + std::to_string(seed) + " stream " +
                     std::to_string(stream));
        });
  }

  // Every algorithm x {lemire, batched} x n x {ranks, positions, both}: the
  // register kernels (n <= 8 one word a draw), the decision tables (small n
  // under batched), the shared and global counter layouts, each against the
  // CPU bit for bit.
  void check_tallies() {
    const BoundedSpec methods[] = {{Method::lemire, 32}, {Method::batched, 32}};
    for (Algorithm a : kAllAlgorithms)
      for (const BoundedSpec& spec : methods)
        for (int n : {2, 3, 4, 6, 7, 9, 11, 52, 110, 128}) {
          // Deals below; the weighted orders and the card shuffles are CPU only.
          if (n > max_items(a) || a == Algorithm::partial || draw_kind(a) == DrawKind::keys ||
              draw_kind(a) == DrawKind::cards)
            continue;
          for (int kinds : {1, 2, 3}) {  // 1 ranks, 2 positions, 3 both
            const bool ranks = kinds & 1, positions = kinds & 2;
            if (ranks && n > 11) continue;
            Job job = job_of(a, n, spec, (std::uint64_t{1} << 32) - 300'000, trials(n <= 11 ? 1'000'003 : 200'003));
            job.tallies.set(TallyKind::ranks, ranks);
            job.tallies.set(TallyKind::positions, positions);
            compare(job);
          }
        }
    check_deals();
    check_other_methods();
    // Trial ranges that end at index 2^64 - 1: the last streams, the loop's end.
    for (auto [a, n, spec] : {std::tuple{Algorithm::fisher_yates, 4, BoundedSpec{Method::lemire, 32}},
                              std::tuple{Algorithm::fisher_yates, 52, BoundedSpec{Method::batched, 32}},
                              std::tuple{Algorithm::sort_binary_insertion, 6, BoundedSpec{Method::batched, 32}}}) {
      const std::uint64_t count = trials(1'000'003);
      compare(job_of(a, n, spec, ~std::uint64_t{0} - (count - 1), count));
    }
    // Past 2^32 trials: several launches, merged.
    Job big = job_of(Algorithm::fisher_yates, 4, {}, 7, o_.quick ? 1'000'000 : (std::uint64_t{1} << 32) + 1'000'000);
    if (o_.quick) big.first = (std::uint64_t{1} << 32) - 500'000;
    big.tallies.set(TallyKind::positions, false);
    compare(big);
    if (o_.plant_impossible) {
      // A job no plan accepts: 128 choose 7 hands are 9.45e10 bins.
      Job impossible = job_of(Algorithm::partial, 128, {}, 0, 1000);
      impossible.k = 7;
      impossible.tallies.set(TallyKind::ranks, false);
      impossible.tallies.set(TallyKind::hands, true);
      compare(impossible);
    }
  }

  // Deals: register (n <= 8) and shared-memory items, every deal tally,
  // poker's hands (global counters) and categories.
  void check_deals() {
    for (const BoundedSpec spec : {BoundedSpec{Method::lemire, 32}, BoundedSpec{Method::batched, 32}})
      for (auto [n, k] : {std::pair{6, 2}, {8, 5}, {8, 8}, {11, 3}, {52, 5}, {128, 7}}) {
        Job job = job_of(Algorithm::partial, n, spec, (std::uint64_t{1} << 32) - 300'000, trials(1'000'003));
        job.k = k;
        job.tallies.set(TallyKind::ranks, deal_count(n, k) <= 40'000'000);
        job.tallies.set(TallyKind::positions, true);
        // A hand histogram where it fits: C(128, 7) = 9.45e10 bins would not.
        job.tallies.set(TallyKind::hands, k < n && hand_count(n, k) <= 40'000'000);
        job.tallies.set(TallyKind::poker, n == 52 && k == 5);
        compare(job);
      }
  }

  // modulo, rejection and multiply on every kernel kind they reach: the
  // register kernels (n <= 8) and the general ones, for a swap algorithm and
  // a sort; narrow sources among them.
  void check_other_methods() {
    for (Method m : {Method::modulo, Method::rejection, Method::multiply})
      for (Algorithm a : {Algorithm::naive_swap, Algorithm::sort_binary_insertion})
        for (int n : {5, 52}) {
          if (n > max_items(a)) continue;
          const int bits = m == Method::modulo ? 8 : m == Method::rejection ? 7 : 9;
          compare(job_of(a, n, BoundedSpec{m, bits}, 12345, trials(1'000'003)));
          compare(job_of(a, n, BoundedSpec{m, 32}, 12345, trials(1'000'003)));
        }
  }

  // Records on the GPU: the register sample kernels (n <= 8), tables, deals
  // and the general kernels, into host memory and left in device memory.
  void check_samples() {
    for (auto [a, n, spec] : {std::tuple{Algorithm::fisher_yates, 2, BoundedSpec{Method::lemire, 32}},
                              std::tuple{Algorithm::fisher_yates, 5, BoundedSpec{Method::lemire, 32}},
                              std::tuple{Algorithm::sattolo, 8, BoundedSpec{Method::lemire, 32}},
                              std::tuple{Algorithm::naive_swap, 7, BoundedSpec{Method::modulo, 8}},
                              std::tuple{Algorithm::sort_v8_timsort, 9, BoundedSpec{Method::batched, 32}},
                              std::tuple{Algorithm::sort_binary_insertion, 6, BoundedSpec{Method::batched, 32}},
                              std::tuple{Algorithm::fisher_yates, 52, BoundedSpec{Method::batched, 32}},
                              std::tuple{Algorithm::fisher_yates, 6, BoundedSpec{Method::batched, 32}},
                              std::tuple{Algorithm::partial, 6, BoundedSpec{Method::batched, 32}},
                              std::tuple{Algorithm::partial, 52, BoundedSpec{Method::lemire, 32}}}) {
      Job job = job_of(a, n, spec, 99, trials(1'000'003));
      if (a == Algorithm::partial) job.k = n == 52 ? 5 : 3;
      guarded("samples " + describe(job), [&] {
        const std::vector<std::uint16_t> cpu = sample(job, on("simd", cpu_threads_)).permutations;
        if (cpu.size() != job.trials * static_cast<std::size_t>(record_items(job)))
          return report(false, "CPU samples of " + describe(job) + ": wrong size");
        report(gpu_.sample(job) == cpu, "sampled records = CPU: " + describe(job));
        const std::vector<std::uint8_t> bytes = gpu_.sample_bytes(job);
        report(std::equal(bytes.begin(), bytes.end(), cpu.begin(), cpu.end()),
               "byte records = CPU: " + describe(job));
        report(gpu_.fill_device(job) == cpu, "fill_device into the caller's device memory = CPU: " + describe(job));
      });
    }
  }

  void benchmarks();

 private:
  Gpu& gpu_;
  Options o_;
  int cpu_threads_;
};

double seconds_of(const std::function<void()>& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Every audit row: its rates, the kernel's shape, and whether its totals held.
struct Row {
  std::string what;
  double gpu_rate = 0, cpu_rate = 0;  // 0: not measured
  double kernel_rate = 0;             // the kernels' own time (CUDA events)
  std::string unit;
  double target = 0;  // the GPU rate the row should reach (0: none)
  std::string shape;  // grid, blocks per SM, registers
};

// A row as soon as it is measured, so that a run cut short keeps it.
void print_row_now(const Row& r) {
  std::printf("ROW   %s: GPU %.3e, kernel-only %.3e, CPU (SIMD, all threads) %.3e %s; kernel (grid, blocks/SM, registers) %s\n",
              r.what.c_str(), r.gpu_rate, r.kernel_rate, r.cpu_rate, r.unit.c_str(), r.shape.c_str());
  std::fflush(stdout);
}

// The longest the 10^12-trial run may be predicted to take and still run.
constexpr double kLongestTrillionSeconds = 60;
constexpr const char* kN4Row = "fisher-yates n=4 audit, batched";

void print_rows(const std::vector<Row>& rows, double trillion_seconds, bool trillion_predicted) {
  std::printf("\n%-40s %12s %12s %15s %9s %10s %6s  %s\n", "job", "GPU", "kernel-only", "CPU (SIMD, all)",
              "GPU/CPU", "target", "", "kernel (grid, blocks/SM, registers)");
  int targets = 0, met = 0;
  for (const Row& r : rows) {
    const bool measured = r.gpu_rate > 0;
    targets += r.target > 0;
    met += r.target > 0 && measured && r.gpu_rate >= r.target;
    std::printf("%-40s %12.3e %12.3e %15.3e %8.0fx %10.0e %6s  %s (%s)\n", r.what.c_str(), r.gpu_rate,
                r.kernel_rate, r.cpu_rate,
                r.cpu_rate > 0 ? r.gpu_rate / r.cpu_rate : 0.0, r.target,
                r.target == 0 ? "" : !measured ? "-" : r.gpu_rate >= r.target ? "MET" : "MISS", r.shape.c_str(),
                r.unit.c_str());
  }
  ++targets;
  met += trillion_seconds > 0 && trillion_seconds < 10;
  std::printf("%-40s %10.2f s %12s %15s %9s %10s %6s\n",
              trillion_predicted ? "10^12-trial n=4 audit (predicted)" : "10^12-trial n=4 audit", trillion_seconds, "",
              "", "", "< 10 s",
              trillion_seconds <= 0 ? "-" : trillion_seconds < 10 ? "MET" : "MISS");
  std::printf("targets met: %d of %d%s\n", met, targets, rows.empty() || rows[0].gpu_rate > 0 ? "" : " (no GPU: none measured)");
  std::fflush(stdout);
}

void DeviceCheck::benchmarks() {
  std::vector<Row> rows;
  guarded("raw Philox benchmark", [&] {
    std::uint32_t x = 0;
    const std::uint64_t host_streams = trials(std::uint64_t{1} << 22);
    const double c = seconds_of([&] {
      for (std::uint64_t s = 0; s < host_streams; ++s) {
        const PhiloxCounter w = philox4x32_10(stream_counter(s, 0), stream_key(1));
        x ^= w.v[0] ^ w.v[1] ^ w.v[2] ^ w.v[3];
      }
    });
    Row row{.what = "raw Philox4x32-10",
            .cpu_rate = host_streams * 4.0 / c * cpu_threads_,
            .unit = "words/s",
            .target = 8e11,
            .shape = "one thread a stream"};
    rows.push_back(row);
    // 2^28 streams x 16 blocks of four words; the kernel's own time.
    const std::uint64_t streams = std::uint64_t{1} << 28;
    gpu_.philox(1, 0, 1 << 20, 1);  // warm-up
    const double t = gpu_.philox(1, 0, streams, 16).seconds;
    report(gpu_.philox(1, 0, host_streams, 1).checksum == x, "Philox checksum of the first streams = host");
    rows.back().gpu_rate = rows.back().kernel_rate = streams * 64.0 / t;  // the kernel's own time
    print_row_now(rows.back());
  });
  auto audit_row = [&](const std::string& what, Job job, std::uint64_t gpu_trials, std::uint64_t cpu_trials,
                       double target) {
    rows.push_back(Row{.what = what, .unit = "shuffles/s", .target = target, .shape = ""});
    guarded(what, [&] {
      job.trials = trials(cpu_trials);
      RunResult cpu;
      const double c = seconds_of([&] { cpu = run(job, on("simd", cpu_threads_)); });
      report(tally_inconsistency(job, cpu.tally, job.trials).empty(), what + ": CPU totals = " + std::to_string(job.trials));
      rows.back().cpu_rate = job.trials / c;
      const cuda::KernelShape s = gpu_.shape(job);
      rows.back().shape = std::to_string(s.grid) + ", " + std::to_string(s.blocks_per_sm) + ", " + std::to_string(s.registers);
      job.trials = gpu_trials / 100;
      gpu_.run(job);  // warm-up
      job.trials = gpu_trials;
      RunResult gpu;
      const double g = seconds_of([&] { gpu = gpu_.run(job); });
      report(gpu.tally.trials == job.trials && tally_inconsistency(job, gpu.tally, job.trials).empty(),
             what + ": GPU totals = " + std::to_string(job.trials) + " trials");
      rows.back().gpu_rate = job.trials / g;
      // The same job in one backend call, timed by CUDA events.
      const cuda::TimedAudit kernel = gpu_.timed(job);
      report(kernel.tally == gpu.tally, what + ": one timed call = the engine's run");
      rows.back().kernel_rate = job.trials / kernel.kernel_seconds;
      print_row_now(rows.back());
    });
  };
  Job n4 = job_of(Algorithm::fisher_yates, 4, {}, 0, 0);
  n4.tallies.set(TallyKind::positions, false);
  audit_row(kN4Row, n4, 100'000'000'000ull, 2'000'000'000ull, 2e11);
  Job n4_lemire = n4;
  n4_lemire.spec = BoundedSpec{Method::lemire, 32};
  audit_row("fisher-yates n=4 audit, lemire", n4_lemire, 100'000'000'000ull, 2'000'000'000ull, 2e11);
  Job sort4 = n4;
  sort4.algorithm = Algorithm::sort_binary_insertion;
  audit_row("sort-binary-insertion n=4, batched", sort4, 100'000'000'000ull, 2'000'000'000ull, 0);
  Job n52 = job_of(Algorithm::fisher_yates, 52, {}, 0, 0);
  audit_row("fisher-yates n=52 + positions, batched", n52, 10'000'000'000ull, 100'000'000ull, 1e10);
  Job n52_lemire = n52;
  n52_lemire.spec = BoundedSpec{Method::lemire, 32};
  audit_row("fisher-yates n=52 + positions, lemire", n52_lemire, 10'000'000'000ull, 100'000'000ull, 1e10);
  double trillion = 0;
  bool trillion_predicted = false;
  guarded("10^12-trial audit", [&] {
    Job j = n4;
    j.trials = 1'000'000'000'000ull;
    // A GPU far under the target would spend the check's whole watchdog on
    // this one run: its time is then the n = 4 row's rate, said as such.
    const auto n4_row = std::find_if(rows.begin(), rows.end(), [](const Row& r) { return r.what == kN4Row; });
    const double predicted = n4_row != rows.end() && n4_row->gpu_rate > 0 ? j.trials / n4_row->gpu_rate : 0;
    if (predicted > kLongestTrillionSeconds) {
      trillion = predicted;
      trillion_predicted = true;
      return report("SKIP", "10^12-trial audit not run: at the n=4 row's " + std::to_string(n4_row->gpu_rate) +
                                " trials/s it would take " + std::to_string(predicted) + " s");
    }
    RunResult r;
    const double t = seconds_of([&] { r = gpu_.run(j); });
    report(r.tally.trials == j.trials && r.tally[TallyKind::ranks].total() == j.trials && r.tally.words >= j.trials,
           "10^12-trial audit counted every trial: " + std::to_string(r.tally[TallyKind::ranks].total()) + " in the histogram, " +
               std::to_string(r.tally.words) + " words");
    trillion = t;
  });
  print_rows(rows, trillion, trillion_predicted);
}

// Prints a FAIL line and ends the process if the checks outlive `seconds`;
// what was printed so far stays (every line is flushed as it is written).
void watchdog(int seconds) {
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::printf("FAIL  timeout: the checks ran past %d s; the lines above stand\n", seconds);
    std::fflush(stdout);
    std::_Exit(1);
  }).detach();
}

// One section: a heading, the checks, the time it took.
void section(const char* name, const std::function<void()>& body) {
  std::printf("== %s\n", name);
  std::fflush(stdout);
  const double t = seconds_of(body);
  std::printf("== %s: %.1f s (%d passed, %d failed, %d skipped so far)\n", name, t, counts.passed, counts.failed,
              counts.skipped);
  std::fflush(stdout);
}

// The benchmarks' audit jobs, each one launch on the GPU, for a profiler.
int profile_kernels() {
  Job n4 = job_of(Algorithm::fisher_yates, 4, {}, 0, std::uint64_t{1} << 32);
  n4.tallies.set(TallyKind::positions, false);
  Job n4_lemire = n4;
  n4_lemire.spec = BoundedSpec{Method::lemire, 32};
  const Job n52 = job_of(Algorithm::fisher_yates, 52, {}, 0, std::uint64_t{1} << 30);
  for (const Job& job : {n4, n4_lemire, n52}) {
    const RunResult r = run(job, on("cuda"));
    std::printf("profiled %s: %s\n", describe(job).c_str(), r.tally.trials == job.trials ? "ran" : "WRONG TRIAL COUNT");
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cpu-only") o.cpu_only = true;
    else if (a == "--quick") o.quick = true;
    else if (a == "--plant-impossible-job") o.plant_impossible = true;
    else if (a == "--profile") o.profile = true;
    else {
      std::fprintf(stderr, "usage: melange_device_check [--cpu-only] [--quick] [--plant-impossible-job] | --profile\n");
      return 2;
    }
  }
  const std::string reason = cuda::unavailable_reason();
  if (!o.cpu_only && !reason.empty()) {
    std::printf("%s: nothing to check (run with --cpu-only for the CPU half)\n", reason.c_str());
    return 1;
  }
  if (o.profile) return profile_kernels();
  const char* limit = std::getenv("MELANGE_CHECK_SECONDS");
  watchdog(limit ? std::atoi(limit) : 240);
  const int cpu_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("device: %s; CPU threads: %d%s%s\n", o.cpu_only ? "none (the CPU half)" : cuda::device_name().c_str(),
              cpu_threads, o.quick ? "; quick: trials cut a hundredfold" : "",
              o.plant_impossible ? "; an impossible job planted" : "");
  std::unique_ptr<Gpu> gpu = o.cpu_only ? std::unique_ptr<Gpu>(std::make_unique<NoDevice>())
                                        : std::unique_ptr<Gpu>(std::make_unique<CudaGpu>());
  DeviceCheck check(*gpu, o, cpu_threads);
  section("streams", [&] { check.check_streams(); });
  section("tallies = CPU", [&] { check.check_tallies(); });
  section("samples = CPU", [&] { check.check_samples(); });
  section("benchmarks", [&] { check.benchmarks(); });
  std::printf("checks: %s (%d passed, %d failed, %d skipped)\n", counts.failed == 0 ? "none failed" : "FAILED",
              counts.passed, counts.failed, counts.skipped);
  return counts.failed == 0 ? 0 : 1;
}
