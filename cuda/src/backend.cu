// The CUDA backend: thread -> block -> device.
//   thread: the core's trial body (melange/trial.hpp) over PhiloxSource, or
//           the job's decision table (melange/decision_table.hpp).
//   block:  counters in shared memory, aggregated within each warp, flushed
//           once per launch into per-block partials (or straight to global
//           atomics when the bins do not fit).
//   device: launches of at most 2^32 trials, partials merged with Thrust,
//           64-bit totals kept on the device and copied back once.
#include <cub/warp/warp_reduce.cuh>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>
#include <thrust/transform.h>

#include <cuda_runtime.h>

#include "check.cuh"
#include "melange/cuda/device.hpp"
#include "melange/cuda/launch_plan.hpp"
#include "melange/limits.hpp"
#include "melange/trial.hpp"
#include "tuning.cuh"

namespace melange::cuda {
namespace {

enum class RankCounters : int { none, warp_shared, block_shared, global };

struct Layout {
  RankCounters ranks = RankCounters::none;
  bool shared_positions = false;
  std::uint64_t bins = 0;
  std::size_t shared_bytes = 0;
  std::size_t position_offset = 0;  // in 32-bit words
};

Layout layout_for(const Job& job) {
  Layout l;
  const std::uint64_t cells = static_cast<std::uint64_t>(job.n) * job.n;
  std::uint64_t used = 0;
  if (job.rank_histogram) {
    l.bins = factorial(job.n);
    if (l.bins * tuning::kWarpsPerBlock * 4 <= tuning::kSharedBudget / 2) {
      l.ranks = RankCounters::warp_shared;
      used = l.bins * tuning::kWarpsPerBlock;
    } else if (l.bins * 4 <= tuning::kSharedBudget / 2) {
      l.ranks = RankCounters::block_shared;
      used = l.bins;
    } else {
      l.ranks = RankCounters::global;
    }
  }
  l.position_offset = used;
  if (job.position_matrix && (used + cells) * 4 <= tuning::kSharedBudget) {
    l.shared_positions = true;
    used += cells;
  }
  l.shared_bytes = used * 4;
  return l;
}

struct Outputs {
  std::uint32_t* partials;            // [bin * grid + block], shared-counter modes
  unsigned long long* ranks;          // [bin], global mode
  unsigned long long* positions;      // [item * n + position]
  unsigned long long* usage;  // [0] stream words, [1] draws and coins
};

// Reports of one thread, counted in the block's shared memory.
struct BlockSink {
  const Layout& layout;
  std::uint32_t* shared;
  const Outputs& out;
  int n;
  std::uint64_t words_total = 0, draws_total = 0;

  __device__ void rank(std::uint64_t r) {
    switch (layout.ranks) {
      case RankCounters::warp_shared:
      case RankCounters::block_shared: {
        // Threads of a warp that share a bin add once, through one leader.
        std::uint32_t* bins = shared;
        if (layout.ranks == RankCounters::warp_shared) bins += (threadIdx.x / 32) * layout.bins;
        const unsigned peers = __match_any_sync(__activemask(), static_cast<unsigned>(r));
        if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1))
          atomicAdd(&bins[r], static_cast<unsigned>(__popc(peers)));
        break;
      }
      case RankCounters::global: atomicAdd(&out.ranks[r], 1ull); break;
      case RankCounters::none: break;
    }
  }
  __device__ void position(int item, int p) {
    const int cell = item * n + p;
    if (layout.shared_positions)
      atomicAdd(&shared[layout.position_offset + cell], 1u);
    else
      atomicAdd(&out.positions[cell], 1ull);
  }
  __device__ void usage(std::uint64_t words, std::uint64_t draws) {
    words_total += words;
    draws_total += draws;
  }
};

