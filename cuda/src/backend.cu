// The CUDA backend: thread -> block -> device.
//   thread: the core's trial body (melange/trial.hpp) over PhiloxSource, or
//           the job's decision table (melange/decision_table.hpp).
//   block:  counters in shared memory, aggregated within each warp, flushed
//           once per launch into per-block partials (or straight to global
//           atomics when the bins do not fit).
//   device: launches of at most 2^32 trials, each synchronised before its
//           partials are merged by a per-bin sum kernel (no library
//           temporaries whose release could throw in a destructor), 64-bit
//           totals kept on the device and copied back once. The backend
//           owns its device and sets it in every call.
#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <new>
#include <vector>

#include <cuda_runtime.h>

#include "check.cuh"
#include "device_buffer.cuh"
#include "events.cuh"
#include "melange/cuda/device.hpp"
#include "melange/cuda/launch_plan.hpp"
#include "melange/limits.hpp"
#include "melange/packed_items.hpp"
#include "melange/trial.hpp"
#include "tuning.cuh"

namespace melange::cuda {
namespace {

// Where the order counters live. lane_shared: [bin][lane], a column per
// lane of a warp shared by the block's warps, for the few bins of n <= 5 (120
// bins, 15 KB): each lane adds to its own bank with one shared atomic, where
// warp_shared first matches the warp's peers on the bin (a match, a popc, a
// leader's branch and its atomic, every trial).
enum class RankCounters : int { none, lane_shared, warp_shared, block_shared, global };

constexpr bool shared_ranks(RankCounters r) {
  return r == RankCounters::lane_shared || r == RankCounters::warp_shared || r == RankCounters::block_shared;
}

// Where `bins` order counters go: the first layout whose copies fit half the
// shared budget. A constant expression, so that a kernel compiled for one n
// knows its layout (FixedRanks) and layout_for gives the same at run time.
constexpr RankCounters rank_counters_for(std::uint64_t bins) {
  if (bins <= tuning::kLaneCounterBins && bins * 32 * 4 <= tuning::kSharedBudget / 2) return RankCounters::lane_shared;
  if (bins * tuning::kWarpsPerBlock * 4 <= tuning::kSharedBudget / 2) return RankCounters::warp_shared;
  if (bins * 4 <= tuning::kSharedBudget / 2) return RankCounters::block_shared;
  return RankCounters::global;
}

constexpr std::uint64_t rank_copies(RankCounters r) {
  return r == RankCounters::lane_shared ? 32 : r == RankCounters::warp_shared ? tuning::kWarpsPerBlock : 1;
}

struct Layout {
  RankCounters ranks = RankCounters::none;
  bool shared_positions = false;
  std::uint64_t bins = 0;
  std::size_t shared_bytes = 0;
  std::size_t position_offset = 0;  // in 32-bit words
  // Shared position counters sit at item * position_stride + position: an
  // odd stride spreads a warp's items over the 32 banks (n = 52 would use 8).
  int position_stride = 0;
  // Small n: a warp's threads that add to the same position cell add once,
  // through one leader (many of them do: n^2 cells for 32 threads).
  bool aggregate_positions = false;
};

Layout layout_for(const Job& job) {
  const Shape s = shape_of(job);
  Layout l;
  std::uint64_t used = 0;
  if (job.tallies.has(TallyKind::ranks)) {
    l.bins = s.whole() ? factorial(s.n) : deal_count(s.n, s.k);
    l.ranks = rank_counters_for(l.bins);
    if (shared_ranks(l.ranks)) used = l.bins * rank_copies(l.ranks);
  }
  l.position_offset = used;
  l.position_stride = s.k | 1;
  l.aggregate_positions = job.n <= tuning::kRegisterItems;
  const std::uint64_t shared_cells = static_cast<std::uint64_t>(job.n) * l.position_stride;
  if (job.tallies.has(TallyKind::positions) && (used + shared_cells) * 4 <= tuning::kSharedBudget) {
    l.shared_positions = true;
    used += shared_cells;
  }
  l.shared_bytes = used * 4;
  return l;
}

struct Outputs {
  std::uint32_t* partials;  // [bin * grid + block], shared-counter modes
  // By TallyKind: each kind's bins (the ranks' in global mode; the
  // positions' [item * k + slot]), null for a kind the job does not tally.
  unsigned long long* counts[kTallyKinds];
  std::uint64_t bins[kTallyKinds];
  unsigned long long* usage;  // [0] stream words, [1] draws and coins
};

// The order counters' layout as a kernel knows it: read from the Layout at
// run time, or fixed at compile time (a kernel per layout), which takes the
// switch out of every trial's rank.
struct RanksOfLayout {
  __device__ static RankCounters of(const Layout& l) { return l.ranks; }
};
template <RankCounters R>
struct FixedRanks {
  static constexpr RankCounters kRanks = R;
  __device__ static constexpr RankCounters of(const Layout&) { return R; }
};

// Reports of one thread, counted in the block's shared memory. Ranks: where
// its order counters are (RanksOfLayout or FixedRanks).
template <class Ranks>
struct BlockSink {
  const Layout& layout;
  std::uint32_t* shared;
  const Outputs& out;
  int k;  // columns of the position matrix: n, or a deal's k slots
  std::uint64_t words_total = 0, draws_total = 0;

