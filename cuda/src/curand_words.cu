// cuRAND's device API, for the contract check: curand_init(seed, t, 0, &s)
// followed by curand(&s) must give stream t's words.
#include <curand_kernel.h>
#include "check.cuh"
#include "device_buffer.cuh"
#include "melange/cuda/device.hpp"
#include "melange/error.hpp"

namespace melange::cuda {
namespace {

__global__ void curand_words_kernel(std::uint64_t seed, std::uint64_t stream, std::uint64_t count,
                                    std::uint32_t* out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  curandStatePhilox4_32_10_t state;
  curand_init(seed, stream, 0, &state);
  for (std::uint64_t i = 0; i < count; ++i) out[i] = curand(&state);
}

}  // namespace

std::vector<std::uint32_t> curand_words(std::uint64_t seed, std::uint64_t stream, std::uint64_t count) {
  if (device_count() == 0) throw Error("no CUDA device: cuRAND's words need a GPU");
  internal::DeviceBuffer<std::uint32_t> d(count);
  curand_words_kernel<<<1, 1>>>(seed, stream, count, d.data());
  internal::check(cudaGetLastError(), "curand kernel launch");
  internal::check(cudaDeviceSynchronize(), "curand kernel");
  return d.to_host();
}

}  // namespace melange::cuda
