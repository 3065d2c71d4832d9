// The device level's bookkeeping: how a trial range is cut into launches so
// that no index inside a launch leaves 32 bits, and how the per-block
// partial histograms add up (a function the merge kernel runs and the CPU
// tests call). No CUDA headers: it builds with any C++ compiler.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "melange/config.hpp"
#include "melange/job.hpp"
#include "melange/limits.hpp"


namespace melange::cuda {

// The algorithms and bounded methods the device code has kernels for. A job
// outside them (a new algorithm or method not yet written for the GPU) is not
// supported, so the engine runs it on the CPU with its usual note instead of
// launching nothing. So is a job that tallies a kind a GPU thread does not
// count (tallies.hpp: DeviceTallyDefinitions).
// The algorithms whose rows say a GPU thread runs them (kAlgorithmRows).
constexpr std::size_t device_algorithm_count() {
  std::size_t count = 0;
  for (const AlgorithmRow& row : kAlgorithmRows) count += row.on_gpu ? 1 : 0;
  return count;
}
constexpr std::array<Algorithm, device_algorithm_count()> device_algorithms() {
  std::array<Algorithm, device_algorithm_count()> out{};
  std::size_t i = 0;
  for (const AlgorithmRow& row : kAlgorithmRows)
    if (row.on_gpu) out[i++] = row.algorithm;
  return out;
}
inline constexpr auto kDeviceAlgorithms = device_algorithms();
inline constexpr Method kDeviceMethods[] = {Method::lemire, Method::modulo, Method::rejection, Method::multiply,
                                            Method::batched};

inline bool job_has_kernel(const Job& job) {
  bool algorithm = false, method = false;
  for (Algorithm a : kDeviceAlgorithms) algorithm = algorithm || a == job.algorithm;
  for (Method m : kDeviceMethods) method = method || m == job.spec.method;
  return algorithm && method && job.n >= 1 && job.n <= kMaxDeviceItems && device_kinds_only(job.tallies);
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

// partials[bin * blocks + block] holds each block's 32-bit count for each
// bin: the 64-bit total of `bin` over the blocks. The merge kernel's body,
// and the CPU tests'.
MELANGE_HD inline std::uint64_t sum_of_partials(const std::uint32_t* partials, std::uint64_t bin,
                                                std::uint64_t blocks) {
  std::uint64_t sum = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) sum += partials[bin * blocks + b];
  return sum;
}

}  // namespace melange::cuda