  __device__ void rank(std::uint64_t r) {
    switch (Ranks::of(layout)) {
      case RankCounters::lane_shared:
        atomicAdd(&shared[r * 32 + (threadIdx.x & 31)], 1u);
        break;
      case RankCounters::warp_shared:
      case RankCounters::block_shared: {
        // Threads of a warp that share a bin add once, through one leader.
        std::uint32_t* bins = shared;
        if (Ranks::of(layout) == RankCounters::warp_shared) bins += (threadIdx.x / 32) * layout.bins;
        const unsigned peers = __match_any_sync(__activemask(), static_cast<unsigned>(r));
        if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1))
          atomicAdd(&bins[r], static_cast<unsigned>(__popc(peers)));
        break;
      }
      case RankCounters::global: atomicAdd(&out.counts[static_cast<int>(TallyKind::ranks)][r], 1ull); break;
      case RankCounters::none: break;
    }
  }
  __device__ void position(int item, int p) {
    if (!layout.shared_positions) {
      atomicAdd(&out.counts[static_cast<int>(TallyKind::positions)][item * k + p], 1ull);
      return;
    }
    const int cell = layout.position_offset + item * layout.position_stride + p;
    if (!layout.aggregate_positions) {
      atomicAdd(&shared[cell], 1u);
      return;
    }
    // Peers are matched on the cell itself, so threads of the warp that are
    // at different positions p never merge.
    const unsigned peers = __match_any_sync(__activemask(), static_cast<unsigned>(cell));
    if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1))
      atomicAdd(&shared[cell], static_cast<unsigned>(__popc(peers)));
  }
  // The other kinds, in global memory. A few bins that most threads share
  // (the ten poker categories) take one atomic a bin a warp; many bins (the
  // 2,598,960 hands of poker) spread the atomics by themselves.
  __device__ void add(TallyKind kind, std::uint64_t bin) {
    const int i = static_cast<int>(kind);
    if (out.bins[i] > tuning::kWarpAggregatedBins) {
      atomicAdd(&out.counts[i][bin], 1ull);
      return;
    }
    const unsigned peers = __match_any_sync(__activemask(), static_cast<unsigned>(bin));
    if ((threadIdx.x & 31) == static_cast<unsigned>(__ffs(peers) - 1))
      atomicAdd(&out.counts[i][bin], static_cast<unsigned long long>(__popc(peers)));
  }
  __device__ void usage(std::uint64_t words, std::uint64_t draws) {
    words_total += words;
    draws_total += draws;
  }
};

// The job's batch plan under `batched` (planned_batches): its products and
// thresholds, worked out on the host once per job and read from constant
// memory, so that a trial's batch refills make no division (at n = 52, 62
// division sequences a trial, about 38% of its instructions, before).
// Uploaded by upload_batch_plan before the launches that read it.
__constant__ PlannedBatch c_batches[kMaxDeviceItems];

struct ConstantBatches {
  __device__ PlannedBatch operator[](int i) const { return c_batches[i]; }
};

// The schedule algorithms' general kernels under `batched` read the plan.
template <Algorithm A, MethodSet Set>
constexpr bool kReadsBatchPlan = Set == MethodSet::batched && draw_kind(A) == DrawKind::schedule;

