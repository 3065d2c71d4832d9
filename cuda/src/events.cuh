// A pair of CUDA events around work on the device: the kernels' own time,
// without the host's launch and copy costs.
#pragma once

#include <cuda_runtime.h>

#include "check.cuh"

namespace melange::cuda::internal {

// Two CUDA events, destroyed whatever happens.
class EventPair {
 public:
  EventPair() {
    internal::check(cudaEventCreate(&start_), "creating an event");
    if (const cudaError_t e = cudaEventCreate(&stop_); e != cudaSuccess) {
      static_cast<void>(cudaEventDestroy(start_));
      internal::check(e, "creating an event");
    }
  }
  ~EventPair() {
    static_cast<void>(cudaEventDestroy(start_));
    static_cast<void>(cudaEventDestroy(stop_));
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  void start() { internal::check(cudaEventRecord(start_), "recording an event"); }
  void stop() { internal::check(cudaEventRecord(stop_), "recording an event"); }
  double seconds() const {
    float ms = 0;
    internal::check(cudaEventElapsedTime(&ms, start_, stop_), "timing a kernel");
    return ms / 1e3;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

}  // namespace melange::cuda::internal
