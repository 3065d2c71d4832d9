// Turns CUDA runtime failures into melange::Error with the call that failed,
// in words a user can act on.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "melange/error.hpp"

namespace melange::cuda::internal {

// "GPU out of memory while <what>" for allocation failures, which a
// smaller job or another backend mends (the message names {backend}), else
// "CUDA <what>: <CUDA's own message>".
inline Error describe(cudaError_t e, const char* what) {
  if (e == cudaErrorMemoryAllocation)
    return Error(Param::backend, std::string("GPU out of memory while ") + what + ": use a smaller job or {backend} simd");
  return Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw describe(e, what);
}

}  // namespace melange::cuda::internal