// How a thread runs one trial: the algorithm itself (the core's trial body,
// a byte an item), or the job's decision table (decision_table.hpp) in
// device memory.
template <Algorithm A>
struct DirectTrial {
  __device__ void count(const TrialJob& job, std::uint64_t t, BlockSink& counter) const {
    std::uint8_t items[kMaxDeviceItems];  // in registers or local memory
    CountingSink<BlockSink> sink{job, counter};
    run_trial<A>(job, t, items, sink);
  }
  __device__ void sample(const TrialJob& job, std::uint64_t t, std::uint16_t* out) const {
    std::uint8_t items[kMaxDeviceItems];
    SampleSink sink{out};
    run_trial<A>(job, t, items, sink);
  }
};

struct TableTrial {
  DecisionTableView table;  // device pointers
  __device__ void count(const TrialJob& job, std::uint64_t t, BlockSink& counter) const {
    count_table_trial(job, table, t, counter);
  }
  __device__ void sample(const TrialJob& job, std::uint64_t t, std::uint16_t* out) const {
    sample_table_trial(job, table, t, out);
  }
};

template <class Trial>
__global__ void __launch_bounds__(tuning::kThreadsPerBlock)
    audit_kernel(TrialJob job, Layout layout, std::uint64_t first, std::uint64_t count, Outputs out, Trial trial) {
  extern __shared__ std::uint32_t shared[];
  for (std::size_t i = threadIdx.x; i < layout.shared_bytes / 4; i += blockDim.x) shared[i] = 0;
  __syncthreads();

  BlockSink counter{layout, shared, out, job.n};
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    trial.count(job, first + i, counter);

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
  if (layout.ranks == RankCounters::warp_shared || layout.ranks == RankCounters::block_shared) {
    const int copies = layout.ranks == RankCounters::warp_shared ? tuning::kWarpsPerBlock : 1;
    for (std::uint64_t b = threadIdx.x; b < layout.bins; b += blockDim.x) {
      std::uint32_t sum = 0;
      for (int c = 0; c < copies; ++c) sum += shared[c * layout.bins + b];
      out.partials[b * gridDim.x + blockIdx.x] = sum;
    }
  }
  if (layout.shared_positions) {
    const int cells = job.n * job.n;
    for (int c = threadIdx.x; c < cells; c += blockDim.x) {
      const std::uint32_t v = shared[layout.position_offset + c];
      if (v) atomicAdd(&out.positions[c], static_cast<unsigned long long>(v));
    }
  }
}

template <class Trial>
__global__ void __launch_bounds__(tuning::kThreadsPerBlock)
    sample_kernel(TrialJob job, std::uint64_t first, std::uint64_t count, std::uint16_t* out, Trial trial) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    trial.sample(job, first + i, out + i * job.n);
}

// A job's decision table copied to the device, where it has one.
struct DeviceTable {
  thrust::device_vector<std::uint32_t> perms, meta;
  DecisionTableView view;  // perms null: no table
  explicit DeviceTable(const Job& job) {
    if (!DecisionTable::fits(job)) return;
    const DecisionTable host(job);
    perms = host.perms();
    meta = host.meta();
    view = host.view();
    view.perms = thrust::raw_pointer_cast(perms.data());
    view.meta = thrust::raw_pointer_cast(meta.data());
  }
  // Calls f(trial) with the job's thread-level trial.
  template <class F>
  void with_trial(Algorithm a, F&& f) const {
    if (view.perms) return f(TableTrial{view});
    with_algorithm(a, [&](auto algo) { f(DirectTrial<decltype(algo)::value>{}); });
  }
};