// How a thread runs one trial: the algorithm itself (the core's trial body,
// a byte an item), or the job's decision table (decision_table.hpp) in
// device memory.
//
// DirectTrial<A, N, Set>: with N > 0 the job's n is known at compile time
// (tuning::kRegisterItems at most) and the method reads a word a draw, so the
// loops unroll and the items and the stream stay in registers; with N = 0 any
// n, the items in the block's shared memory, interleaved by thread
// (InterleavedItems: four to a word, the words interleaved by thread, one
// bank a lane). Set: the methods
// it is compiled for.
//
// Each trial kind says whether it needs those shared items (kSharedItems);
// the kernels hand it the thread's first item word.
// A kernel of known n (no deal, whose bins depend on k) knows where its order
// counters go (FixedRanks); any n reads it from the layout.
template <Algorithm A, int N = 0, MethodSet Set = MethodSet::any>
struct DirectTrial {
  static constexpr bool kSharedItems = N == 0;
  using Ranks = std::conditional_t<(N > 0 && !can_deal(A)), FixedRanks<rank_counters_for(factorial(N))>,
                                   RanksOfLayout>;
  __device__ static TrialJob fixed(TrialJob job) {
    if constexpr (N > 0) job.n = N;
    return job;
  }
  template <class Sink>
  __device__ void count(const TrialJob& job, std::uint64_t t, Sink& counter, std::uint8_t* shared) const {
    const TrialJob j = fixed(job);
    if constexpr (N > 0) {
      std::uint8_t items[N > 0 ? N : 1];
      const auto used = packed_trial(j, t, items);
      if constexpr (can_deal(A)) {
        // A deal's slots start at the run-time n - k: read them from the
        // packed word by shifts, as an array read there would go to local
        // memory.
        count_trial(j, used.packed, used.words, used.draws, counter);
      } else {
        count_trial<false>(j, items, used.words, used.draws, counter);
      }
    } else {
      const InterleavedItems items{shared, static_cast<int>(blockDim.x)};
      // The n = 52 position audit: each slot counted as it becomes final. Not
      // for deals: with their hand and category paths beside it the kernel
      // spills.
      if constexpr (kFixesSlotsInTurn<A> && !can_deal(A)) {
        if (j.tallies == TallySet{TallyKind::positions}) {
          if constexpr (kReadsBatchPlan<A, Set>) count_positions_in_turn<A, Set>(j, t, items, counter, ConstantBatches{});
          else count_positions_in_turn<A, Set>(j, t, items, counter);
          return;
        }
      }
      CountingSink<Sink, can_deal(A)> sink{j, counter};
      run(j, t, items, sink);
    }
  }
  template <class Out>
  __device__ void sample(const TrialJob& job, std::uint64_t t, Out* out, std::uint8_t* shared) const {
    const TrialJob j = fixed(job);
    if constexpr (N > 0) {
      std::uint8_t items[N > 0 ? N : 1];
      const auto used = packed_trial(j, t, items);
      for (int p = 0; p < j.k; ++p) out[p] = static_cast<Out>(used.packed.item(N - j.k + p));
    } else {
      SampleSink<Out> sink{out};
      run(j, t, InterleavedItems{shared, static_cast<int>(blockDim.x)}, sink);
    }
  }

 private:
  // The core's trial body, with the batch plan where the kernel reads one.
  template <class Items, class Sink>
  __device__ static void run(const TrialJob& j, std::uint64_t t, Items&& items, Sink& sink) {
    if constexpr (kReadsBatchPlan<A, Set>) run_trial<A, Set>(j, t, items, sink, ConstantBatches{});
    else run_trial<A, Set>(j, t, items, sink);
  }

  struct Used {
    std::uint64_t words, draws;
    PackedItems packed;  // the items as the algorithm left them
  };
  // The algorithm on items packed in a register (packed_items.hpp), then
  // unpacked at indices known at compile time, which stay in registers too.
  __device__ static Used packed_trial(const TrialJob& job, std::uint64_t t, std::uint8_t* items) {
    PackedItems packed = PackedItems::identity(N);
    const Shape shape{N, job.k};
    BasicPhiloxSource<Set> src(job.seed, t, job.spec, A, shape);
    shuffle_as<A>(packed, shape, src);
    for (int p = 0; p < N; ++p) items[p] = packed.item(p);
    return Used{src.words_consumed(), src.draws_made(), packed};
  }
};

