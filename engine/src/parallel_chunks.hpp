// The engine's threaded runner, shared by run(), sample() and the serving
// calls (serve.cpp); not part of the public API.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "melange/error.hpp"

namespace melange::internal {

inline void check_threads(int threads) {
  if (threads < 1) throw UsageError(Param::threads, "{threads} must be at least 1, got " + std::to_string(threads));
}

// Trials per work unit: small enough for steady progress and balance,
// large enough that handing out units costs nothing measurable.
constexpr std::uint64_t kChunkTrials = std::uint64_t{1} << 18;
// The smallest unit handed out when a short range is split into even shares:
// one group of 64 trials, whole SIMD batches on every architecture.
constexpr std::uint64_t kMinChunk = 64;

// Trials per unit for `count` trials on `workers`: even shares (whole groups
// of 64, so SIMD lanes stay full) of as few rounds of a unit a worker as
// units of at most `preferred` (the backend's own unit, or kChunkTrials)
// allow, so that every worker has work even for a short range and none
// waits long on the last round.
inline std::uint64_t chunk_trials(std::uint64_t count, int workers, std::uint64_t preferred) {
  if (preferred == 0) preferred = kChunkTrials;
  const std::uint64_t each = count / static_cast<std::uint64_t>(std::max(workers, 1));
  const std::uint64_t rounds = std::max<std::uint64_t>(1, each / preferred + (each % preferred != 0));
  const std::uint64_t share = (each / rounds + 63) / 64 * 64;
  return std::clamp(share, std::min(kMinChunk, preferred), preferred);
}

// Runs body(chunk_begin, chunk_end, worker) over [first, first + count) on
// `threads` workers pulling chunks, reporting progress from this thread; a
// worker asks `cancelled` (when set) before each chunk and ends the run with
// Cancelled once it says so.
template <class Body>
inline void parallel_chunks(std::uint64_t first, std::uint64_t count, int threads, std::uint64_t chunk,
                            const std::function<void(std::uint64_t, std::uint64_t)>& progress,
                            const std::function<bool()>& cancelled, Body&& body) {
  const std::uint64_t chunks = count / chunk + (count % chunk != 0);
  std::atomic<std::uint64_t> next{0}, done{0};
  std::atomic<int> running{threads};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  // Keeps the first failure and hands out no more chunks.
  const auto stop_with_current_exception = [&] {
    std::lock_guard lock(failure_mutex);
    if (!failure) failure = std::current_exception();
    next.store(chunks);
  };
  auto worker = [&](int w) {
    try {
      for (std::uint64_t c; (c = next.fetch_add(1)) < chunks;) {
        if (cancelled && cancelled()) throw Cancelled();
        const std::uint64_t b = first + c * chunk;
        const std::uint64_t e = first + (c + 1 == chunks ? count : (c + 1) * chunk);
        body(b, e, w);
        done.fetch_add(e - b, std::memory_order_relaxed);
      }
    } catch (...) {
      stop_with_current_exception();
    }
    running.fetch_sub(1);
  };
  // With a progress callback every worker gets a thread and this thread
  // reports; without one, this thread is worker 0.
  // A progress callback may throw to stop the run (a caller's interrupt):
  // the workers finish their chunks and are joined before it goes on.
  std::vector<std::thread> pool;
  for (int w = progress ? 0 : 1; w < threads; ++w) pool.emplace_back(worker, w);
  if (progress) {
    using namespace std::chrono_literals;
    try {
      while (running.load() > 0) {
        progress(done.load(), count);
        std::this_thread::sleep_for(100ms);
      }
    } catch (...) {
      stop_with_current_exception();
    }
  } else {
    worker(0);
  }
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  if (progress) progress(count, count);
}

}  // namespace melange::internal
