// melange_device_check: the GPU proof, runnable where the test frameworks are
// not installed. It checks the CUDA backend against the CPU bit for bit and
// cuRAND's device API word for word, then measures the GPU and the CPU on the
// same jobs and prints a short table last. Exit status 0 when every check
// passes, 1 otherwise (or without a device).
#include <chrono>
#include <cstdlib>
#include <exception>
#include <tuple>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "melange/cuda/device.hpp"
#include "melange/deal.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"

namespace {

using namespace melange;
using Clock = std::chrono::steady_clock;

int failures = 0;

void report(bool ok, const std::string& what) {
  std::printf("%s  %s\n", ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
  failures += !ok;
}

// Runs one check; an exception (a CUDA fault, say) is a FAIL line naming it,
// and the next check runs.
void guarded(const std::string& what, const std::function<void()>& check) {
  try {
    check();
  } catch (const std::exception& e) {
    report(false, what + ": " + e.what());
  }
}

RunOptions on(const std::string& k, int threads = 1) {
  RunOptions o;
  o.backend = k;
  o.threads = threads;
  return o;
}

Job job_of(Algorithm a, int n, BoundedSpec spec, std::uint64_t first, std::uint64_t trials) {
  Job j;
  j.algorithm = a;
  j.n = n;
  j.spec = spec;
  j.seed = 20261130;
  j.first = first;
  j.trials = trials;
  j.rank_histogram = n <= 8;
  j.position_matrix = true;
  return j;
}

std::string describe(const Job& job) {
  return std::string(algorithm_name(job.algorithm)) + " n=" + std::to_string(job.n) +
         (is_deal(job) ? " k=" + std::to_string(job.k) : "") + " " +
         std::string(method_name(job.spec.method)) + "/" + std::to_string(job.spec.bits) +
         (job.rank_histogram ? " ranks" : "") + (job.position_matrix ? " positions" : "") + ", " +
         std::to_string(job.trials) + " trials from " + std::to_string(job.first);
}

// "" when equal, else the first difference.
std::string first_difference(const Tally& gpu, const Tally& cpu) {
  if (gpu.trials != cpu.trials) return "trials " + std::to_string(gpu.trials) + " vs " + std::to_string(cpu.trials);
  if (gpu.words != cpu.words) return "words " + std::to_string(gpu.words) + " vs " + std::to_string(cpu.words);
  if (gpu.draws != cpu.draws) return "draws " + std::to_string(gpu.draws) + " vs " + std::to_string(cpu.draws);
  for (std::uint64_t b = 0; b < cpu.ranks.counts().size(); ++b)
    if (gpu.ranks.counts()[b] != cpu.ranks.counts()[b])
      return "rank bin " + std::to_string(b) + ": " + std::to_string(gpu.ranks.counts()[b]) + " vs " +
             std::to_string(cpu.ranks.counts()[b]);
  for (std::size_t c = 0; c < cpu.positions.counts().size(); ++c)
    if (gpu.positions.counts()[c] != cpu.positions.counts()[c])
      return "position cell " + std::to_string(c) + ": " + std::to_string(gpu.positions.counts()[c]) + " vs " +
             std::to_string(cpu.positions.counts()[c]);
  if (gpu.hands != cpu.hands) return "hand counts differ";
  if (gpu.categories != cpu.categories) return "poker category counts differ";
  return "";
}

void compare(const Job& job, int cpu_threads) {
  guarded("tallies = CPU: " + describe(job), [&] {
    const RunResult gpu = run(job, on("cuda"));
    const RunResult cpu = run(job, on("scalar", cpu_threads));
    const std::string diff = gpu.backend != "cuda" ? "ran on " + gpu.backend : first_difference(gpu.tally, cpu.tally);
    report(diff.empty(), "tallies = CPU: " + describe(job) + (diff.empty() ? "" : " (first difference: " + diff + ")"));
  });
}

void check_streams() {
  for (std::uint64_t seed : {0ull, 42ull, 0xfedcba9876543210ull})
    for (std::uint64_t stream : {0ull, 1ull, 0xffffffffull, 0x123456789abcull})
      guarded("stream words, seed " + std::to_string(seed), [&] {
        const auto gpu = cuda::stream_words(seed, stream, 1001);
        PhiloxStream host(seed, stream);
        bool same = true;
        for (auto w : gpu) same = same && w == host.next();
        report(same, "stream words = host, seed " + std::to_string(seed) + " stream " + std::to_string(stream));
        report(cuda::curand_words(seed, stream, 37) == std::vector<std::uint32_t>(gpu.begin(), gpu.begin() + 37),
               "stream words = curand_init(seed, t, 0) + curand(), seed " + std::to_string(seed) + " stream " +
                   std::to_string(stream));
      });
}

// Every algorithm x {lemire, batched} x n x {ranks, positions, both}: the
// shared and global counter layouts, the decision tables, the register and
// local-memory kernels, each against the CPU bit for bit.
void check_tallies(int cpu_threads) {
  const BoundedSpec methods[] = {{Method::lemire, 32}, {Method::batched, 32}};
  for (Algorithm a : kAllAlgorithms)
    for (const BoundedSpec& spec : methods)
      for (int n : {4, 6, 7, 9, 11, 52, 110, 128}) {
        // Deals below; the weighted orders are CPU only.
        if (n > max_items(a) || a == Algorithm::partial || draw_kind(a) == DrawKind::keys) continue;
        for (int kinds : {1, 2, 3}) {  // 1 ranks, 2 positions, 3 both
          const bool ranks = kinds & 1, positions = kinds & 2;
          if (ranks && n > 11) continue;
          Job job = job_of(a, n, spec, (std::uint64_t{1} << 32) - 300'000, n <= 11 ? 1'000'003 : 200'003);
          job.rank_histogram = ranks;
          job.position_matrix = positions;
          compare(job, cpu_threads);
        }
      }
  // Deals: register (n <= 8) and shared-memory items, every deal tally,
  // poker's hands (global counters) and categories.
  for (const BoundedSpec& spec : methods)
    for (auto [n, k] : {std::pair{6, 2}, {8, 5}, {8, 8}, {11, 3}, {52, 5}, {128, 7}}) {
      Job job = job_of(Algorithm::partial, n, spec, (std::uint64_t{1} << 32) - 300'000, 1'000'003);
      job.k = k;
      job.rank_histogram = deal_count(n, k) <= 40'000'000;
      job.position_matrix = true;
      job.hand_histogram = k < n;
      job.poker_categories = n == 52 && k == 5;
      compare(job, cpu_threads);
    }
  // Other methods and narrow sources, a few of each.
  for (const auto& [a, n, spec] : {std::tuple{Algorithm::fisher_yates, 4, BoundedSpec{Method::modulo, 8}},
                                   std::tuple{Algorithm::fisher_yates, 5, BoundedSpec{Method::rejection, 7}},
                                   std::tuple{Algorithm::naive_swap, 8, BoundedSpec{Method::multiply, 9}},
                                   std::tuple{Algorithm::naive_swap, 8, BoundedSpec{Method::batched, 32}},
                                   std::tuple{Algorithm::naive_swap, 52, BoundedSpec{Method::modulo, 8}}})
    compare(job_of(a, n, spec, 12345, 1'000'003), cpu_threads);
  // Past 2^32 trials: several launches, merged.
  Job big = job_of(Algorithm::fisher_yates, 4, {}, 7, (std::uint64_t{1} << 32) + 1'000'000);
  big.position_matrix = false;
  compare(big, cpu_threads);
  for (auto [a, n] : {std::pair{Algorithm::sort_v8_timsort, 9}, std::pair{Algorithm::sort_binary_insertion, 6},
                      std::pair{Algorithm::fisher_yates, 52}, std::pair{Algorithm::fisher_yates, 6},
                      std::pair{Algorithm::partial, 6}, std::pair{Algorithm::partial, 52}}) {
    Job job = job_of(a, n, {}, 99, 1'000'003);
    if (a == Algorithm::partial) job.k = n == 52 ? 5 : 3;
    guarded("samples " + describe(job), [&] {
      report(sample(job, on("cuda")).permutations == sample(job, on("scalar", cpu_threads)).permutations,
             "sampled permutations = CPU: " + describe(job));
    });
    // The same records left in the caller's device memory (fill_device).
    guarded("device fill " + describe(job), [&] {
      const std::size_t items = job.trials * static_cast<std::size_t>(job.k ? job.k : job.n);
      std::uint16_t* device = nullptr;
      if (cudaMalloc(&device, items * sizeof(std::uint16_t)) != cudaSuccess) throw melange::Error("cudaMalloc failed");
      std::vector<std::uint16_t> back(items);
      cuda::fill_device(job, device);
      const bool copied = cudaMemcpy(back.data(), device, items * sizeof(std::uint16_t), cudaMemcpyDeviceToHost) ==
                          cudaSuccess;
      cudaFree(device);
      report(copied && back == sample(job, on("scalar", cpu_threads)).permutations,
             "fill_device into the caller's device memory = CPU: " + describe(job));
    });
  }
}

double seconds_of(const std::function<void()>& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Row {
  std::string what;
  double gpu_rate, cpu_rate;
  std::string unit;
  double target;  // the GPU rate the row should reach (0: none)
};

// Prints a FAIL line and ends the process if the checks outlive `seconds`.
void watchdog(int seconds) {
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::printf("FAIL  timeout: the checks ran past %d s\n", seconds);
    std::fflush(stdout);
    std::_Exit(1);
  }).detach();
}

}  // namespace

int main() {
  const std::string reason = cuda::unavailable_reason();
  if (!reason.empty()) {
    std::printf("%s: nothing to check\n", reason.c_str());
    return 1;
  }
  const char* limit = std::getenv("MELANGE_CHECK_SECONDS");
  watchdog(limit ? std::atoi(limit) : 420);
  const int cpu_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("device: %s; CPU threads: %d\n", cuda::device_name().c_str(), cpu_threads);
  check_streams();
  check_tallies(cpu_threads);

  std::vector<Row> rows;
  guarded("raw Philox benchmark", [&] {
    // 2^28 streams x 16 blocks of four words.
    const std::uint64_t streams = std::uint64_t{1} << 28;
    cuda::philox_checksum(1, 0, 1 << 20, 1);  // warm-up
    const double t = cuda::philox_checksum(1, 0, streams, 16).seconds;  // CUDA events
    std::uint32_t x = 0;
    const double c = seconds_of([&] {
      for (std::uint64_t s = 0; s < (std::uint64_t{1} << 22); ++s) {
        const PhiloxCounter w = philox4x32_10(stream_counter(s, 0), stream_key(1));
        x ^= w.v[0] ^ w.v[1] ^ w.v[2] ^ w.v[3];
      }
    });
    report(cuda::philox_checksum(1, 0, std::uint64_t{1} << 22, 1).checksum == x,
           "Philox checksum of 2^22 streams = host");
    rows.push_back({"raw Philox4x32-10", streams * 64.0 / t, (std::uint64_t{1} << 24) / c * cpu_threads, "words/s",
                    8e11});
  });
  auto audit_row = [&](const std::string& what, Job job, std::uint64_t gpu_trials, std::uint64_t cpu_trials,
                       double target) {
    guarded(what, [&] {
      job.trials = gpu_trials / 100;
      run(job, on("cuda"));  // warm-up
      job.trials = gpu_trials;
      const double g = seconds_of([&] { run(job, on("cuda")); });
      job.trials = cpu_trials;
      const double c = seconds_of([&] { run(job, on("scalar", cpu_threads)); });
      rows.push_back({what, gpu_trials / g, cpu_trials / c, "shuffles/s", target});
    });
  };
  Job n4 = job_of(Algorithm::fisher_yates, 4, {}, 0, 0);
  n4.position_matrix = false;
  audit_row("fisher-yates n=4 audit, batched", n4, 100'000'000'000ull, 2'000'000'000ull, 2e11);
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
  guarded("10^12-trial audit", [&] {
    Job j = n4;
    j.trials = 1'000'000'000'000ull;
    RunResult r;
    trillion = seconds_of([&] { r = run(j, on("cuda")); });
    report(r.tally.trials == j.trials && r.tally.ranks.total() == j.trials && r.tally.words >= j.trials,
           "10^12-trial audit counted every trial: " + std::to_string(r.tally.ranks.total()) + " in the histogram, " +
               std::to_string(r.tally.words) + " words");
  });

  std::printf("\n%-40s %12s %15s %9s %10s %6s\n", "job", "GPU", "CPU (all cores)", "GPU/CPU", "target", "");
  for (const Row& r : rows)
    std::printf("%-40s %12.3e %15.3e %8.0fx %10.0e %6s  (%s)\n", r.what.c_str(), r.gpu_rate, r.cpu_rate,
                r.gpu_rate / r.cpu_rate, r.target, r.target == 0 ? "" : r.gpu_rate >= r.target ? "PASS" : "MISS",
                r.unit.c_str());
  std::printf("%-40s %10.2f s %15s %9s %10s %6s\n", "10^12-trial n=4 audit", trillion, "", "", "< 10 s",
              trillion > 0 && trillion < 10 ? "PASS" : "MISS");
  std::printf("checks: %s (%d failed)\n", failures == 0 ? "all passed" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
