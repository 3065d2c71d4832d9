// The kernels: a grid of threads running trials into block counters
// (audit) or records (sample).
// Included by backend.cu alone: its names stay in that translation unit's
// anonymous namespace, as the kernels' names the scripts read expect.
#pragma once

#include <cub/warp/warp_reduce.cuh>

#include <cstdint>

#include "thread_trials.cuh"

namespace melange::cuda {
namespace {

// Bytes of dynamic shared memory a launch of `Trial` needs beyond `counters`:
// n items per thread where the trial keeps them there.
template <class Trial>
std::size_t shared_bytes_for(std::size_t counters, int n) {
  const std::size_t aligned = (counters + 15) / 16 * 16;
  return Trial::kSharedItems ? aligned + InterleavedItems::bytes(n, tuning::kThreadsPerBlock) : counters;
}

template <class Trial>
__global__ void __launch_bounds__(tuning::kThreadsPerBlock)
    audit_kernel(TrialJob job, Layout layout, std::uint64_t first, std::uint64_t count, Outputs out, Trial trial) {
  extern __shared__ std::uint32_t shared[];
  for (std::size_t i = threadIdx.x; i < layout.shared_bytes / 4; i += blockDim.x) shared[i] = 0;
  __syncthreads();

  BlockSink<typename Trial::Ranks> counter{layout, shared, out, job.k};
  std::uint8_t* items = reinterpret_cast<std::uint8_t*>(shared) + (layout.shared_bytes + 15) / 16 * 16 + 4 * threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    trial.count(job, first + i, counter, items);

  // Words and draws: summed within each warp (CUB), one atomic per warp each.
  using WarpSum = cub::WarpReduce<unsigned long long>;
  __shared__ typename WarpSum::TempStorage warp_sum[tuning::kWarpsPerBlock];
  const unsigned long long w = WarpSum(warp_sum[threadIdx.x / 32]).Sum(counter.words_total);
  __syncwarp();
  const unsigned long long d = WarpSum(warp_sum[threadIdx.x / 32]).Sum(counter.draws_total);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&out.usage[0], w);
    atomicAdd(&out.usage[1], d);
  }

  __syncthreads();
  if (shared_ranks(layout.ranks)) {
    // The block's count of bin b: the sum of its copies ([copy][bin] by
    // warp, [bin][lane] by lane, or the one copy).
    const bool lanes = layout.ranks == RankCounters::lane_shared;
    const int copies = static_cast<int>(rank_copies(layout.ranks));
    for (std::uint64_t b = threadIdx.x; b < layout.bins; b += blockDim.x) {
      std::uint32_t sum = 0;
      for (int c = 0; c < copies; ++c) sum += shared[lanes ? b * 32 + c : c * layout.bins + b];
      out.partials[b * gridDim.x + blockIdx.x] = sum;
    }
  }
  if (layout.shared_positions) {
    const int cells = job.n * job.k;
    for (int c = threadIdx.x; c < cells; c += blockDim.x) {
      const int item = c / job.k, position = c - item * job.k;
      const std::uint32_t v = shared[layout.position_offset + item * layout.position_stride + position];
      if (v) atomicAdd(&out.counts[static_cast<int>(TallyKind::positions)][c], static_cast<unsigned long long>(v));
    }
  }
}

// Out: std::uint16_t records, or bytes where n <= 256.
template <class Trial, class Out>
__global__ void __launch_bounds__(tuning::kThreadsPerBlock)
    sample_kernel(TrialJob job, std::uint64_t first, std::uint64_t count, Out* out, Trial trial) {
  extern __shared__ std::uint32_t shared[];
  std::uint8_t* items = reinterpret_cast<std::uint8_t*>(shared) + 4 * threadIdx.x;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    trial.sample(job, first + i, out + i * job.k, items);
}

}  // namespace
}  // namespace melange::cuda
