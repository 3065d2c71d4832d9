// melange_device_check: the GPU proof, runnable where the test frameworks are
// not installed. It checks the CUDA backend against the CPU bit for bit and
// cuRAND's device API word for word, then measures the GPU and the CPU on the
// same jobs and prints a short table last. Exit status 0 when every check
// passes, 1 otherwise (or without a device).
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "melange/cuda/device.hpp"
#include "melange/engine.hpp"
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

void check_streams() {
  for (std::uint64_t seed : {0ull, 42ull, 0xfedcba9876543210ull})
    for (std::uint64_t stream : {0ull, 1ull, 0xffffffffull, 0x123456789abcull}) {
      const auto gpu = cuda::stream_words(seed, stream, 1001);
      PhiloxStream host(seed, stream);
      bool same = true;
      for (auto w : gpu) same = same && w == host.next();
      report(same, "stream words = host, seed " + std::to_string(seed) + " stream " + std::to_string(stream));
      report(cuda::curand_words(seed, stream, 37) == std::vector<std::uint32_t>(gpu.begin(), gpu.begin() + 37),
             "stream words = curand_init(seed, t, 0) + curand(), seed " + std::to_string(seed) +
                 " stream " + std::to_string(stream));
    }
}

void check_tallies(int cpu_threads) {
  struct Case {
    Algorithm a;
    int n;
    BoundedSpec spec;
  };
  // {} is `batched`, the default; the sort one-liners up to n = 8 run
  // through their decision tables, above that coin by coin.
  const BoundedSpec lemire{Method::lemire, 32};
  const Case cases[] = {
      {Algorithm::fisher_yates, 4, {}},          {Algorithm::fisher_yates, 4, lemire},
      {Algorithm::fisher_yates, 4, {Method::modulo, 8}},
      {Algorithm::naive_swap, 4, {}},            {Algorithm::sort_binary_insertion, 4, {}},
      {Algorithm::sort_binary_insertion, 4, lemire},        {Algorithm::sort_v8_timsort, 8, {}},
      {Algorithm::fisher_yates, 5, {Method::rejection, 7}}, {Algorithm::sort_v8_timsort, 5, lemire},
      {Algorithm::sattolo, 8, {}},               {Algorithm::naive_swap, 8, {Method::multiply, 9}},
      {Algorithm::fisher_yates, 8, {Method::lemire, 4}},    {Algorithm::fisher_yates, 13, {}},
      {Algorithm::fisher_yates, 52, {}},         {Algorithm::fisher_yates, 52, lemire},
      {Algorithm::naive_swap, 52, {}},           {Algorithm::naive_swap, 52, {Method::modulo, 8}},
      {Algorithm::sort_binary_insertion, 52, {}}, {Algorithm::sort_v8_timsort, 9, lemire}};
  for (const Case& c : cases)
    for (std::uint64_t trials : {std::uint64_t{10'000'019}, std::uint64_t{777}}) {
      const Job job = job_of(c.a, c.n, c.spec, (std::uint64_t{1} << 32) - 3'000'000, trials);
      const RunResult gpu = run(job, on("cuda"));
      const RunResult cpu = run(job, on("scalar", cpu_threads));
      report(gpu.backend == "cuda" && gpu.tally == cpu.tally,
             std::string("tallies = CPU: ") + std::string(algorithm_name(c.a)) + " n=" + std::to_string(c.n) +
                 " " + std::string(method_name(c.spec.method)) + "/" + std::to_string(c.spec.bits) +
                 ", " + std::to_string(trials) + " trials");
    }
  for (auto [a, n] : {std::pair{Algorithm::sort_v8_timsort, 9}, std::pair{Algorithm::sort_binary_insertion, 6},
                      std::pair{Algorithm::fisher_yates, 52}}) {
    const Job job = job_of(a, n, {}, 99, 1'000'003);
    report(sample(job, on("cuda")).permutations == sample(job, on("scalar", cpu_threads)).permutations,
           "sampled permutations = CPU: " + std::string(algorithm_name(a)) + " n=" + std::to_string(n));
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
  std::string unit, target;
};

}  // namespace

