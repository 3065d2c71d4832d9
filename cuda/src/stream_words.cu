// Raw stream words on the GPU: the device-side proof of the stream contract.
#include "check.cuh"
#include "device_buffer.cuh"
#include "events.cuh"
#include "melange/cuda/device.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"

namespace melange::cuda {
namespace {

__global__ void stream_words_kernel(PhiloxKey key, std::uint64_t stream, std::uint64_t blocks,
                                    std::uint32_t* out) {
  const std::uint64_t b = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (b >= blocks) return;
  const PhiloxCounter words = philox4x32_10(stream_counter(stream, b), key);
  for (int w = 0; w < 4; ++w) out[4 * b + w] = words.v[w];
}

__global__ void philox_checksum_kernel(PhiloxKey key, std::uint64_t first, std::uint64_t streams,
                                       int blocks, unsigned* out) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned x = 0;
  for (std::uint64_t s = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; s < streams;
       s += stride)
    for (int b = 0; b < blocks; ++b) {
      const PhiloxCounter w = philox4x32_10(stream_counter(first + s, b), key);
      x ^= w.v[0] ^ w.v[1] ^ w.v[2] ^ w.v[3];
    }
  for (int offset = 16; offset > 0; offset /= 2) x ^= __shfl_down_sync(0xffffffffu, x, offset);
  if ((threadIdx.x & 31) == 0) atomicXor(out, x);
}

}  // namespace

PhiloxChecksum philox_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams, int blocks) {
  if (device_count() == 0) throw Error("no CUDA device: use the CPU stream instead");
  int device = 0;  // the calling thread's: 0, or use_device's
  internal::check(cudaGetDevice(&device), "current device");
  cudaDeviceProp prop{};
  internal::check(cudaGetDeviceProperties(&prop, device), "device properties");
  internal::DeviceBuffer<unsigned> out(1);
  out.zero();
  internal::EventPair events;
  events.start();
  philox_checksum_kernel<<<prop.multiProcessorCount * 8, 256>>>(stream_key(seed), first, streams, blocks,
                                                               out.data());
  internal::check(cudaGetLastError(), "philox_checksum launch");
  events.stop();
  internal::check(cudaDeviceSynchronize(), "philox_checksum");
  return PhiloxChecksum{out.to_host()[0], events.seconds()};
}

std::vector<std::uint32_t> stream_words(std::uint64_t seed, std::uint64_t stream,
                                        std::uint64_t count) {
  if (device_count() == 0) throw Error("no CUDA device: use the CPU stream instead");
  const std::uint64_t blocks = (count + 3) / 4;
  internal::DeviceBuffer<std::uint32_t> d(blocks * 4);
  constexpr int kThreads = 256;
  const auto grid = static_cast<unsigned>((blocks + kThreads - 1) / kThreads);
  stream_words_kernel<<<grid, kThreads>>>(stream_key(seed), stream, blocks, d.data());
  internal::check(cudaGetLastError(), "stream_words_kernel launch");
  internal::check(cudaDeviceSynchronize(), "stream_words_kernel");
  std::vector<std::uint32_t> h = d.to_host();
  h.resize(count);
  return h;
}

}  // namespace melange::cuda