// A trial through the job's decision table, compiled for the table's index
// kind and, when it counts, for its order counters' layout: a kernel each
// (TableIndex x RankCounters), so the n <= 8 audit's trial branches on
// neither.
template <TableIndex Kind, class RanksAre = RanksOfLayout>
struct TableTrial {
  static constexpr bool kSharedItems = false;
  using Ranks = RanksAre;
  DecisionTableView table;  // device pointers
  template <class Sink>
  __device__ void count(const TrialJob& job, std::uint64_t t, Sink& counter, std::uint8_t*) const {
    count_table_trial<FixedTableIndex<Kind>>(job, table, t, counter);
  }
  template <class Out>
  __device__ void sample(const TrialJob& job, std::uint64_t t, Out* out, std::uint8_t*) const {
    sample_table_trial<FixedTableIndex<Kind>>(job, table, t, out);
  }
};

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

// A job's decision table copied to the device, where it has one.
struct DeviceTable {
  internal::DeviceBuffer<std::uint32_t> perms, meta;
  DecisionTableView view;  // perms null: no table
  explicit DeviceTable(const Job& job) {
    if (!DecisionTable::fits(job)) return;
    const DecisionTable host(job);
    perms = internal::DeviceBuffer<std::uint32_t>(host.perms());
    meta = internal::DeviceBuffer<std::uint32_t>(host.meta());
    view = host.view();
    view.perms = perms.data();
    view.meta = meta.data();
  }
  // Calls f(trial) with the job's thread-level trial for an audit laid out
  // as `layout`: the table, compiled for its kind and the layout's order
  // counters, else the algorithm (with_direct_trial).
  template <class F>
  void with_audit_trial(const Job& job, const Layout& layout, F&& f) const {
    if (!view.perms) return with_direct_trial(job, f);
    with_table_kind([&](auto kind) {
      constexpr TableIndex K = decltype(kind)::value;
      switch (layout.ranks) {
        case RankCounters::lane_shared: return f(TableTrial<K, FixedRanks<RankCounters::lane_shared>>{view});
        case RankCounters::warp_shared: return f(TableTrial<K, FixedRanks<RankCounters::warp_shared>>{view});
        case RankCounters::block_shared: return f(TableTrial<K, FixedRanks<RankCounters::block_shared>>{view});
        case RankCounters::global: return f(TableTrial<K, FixedRanks<RankCounters::global>>{view});
        case RankCounters::none: break;  // no ranks: the rank path is never called
      }
      f(TableTrial<K, FixedRanks<RankCounters::none>>{view});
    });
  }
  // The same for records: the table's kind alone.
  template <class F>
  void with_sample_trial(const Job& job, F&& f) const {
    if (!view.perms) return with_direct_trial(job, f);
    with_table_kind([&](auto kind) { f(TableTrial<decltype(kind)::value>{view}); });
  }

 private:
  template <class F>
  void with_table_kind(F&& f) const {
    if (view.kind == TableIndex::coins) return f(std::integral_constant<TableIndex, TableIndex::coins>{});
    f(std::integral_constant<TableIndex, TableIndex::batch>{});
  }
  // The algorithm with n fixed at compile time where it is small, else any n.
  template <class F>
  void with_direct_trial(const Job& job, F&& f) const {
    with_algorithm(job.algorithm, [&](auto algo) {
      constexpr Algorithm A = decltype(algo)::value;
      // The weighted orders are CPU only (floating point keys): no kernel,
      // and job_has_kernel keeps their jobs off this backend.
      if constexpr (draw_kind(A) == DrawKind::keys) {
        throw Error(std::string(algorithm_name(A)) + " has no CUDA kernel (its keys are floating point): run it on "
                    "the CPU");
      } else {
        // Under `batched` small n has a table (naive-swap at n = 8 aside).
        constexpr MethodSet kWord = MethodSet::one_a_word;
        if constexpr (draw_kind(A) == DrawKind::schedule) {
          if (job.spec.method != Method::batched &&
              with_count_in<2, tuning::kRegisterItems>(job.n, [&](auto n) { f(DirectTrial<A, decltype(n)::value, kWord>{}); }))
            return;
        }
        if (job.spec.method == Method::batched) return f(DirectTrial<A, 0, MethodSet::batched>{});
        f(DirectTrial<A, 0, kWord>{});
      }
    });
  }
};