int main() {
  if (cuda::device_count() == 0) {
    std::printf("no CUDA device: nothing to check\n");
    return 1;
  }
  const int cpu_threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::printf("device: %s; CPU threads: %d\n", cuda::device_name().c_str(), cpu_threads);
  check_streams();
  check_tallies(cpu_threads);

  std::vector<Row> rows;
  // Raw Philox: 2^28 streams x 16 blocks of four words.
  {
    const std::uint64_t streams = std::uint64_t{1} << 28;
    cuda::philox_checksum(1, 0, 1 << 20, 1);  // warm-up
    const double t = seconds_of([&] { cuda::philox_checksum(1, 0, streams, 16); });
    std::vector<std::uint32_t> sink(4 * 4096);
    const double c = seconds_of([&] {
      std::uint32_t x = 0;
      for (std::uint64_t s = 0; s < (std::uint64_t{1} << 22); ++s) {
        const PhiloxCounter w = philox4x32_10(stream_counter(s, 0), stream_key(1));
        x ^= w.v[0] ^ w.v[1] ^ w.v[2] ^ w.v[3];
      }
      sink[0] = x;
    });
    rows.push_back({"raw Philox4x32-10", streams * 64.0 / t, (std::uint64_t{1} << 24) / c * cpu_threads,
                    "words/s", ">= 8e11"});
  }
  auto audit_row = [&](const std::string& what, Job job, std::uint64_t gpu_trials, std::uint64_t cpu_trials,
                       const std::string& target) {
    job.trials = gpu_trials / 100;
    run(job, on("cuda"));  // warm-up
    job.trials = gpu_trials;
    const double g = seconds_of([&] { run(job, on("cuda")); });
    job.trials = cpu_trials;
    const double c = seconds_of([&] { run(job, on("scalar", cpu_threads)); });
    rows.push_back({what, gpu_trials / g, cpu_trials / c, "shuffles/s", target});
    return g;
  };
  Job n4 = job_of(Algorithm::fisher_yates, 4, {}, 0, 0);
  n4.position_matrix = false;
  audit_row("fisher-yates n=4 audit, batched", n4, 100'000'000'000ull, 2'000'000'000ull, ">= 2e11");
  Job n4_lemire = n4;
  n4_lemire.spec = BoundedSpec{Method::lemire, 32};
  audit_row("fisher-yates n=4 audit, lemire", n4_lemire, 100'000'000'000ull, 2'000'000'000ull, ">= 2e11");
  Job sort4 = n4;
  sort4.algorithm = Algorithm::sort_binary_insertion;
  audit_row("sort-binary-insertion n=4, batched", sort4, 100'000'000'000ull, 2'000'000'000ull, "");
  Job n52 = job_of(Algorithm::fisher_yates, 52, {}, 0, 0);
  audit_row("fisher-yates n=52 + positions, batched", n52, 10'000'000'000ull, 100'000'000ull, ">= 1e10");
  Job n52_lemire = n52;
  n52_lemire.spec = BoundedSpec{Method::lemire, 32};
  audit_row("fisher-yates n=52 + positions, lemire", n52_lemire, 10'000'000'000ull, 100'000'000ull, ">= 1e10");
  const double trillion = seconds_of([&] {
    Job j = n4;
    j.trials = 1'000'000'000'000ull;
    run(j, on("cuda"));
  });

  std::printf("\n%-38s %14s %14s %10s %10s\n", "job", "GPU", "CPU (all cores)", "GPU/CPU", "target");
  for (const Row& r : rows)
    std::printf("%-38s %14.3e %14.3e %9.0fx %10s  (%s)\n", r.what.c_str(), r.gpu_rate, r.cpu_rate,
                r.gpu_rate / r.cpu_rate, r.target.c_str(), r.unit.c_str());
  std::printf("%-38s %13.2f s %14s %10s %10s\n", "10^12-trial n=4 audit", trillion, "", "", "< 10 s");
  std::printf("checks: %s (%d failed)\n", failures == 0 ? "all passed" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
