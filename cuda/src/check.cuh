// Turns CUDA runtime failures into melange::Error with the call that failed.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "melange/error.hpp"

namespace melange::cuda::internal {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace melange::cuda::internal