// totals[bin] += the sum over blocks of partials[bin * blocks + block]: a
// thread a bin, grid-stride.
__global__ void add_partials_kernel(const std::uint32_t* partials, std::uint64_t bins, std::uint64_t blocks,
                                    unsigned long long* totals) {
  for (std::uint64_t bin = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; bin < bins;
       bin += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    totals[bin] += sum_of_partials(partials, bin, blocks);
}

// The grid for a kernel: as many resident blocks as fit on every SM. Lets the
// kernel have more than the default 48 KiB of dynamic shared memory first.
template <class Kernel>
unsigned grid_for(Kernel kernel, int sms, std::size_t shared_bytes) {
  if (shared_bytes > 48 * 1024)
    internal::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(shared_bytes)),
                    "asking for shared memory");
  int per_sm = 0;
  internal::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, tuning::kThreadsPerBlock,
                                                                shared_bytes),
                  "occupancy");
  return static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1));
}

// Runs f, turning a host allocation failure (a table, a copy-back buffer)
// into melange::Error; CUDA failures are Errors already (check.cuh).
template <class F>
void guarded(const char* what, F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    throw Error(internal::describe(cudaErrorMemoryAllocation, what));
  }
}

// Puts the job's batch plan in constant memory when its kernel reads one
// (batched, a draw schedule); at most one draw a batch, so kMaxDeviceItems
// batches always suffice.
void upload_batch_plan(const Job& job) {
  if (job.spec.method != Method::batched) return;
  const std::vector<PlannedBatch> plan = planned_batches(job.algorithm, shape_of(job));
  if (plan.empty()) return;
  if (plan.size() > static_cast<std::size_t>(kMaxDeviceItems)) throw Error("internal: a batch plan past the device's");
  internal::check(cudaMemcpyToSymbol(c_batches, plan.data(), plan.size() * sizeof(PlannedBatch)),
                  "copying the batch plan");
}

// One launch of the sample kernel: records [first, first + count) into
// device memory at `out`, through the job's table (built once by the caller).
template <class Out>
void launch_samples(const Job& job, const DeviceTable& table, std::uint64_t first, std::uint64_t count, Out* out,
                    int sms) {
  const TrialJob dj = trial_job(job);
  table.with_sample_trial(job, [&](auto trial) {
    using Trial = decltype(trial);
    const std::size_t shared_bytes = shared_bytes_for<Trial>(0, job.n);
    sample_kernel<<<grid_for(sample_kernel<Trial, Out>, sms, shared_bytes), tuning::kThreadsPerBlock,
                    shared_bytes>>>(dj, first, count, out, trial);
  });
  internal::check(cudaGetLastError(), "sample kernel launch");
}

// Records [begin, end) of `job` into device memory at `out`, a launch of at
// most tuning::kSampleTrials at a time, left on the device.
void sample_on_device(const Job& job, std::uint64_t begin, std::uint64_t end, std::uint16_t* out, int sms) {
  const auto n = static_cast<std::size_t>(shape_of(job).k);  // items a row: the permutation, or a deal's k
  const DeviceTable table(job);
  upload_batch_plan(job);
  for (const Launch& l : plan_launches(begin, end - begin, tuning::kSampleTrials))
    launch_samples(job, table, l.first, l.count, out + (l.first - begin) * n, sms);
  internal::check(cudaDeviceSynchronize(), "sample kernel");
}

