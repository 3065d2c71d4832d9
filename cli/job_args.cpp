#include "job_args.hpp"

#include <thread>

#include "melange/error.hpp"
#include "parse.hpp"

namespace melange::cli {

void add_job_options(CLI::App* cmd, JobArgs& a, JobOptionSet which) {
  cmd->add_option("--algo", a.algo,
                  "fisher-yates | naive-swap | sattolo | sort-binary-insertion | sort-v8-timsort")
      ->capture_default_str();
  cmd->add_option("--n", a.n, "items to shuffle")->capture_default_str();
  if (which.trials)
    cmd->add_option("--trials", a.trials, "trials to run (1e6 notation works)")
        ->capture_default_str();
  if (which.seed)
    cmd->add_option("--seed", a.seed, "64-bit job seed, decimal or 0x hex (default: fixed, printed)");
  if (which.first)
    cmd->add_option("--first", a.first, "global index of the first trial (trial t uses stream t)")
        ->capture_default_str();
  cmd->add_option("--method", a.method, "bounded-integer method: lemire | modulo | rejection | multiply")
      ->capture_default_str();
  cmd->add_option("--bits", a.bits, "source width in bits, 1..32 (narrow sources show modulo bias)")
      ->capture_default_str();
  if (which.threads)
    cmd->add_option("--threads", a.threads, "worker threads (default: one per hardware thread)");
  if (which.backend)
    cmd->add_option("--backend", a.backend, "auto | scalar | avx2 | cuda")->capture_default_str();
}

Algorithm parse_algorithm_arg(const std::string& name) {
  if (auto a = parse_algorithm(name)) return *a;
  throw UsageError("unknown --algo '" + name +
                   "': use fisher-yates, naive-swap, sattolo, sort-binary-insertion or "
                   "sort-v8-timsort");
}

BoundedSpec parse_spec_args(const JobArgs& a) {
  const auto m = parse_method(a.method);
  if (!m)
    throw UsageError("unknown --method '" + a.method + "': use lemire, modulo, rejection or multiply");
  return BoundedSpec{*m, a.bits};
}

Job make_job(const JobArgs& a, const std::string& trials_flag) {
  Job job;
  job.algorithm = parse_algorithm_arg(a.algo);
  job.spec = parse_spec_args(a);
  job.n = a.n;
  job.seed = a.seed.empty() ? kDefaultSeed : parse_seed(a.seed);
  job.first = parse_seed(a.first, "--first");
  job.trials = parse_count(a.trials, trials_flag, ~std::uint64_t{0});
  return job;
}

int thread_count(const JobArgs& a) {
  if (a.threads.empty()) return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string must = "--threads must be a whole number from 1 to 1024, got '" + a.threads + "'";
  std::uint64_t k = 0;
  try {
    k = parse_count(a.threads, "--threads", 1024);
  } catch (const UsageError&) {
    throw UsageError(must);
  }
  if (k < 1) throw UsageError(must);
  return static_cast<int>(k);
}

std::optional<BackendKind> backend_arg(const JobArgs& a) {
  if (a.backend == "auto") return std::nullopt;
  if (auto k = parse_backend(a.backend)) return k;
  throw UsageError("unknown --backend '" + a.backend + "': use auto, scalar, avx2 or cuda");
}

std::string describe(const Job& job) {
  return std::string(algorithm_name(job.algorithm)) + ", n " + std::to_string(job.n) + ", " +
         std::string(method_name(job.spec.method)) + "/" + std::to_string(job.spec.bits) +
         "-bit, seed " + std::to_string(job.seed);
}

}  // namespace melange::cli
