// The CUDA backend: thread -> block -> device, a file a layer:
// thread_trials.cuh, block_sink.cuh (with its policy, policy.cuh),
// kernels.cuh; this file is the device level and the dispatch.
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
#include <algorithm>
#include <new>
#include <vector>

#include <cuda_runtime.h>

#include "check.cuh"
#include "device_buffer.cuh"
#include "events.cuh"
#include "kernels.cuh"
#include "melange/cuda/device.hpp"
#include "melange/cuda/launch_plan.hpp"
#include "melange/limits.hpp"
#include "melange/packed_items.hpp"
#include "melange/trial.hpp"
#include "tuning.cuh"

namespace melange::cuda {
namespace {

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
      // The weighted orders (floating point keys) and riffle (a digit per
      // card to keep) are CPU only: no kernel, and job_has_kernel keeps
      // their jobs off this backend.
      if constexpr (draw_kind(A) == DrawKind::keys || draw_kind(A) == DrawKind::cards) {
        throw Error(std::string(algorithm_name(A)) + " has no CUDA kernel: run it on the CPU");
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
  std::uint64_t preferred_chunk(const Job&) const override { return tuning::kRangeTrials; }
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
    std::array<DeviceBuffer<unsigned long long>, kDeviceTallyKinds> counts;
    Outputs out{partials.data(), {}, {}, nullptr};
    for (const TallyKindRow& row : kTallyKindRows) {
      if (!job.tallies.has(row.kind)) continue;
      const auto i = static_cast<std::size_t>(row.kind);
      if (i >= kDeviceTallyKinds) throw Error("internal: a GPU job tallies a kind the device does not count");
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
