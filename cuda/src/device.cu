#include <cuda_runtime.h>

#include "melange/cuda/device.hpp"

namespace melange::cuda {

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

std::string unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess) return n > 0 ? "" : "no CUDA device";
  cudaGetLastError();  // clear the sticky error
  if (e == cudaErrorNoDevice) return "no CUDA device";
  return std::string("no usable CUDA device (") + cudaGetErrorString(e) + ")";
}

void use_device(int index) {
  const int n = device_count();
  if (n > 0 && cudaSetDevice(index % n) != cudaSuccess) cudaGetLastError();
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return "none";
  return prop.name;
}

}  // namespace melange::cuda