// Makes `device` the calling thread's device: the runtime keeps the current
// device per host thread, and the engine's workers are other threads.
void set_device(int device) { internal::check(cudaSetDevice(device), "selecting the device"); }

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, int sms) : device_(device), sms_(sms) {}

  std::string_view name() const override { return "cuda"; }
  bool supports(const Job& job) const override { return job_has_kernel(job); }
  std::uint64_t preferred_chunk() const override { return tuning::kRangeTrials; }
  int max_workers() const override { return 1; }

  void run_range(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally) const override {
    guarded("audit", [&] { audit(job, begin, end, tally); });
  }

  void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                    std::uint16_t* out) const override {
    guarded("sample", [&] { sample(job, begin, end, out); });
  }

  // Bytes (n <= 256) written as bytes by the kernel, in one call: one table,
  // one device buffer, a launch a piece of kSampleTrials, half the copy-back
  // of 16-bit records; not the default's 4,096-trial pieces, each a table
  // build, an allocation and a synchronisation, narrowed on the host.
  void sample_range_bytes(const Job& job, std::uint64_t begin, std::uint64_t end,
                          std::uint8_t* out) const override {
    guarded("sample", [&] { sample(job, begin, end, out); });
  }

 // [begin, end) of `job` into `tally`; `events`, when given, brackets the
  // device's work (every launch and merge), for the kernels' own time.
  void audit(const Job& job, std::uint64_t begin, std::uint64_t end, Tally& tally,
             internal::EventPair* events = nullptr) const {
    set_device(device_);
    using internal::DeviceBuffer;
    const Layout layout = layout_for(job);
    const TrialJob dj = trial_job(job);
    const bool partial = shared_ranks(layout.ranks);
    const DeviceTable table(job);
    upload_batch_plan(job);
    unsigned grid = 0;
    std::size_t shared_bytes = 0;
    table.with_audit_trial(job, layout, [&](auto trial) {
      using Trial = decltype(trial);
      // A kernel compiled for its order counters' layout must have the
      // layout's: the flush after the trials reads the Layout.
      if constexpr (requires { Trial::Ranks::kRanks; })
        if (job.tallies.has(TallyKind::ranks) && Trial::Ranks::kRanks != layout.ranks)
          throw Error("internal: a kernel compiled for other order counters than the job's layout");
      shared_bytes = shared_bytes_for<Trial>(layout.shared_bytes, job.n);
      grid = grid_for(audit_kernel<Trial>, sms_, shared_bytes);
    });
    DeviceBuffer<std::uint32_t> partials(partial ? layout.bins * grid : 0);
    std::array<DeviceBuffer<unsigned long long>, kTallyKinds> counts;
    Outputs out{partials.data(), {}, {}, nullptr};
    for (const TallyKindRow& row : kTallyKindRows) {
      if (!job.tallies.has(row.kind)) continue;
      const auto i = static_cast<std::size_t>(row.kind);
      out.bins[i] = row.bins(dj.shape());
      counts[i] = DeviceBuffer<unsigned long long>(out.bins[i]);
      counts[i].zero();
      out.counts[i] = counts[i].data();
    }
    DeviceBuffer<unsigned long long> usage(2);
    usage.zero();
    out.usage = usage.data();

    if (events) events->start();
    for (const Launch& l : plan_launches(begin, end - begin, tuning::kLaunchTrials)) {
      table.with_audit_trial(job, layout, [&](auto trial) {
        audit_kernel<<<grid, tuning::kThreadsPerBlock, shared_bytes>>>(dj, layout, l.first, l.count, out, trial);
      });
      internal::check(cudaGetLastError(), "audit kernel launch");
      if (partial) {
        // A fault in the audit kernel is reported here, as an Error, before
        // anything reads what it left.
        internal::check(cudaDeviceSynchronize(), "audit kernel");
        const unsigned merge_blocks =
            static_cast<unsigned>(std::min<std::uint64_t>((layout.bins + tuning::kThreadsPerBlock - 1) /
                                                              tuning::kThreadsPerBlock,
                                                          static_cast<std::uint64_t>(sms_) * 8));
        add_partials_kernel<<<merge_blocks, tuning::kThreadsPerBlock>>>(partials.data(), layout.bins, grid,
                                                                        out.counts[static_cast<int>(TallyKind::ranks)]);
        internal::check(cudaGetLastError(), "merging the blocks' counts");
      }
    }
    if (events) events->stop();
    internal::check(cudaDeviceSynchronize(), "audit kernel");

    for (const TallyKindRow& row : kTallyKindRows) {
      if (!job.tallies.has(row.kind)) continue;
      const std::vector<unsigned long long> h = counts[static_cast<std::size_t>(row.kind)].to_host();
      std::vector<std::uint64_t>& to = tally[row.kind].counts();
      for (std::size_t b = 0; b < h.size(); ++b) to[b] += h[b];
    }
    const std::vector<unsigned long long> used = usage.to_host();
    tally.trials += end - begin;
    tally.words += static_cast<std::uint64_t>(used[0]);
    tally.draws += static_cast<std::uint64_t>(used[1]);
  }

 private:
  // Records [begin, end) into host memory at `out`, a launch at a time
  // through one device buffer. Out: std::uint16_t, or bytes (n <= 256).
  template <class Out>
  void sample(const Job& job, std::uint64_t begin, std::uint64_t end, Out* out) const {
    set_device(device_);
    const auto n = static_cast<std::size_t>(shape_of(job).k);  // items a row: the permutation, or a deal's k
    const std::uint64_t piece = std::min(end - begin, tuning::kSampleTrials);
    internal::DeviceBuffer<Out> buffer(piece * n);
    const DeviceTable table(job);
    upload_batch_plan(job);
    for (const Launch& l : plan_launches(begin, end - begin, tuning::kSampleTrials)) {
      launch_samples(job, table, l.first, l.count, buffer.data(), sms_);
      internal::check(cudaMemcpy(out + (l.first - begin) * n, buffer.data(), l.count * n * sizeof(Out),
                                 cudaMemcpyDeviceToHost),
                      "copying the records back");
    }
  }

  int device_, sms_;
};