struct AddTo {
  __host__ __device__ unsigned long long operator()(unsigned long long a, unsigned long long b) const {
    return a + b;
  }
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int sms) : grid_(sms * tuning::kBlocksPerSm) {}

  std::string_view name() const override { return "cuda"; }
  bool supports(const Job& job) const override { return job.n >= 1 && job.n <= kMaxDeviceItems; }
  std::uint64_t preferred_chunk() const override { return tuning::kRangeTrials; }
  int max_workers() const override { return 1; }

  void run_range(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally) const override {
    const Layout layout = layout_for(job);
    const TrialJob dj = trial_job(job);
    const bool partial = layout.ranks == RankCounters::warp_shared || layout.ranks == RankCounters::block_shared;
    thrust::device_vector<unsigned long long> ranks(job.rank_histogram ? layout.bins : 0, 0ull);
    thrust::device_vector<unsigned long long> merged(partial ? layout.bins : 0);
    thrust::device_vector<std::uint32_t> partials(partial ? layout.bins * grid_ : 0);
    thrust::device_vector<unsigned long long> positions(
        job.position_matrix ? static_cast<std::size_t>(job.n) * job.n : 0, 0ull);
    thrust::device_vector<unsigned long long> usage(2, 0ull);
    const Outputs out{thrust::raw_pointer_cast(partials.data()), thrust::raw_pointer_cast(ranks.data()),
                      thrust::raw_pointer_cast(positions.data()), thrust::raw_pointer_cast(usage.data())};

    const DeviceTable table(job);
    for (const Launch& l : plan_launches(begin, end - begin, tuning::kLaunchTrials)) {
      table.with_trial(job.algorithm, [&](auto trial) {
        audit_kernel<<<grid_, tuning::kThreadsPerBlock, layout.shared_bytes>>>(dj, layout, l.first, l.count, out,
                                                                               trial);
      });
      internal::check(cudaGetLastError(), "audit kernel launch");
      if (partial) {
        merge_partials(thrust::device, partials.begin(), layout.bins, grid_, merged.begin());
        thrust::transform(thrust::device, ranks.begin(), ranks.end(), merged.begin(), ranks.begin(), AddTo{});
      }
    }
    internal::check(cudaDeviceSynchronize(), "audit kernel");

    if (job.rank_histogram) {
      thrust::host_vector<unsigned long long> h = ranks;
      for (std::uint64_t b = 0; b < layout.bins; ++b)
        if (h[b]) tally.ranks.add(b, h[b]);
    }
    if (job.position_matrix) {
      thrust::host_vector<unsigned long long> h = positions;
      for (std::size_t c = 0; c < h.size(); ++c) tally.positions.counts()[c] += h[c];
    }
    tally.trials += end - begin;
    const thrust::host_vector<unsigned long long> used = usage;
    tally.words += static_cast<std::uint64_t>(used[0]);
    tally.draws += static_cast<std::uint64_t>(used[1]);
  }

  void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                    std::uint16_t* out) const override {
    const TrialJob dj = trial_job(job);
    const auto n = static_cast<std::size_t>(job.n);
    thrust::device_vector<std::uint16_t> buffer(std::min(end - begin, tuning::kSampleTrials) * n);
    const DeviceTable table(job);
    for (const Launch& l : plan_launches(begin, end - begin, tuning::kSampleTrials)) {
      table.with_trial(job.algorithm, [&](auto trial) {
        sample_kernel<<<grid_, tuning::kThreadsPerBlock>>>(dj, l.first, l.count,
                                                           thrust::raw_pointer_cast(buffer.data()), trial);
      });
      internal::check(cudaGetLastError(), "sample kernel launch");
      internal::check(cudaMemcpy(out + (l.first - begin) * n, thrust::raw_pointer_cast(buffer.data()),
                                 l.count * n * sizeof(std::uint16_t), cudaMemcpyDeviceToHost),
                      "copying permutations back");
    }
  }

 private:
  unsigned grid_;
};

}  // namespace

std::unique_ptr<Backend> make_backend() {
  if (device_count() == 0) return nullptr;
  cudaDeviceProp prop{};
  internal::check(cudaGetDeviceProperties(&prop, 0), "device properties");
  return std::make_unique<CudaBackend>(prop.multiProcessorCount);
}

}  // namespace melange::cuda
