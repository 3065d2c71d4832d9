#include "melange/engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>

#include "melange/error.hpp"
#include "melange/internal/backend_choice.hpp"

namespace melange {
namespace {

// Trials per work unit: small enough for steady progress and balance,
// large enough that handing out units costs nothing measurable.
constexpr std::uint64_t kChunkTrials = std::uint64_t{1} << 18;

// Runs body(chunk_begin, chunk_end, worker) over [first, first + count) on
// `threads` workers pulling chunks, reporting progress from this thread.
template <class Body>
void parallel_chunks(std::uint64_t first, std::uint64_t count, int threads, std::uint64_t chunk,
                     const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                     Body&& body) {
  const std::uint64_t chunks = count / chunk + (count % chunk != 0);
  std::atomic<std::uint64_t> next{0}, done{0};
  std::atomic<int> running{threads};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&](int w) {
    try {
      for (std::uint64_t c; (c = next.fetch_add(1)) < chunks;) {
        const std::uint64_t b = first + c * chunk;
        const std::uint64_t e = first + (c + 1 == chunks ? count : (c + 1) * chunk);
        body(b, e, w);
        done.fetch_add(e - b, std::memory_order_relaxed);
      }
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next.store(chunks);
    }
    running.fetch_sub(1);
  };
  // With a progress callback every worker gets a thread and this thread
  // reports; without one, this thread is worker 0.
  std::vector<std::thread> pool;
  for (int w = progress ? 0 : 1; w < threads; ++w) pool.emplace_back(worker, w);
  if (progress) {
    using namespace std::chrono_literals;
    while (running.load() > 0) {
      progress(done.load(), count);
      std::this_thread::sleep_for(100ms);
    }
  } else {
    worker(0);
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  if (progress) progress(count, count);
}

std::uint64_t chunk_for(const Backend& b) {
  return b.preferred_chunk() ? b.preferred_chunk() : kChunkTrials;
}

void check_threads(int threads) {
  if (threads < 1) throw UsageError(Param::threads, "{threads} must be at least 1, got " + std::to_string(threads));
}

std::string bytes_text(std::uint64_t b) {
  char buf[32];
  if (b >= (std::uint64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", b / 1073741824.0);
  else std::snprintf(buf, sizeof buf, "%.1f MiB", b / 1048576.0);
  return buf;
}

WorkerPlan plan_for(const Job& job, const RunOptions& options, const Backend& backend) {
  const std::uint64_t per_worker = tally_bytes(job) + backend.scratch_bytes(job);
  if (per_worker > options.memory_cap)
    throw UsageError(Param::memory_cap, "the tallies of n = " + std::to_string(job.n) + " take " + bytes_text(per_worker) +
                     ", above the memory cap of " + bytes_text(options.memory_cap) +
                     "; raise {memory_cap}" +
                     (job.rank_histogram ? ", or tally only the item x position matrix ({position_matrix})" : ""));
  const int wanted = std::min(options.threads, backend.max_workers());
  const std::uint64_t fit = per_worker ? options.memory_cap / per_worker : ~std::uint64_t{0};
  WorkerPlan plan;
  plan.workers = static_cast<int>(std::min<std::uint64_t>(wanted, fit));
  plan.bytes = per_worker * plan.workers;
  if (plan.workers < wanted)
    plan.note = std::to_string(plan.workers) + " of " + std::to_string(wanted) +
                " threads: each holds " + bytes_text(per_worker) + " of tallies and the memory cap is " +
                bytes_text(options.memory_cap);
  return plan;
}

}  // namespace

WorkerPlan plan_workers(const Job& job, const RunOptions& options) {
  validate(job);
  check_threads(options.threads);
  const internal::BackendChoice choice = internal::choose_backend(job, options.backend);
  return plan_for(job, options, *choice.backend);
}

RunResult run(const Job& job, const RunOptions& options) {
  validate(job);
  check_threads(options.threads);
  internal::BackendChoice choice = internal::choose_backend(job, options.backend);
  const WorkerPlan plan = plan_for(job, options, *choice.backend);
  const int workers = plan.workers;
  std::vector<Tally> tallies(workers);
  for (auto& t : tallies) t = Tally::for_job(job);
  parallel_chunks(job.first, job.trials, workers, chunk_for(*choice.backend), options.progress,
                  [&](std::uint64_t b, std::uint64_t e, int w) {
                    choice.backend->run_range(job, b, e, tallies[w]);
                  });
  for (int w = 1; w < workers; ++w) tallies[0].merge(tallies[w]);
  return RunResult{std::move(tallies[0]), std::string(choice.backend->name()), choice.backend->arch(),
                   choice.note, workers, plan.note};
}

SampleResult sample(const Job& job, const RunOptions& options) {
  validate_draws(job);
  check_threads(options.threads);
  internal::BackendChoice choice = internal::choose_backend(job, options.backend);
  // The buffer is trials x k items of 2 bytes (k = n for permutations);
  // check by division, not by a product that could wrap.
  const auto width = static_cast<std::uint64_t>(shape_of(job).k);
  if (job.trials > options.memory_cap / 2 / width)
    throw UsageError(Param::memory_cap, "a sample of " + std::to_string(job.trials) +
                     (is_deal(job) ? " deals of " + std::to_string(width) + " of " : " permutations of ") +
                     std::to_string(job.n) + " items does not fit the memory cap of " +
                     bytes_text(options.memory_cap) + "; sample in pieces");
  std::vector<std::uint16_t> out(job.trials * width);
  const int workers = std::min(options.threads, choice.backend->max_workers());
  parallel_chunks(job.first, job.trials, workers, chunk_for(*choice.backend), options.progress,
                  [&](std::uint64_t b, std::uint64_t e, int) {
                    choice.backend->sample_range(job, b, e, out.data() + (b - job.first) * width);
                  });
  return SampleResult{std::move(out), std::string(choice.backend->name()), choice.backend->arch(),
                      choice.note, workers};
}

}  // namespace melange