// The device the calling thread has (0, or use_device's) and its SMs; a
// device whose context holds a sticky fault (an earlier kernel's) is none.
bool current_device(int& device, int& sms) {
  if (device_count() == 0) return false;
  if (cudaGetDevice(&device) != cudaSuccess || cudaPeekAtLastError() != cudaSuccess) return false;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return false;
  sms = prop.multiProcessorCount;
  return true;
}

}  // namespace

TimedAudit timed_audit(const Job& job) {
  validate(job);
  int device = 0, sms = 0;
  if (!current_device(device, sms)) throw Error("no usable CUDA device: " + unavailable_reason());
  if (!job_has_kernel(job)) throw UsageError("this job has no CUDA kernel");
  const CudaBackend backend(device, sms);
  TimedAudit timed{Tally::for_job(job), 0};
  internal::EventPair events;
  guarded("audit", [&] { backend.audit(job, job.first, job.first + job.trials, timed.tally, &events); });
  timed.kernel_seconds = events.seconds();
  return timed;
}

KernelShape audit_kernel_shape(const Job& job) {
  int device = 0, sms = 0;
  if (!current_device(device, sms)) throw Error("no usable CUDA device: " + unavailable_reason());
  if (!job_has_kernel(job)) throw UsageError("this job has no CUDA kernel");
  KernelShape shape;
  const DeviceTable table(job);
  const Layout layout = layout_for(job);
  table.with_audit_trial(job, layout, [&](auto trial) {
    using Trial = decltype(trial);
    shape.shared_bytes = shared_bytes_for<Trial>(layout.shared_bytes, job.n);
    shape.grid = grid_for(audit_kernel<Trial>, sms, shape.shared_bytes);
    shape.blocks_per_sm = static_cast<int>(shape.grid / static_cast<unsigned>(sms));
    cudaFuncAttributes attributes{};
    internal::check(cudaFuncGetAttributes(&attributes, audit_kernel<Trial>), "kernel attributes");
    shape.registers = attributes.numRegs;
  });
  return shape;
}

void fill_device(const Job& job, std::uint16_t* device_out) {
  validate_draws(job);
  if (!job_has_kernel(job))
    throw UsageError(std::string(algorithm_name(job.algorithm)) + " at {n} = " + std::to_string(job.n) +
                     " has no CUDA kernel: fill host memory with fill_records");
  int device = 0, sms = 0;  // the current one: 0, or the one use_device() chose
  if (!current_device(device, sms)) throw Error("no usable CUDA device: " + unavailable_reason());
  guarded("sample", [&] { sample_on_device(job, job.first, job.first + job.trials, device_out, sms); });
}

std::unique_ptr<Backend> make_backend() {
  // The backend keeps the device current when it was made (0, or the one
  // use_device() chose for this process) and sets it in every call; a
  // context with a sticky fault gives no backend, so `auto` picks another.
  int device = 0, sms = 0;
  if (!current_device(device, sms)) return nullptr;
  return std::make_unique<CudaBackend>(device, sms);
}

}  // namespace melange::cuda
