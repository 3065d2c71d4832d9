// The device level's bookkeeping, host code only: how a trial range is cut
// into launches so that no index inside a launch leaves 32 bits, and how the
// per-block partial histograms are merged (Thrust, any execution policy, so
// that the merge runs and is tested on the CPU too).
#pragma once

#include <cstdint>
#include <vector>

#include "melange/config.hpp"
#include "melange/job.hpp"
#include "melange/limits.hpp"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>

namespace melange::cuda {

// The algorithms and bounded methods the device code has kernels for. A job
// outside them (a new algorithm or method not yet written for the GPU) is not
// supported, so the engine runs it on the CPU with its usual note instead of
// launching nothing.
inline constexpr Algorithm kDeviceAlgorithms[] = {Algorithm::fisher_yates, Algorithm::naive_swap,
                                                  Algorithm::sattolo, Algorithm::partial,
                                                  Algorithm::sort_binary_insertion, Algorithm::sort_v8_timsort};
inline constexpr Method kDeviceMethods[] = {Method::lemire, Method::modulo, Method::rejection, Method::multiply,
                                            Method::batched};

inline bool job_has_kernel(const Job& job) {
  bool algorithm = false, method = false;
  for (Algorithm a : kDeviceAlgorithms) algorithm = algorithm || a == job.algorithm;
  for (Method m : kDeviceMethods) method = method || m == job.spec.method;
  return algorithm && method && job.n >= 1 && job.n <= kMaxDeviceItems;
}

struct Launch {
  std::uint64_t first;  // global trial index of the launch's first trial
  std::uint64_t count;  // trials in the launch, at most the chunk
};

// [first, first + trials) in launches of at most `chunk` trials, in order.
inline std::vector<Launch> plan_launches(std::uint64_t first, std::uint64_t trials,
                                         std::uint64_t chunk) {
  std::vector<Launch> plan;
  for (std::uint64_t done = 0; done < trials;) {
    const std::uint64_t count = trials - done < chunk ? trials - done : chunk;
    plan.push_back(Launch{first + done, count});
    done += count;
  }
  return plan;
}

namespace internal {
struct SegmentOf {
  std::uint64_t blocks;
  MELANGE_HD std::uint64_t operator()(std::uint64_t i) const { return i / blocks; }
};
struct Widen {
  MELANGE_HD std::uint64_t operator()(std::uint32_t v) const { return v; }
};
}  // namespace internal

// partials[bin * blocks + block] holds each block's 32-bit count for each
// bin; sums[bin] receives the 64-bit total over blocks. `policy` is
// thrust::device on the GPU and thrust::host in the CPU tests.
template <class Policy, class PartialIt, class SumIt>
void merge_partials(const Policy& policy, PartialIt partials, std::uint64_t bins,
                    std::uint64_t blocks, SumIt sums) {
  auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<std::uint64_t>(0),
                                              internal::SegmentOf{blocks});
  auto values = thrust::make_transform_iterator(partials, internal::Widen{});
  thrust::reduce_by_key(policy, keys, keys + bins * blocks, values,
                        thrust::make_discard_iterator(), sums);
}

}  // namespace melange::cuda
