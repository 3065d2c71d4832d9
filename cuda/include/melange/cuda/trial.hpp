// The thread level of the CUDA backend: one trial, start to finish, in one
// thread. It runs the core's algorithm definitions (algorithms.hpp) over the
// core's PhiloxSource, so the GPU and the CPU share one definition; compiled
// as host code, the same function is checked against the scalar backend.
#pragma once

#include <cstdint>

#include "melange/algorithms.hpp"
#include "melange/config.hpp"
#include "melange/job.hpp"
#include "melange/rank.hpp"
#include "melange/source.hpp"

namespace melange::cuda {

// Items live in one thread's registers or local memory, a byte each.
inline constexpr int kMaxDeviceItems = 128;

// What a thread needs to know about the job (no host containers).
struct DeviceJob {
  std::uint64_t seed;
  BoundedSpec spec;
  int n;
  bool ranks;
  bool positions;
};

inline DeviceJob device_job(const Job& job) {
  return DeviceJob{job.seed, job.spec, job.n, job.rank_histogram, job.position_matrix};
}

// Runs trial t of algorithm A and reports to `sink`: rank(r), position(item,
// position) for every position, and words(w) consumed.
template <Algorithm A, class Sink>
MELANGE_HD inline void run_trial(const DeviceJob& job, std::uint64_t t, Sink& sink) {
  std::uint8_t items[kMaxDeviceItems];
  iota_items(items, job.n);
  PhiloxSource src(job.seed, t, job.spec);
  shuffle(A, items, job.n, src);
  if (job.ranks) sink.rank(lehmer_rank(items, job.n));
  if (job.positions)
    for (int p = 0; p < job.n; ++p) sink.position(items[p], p);
  sink.words(src.words_consumed());
}

// Writes trial t's permutation to out[0..n).
template <Algorithm A>
MELANGE_HD inline void sample_trial(const DeviceJob& job, std::uint64_t t, std::uint16_t* out) {
  std::uint8_t items[kMaxDeviceItems];
  iota_items(items, job.n);
  PhiloxSource src(job.seed, t, job.spec);
  shuffle(A, items, job.n, src);
  for (int p = 0; p < job.n; ++p) out[p] = items[p];
}

}  // namespace melange::cuda
