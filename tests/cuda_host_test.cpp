// The CUDA backend without a GPU: its thread-level code compiled as host code
// against the scalar reference, the sum its merge kernel runs, its fault
// path, and its launch planning over trillion-trial ranges.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <type_traits>

#include "check.cuh"  // cuda-private (melange_cuda_internals)
#include "device_buffer.cuh"
#include "melange/cuda/device.hpp"
#include "melange/cuda/launch_plan.hpp"
#include "melange/engine.hpp"
#include "melange/packed_items.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

// What the block level does on the GPU, done plainly: the same counter
// interface (rank, position, add, usage) as the kernel's shared-memory sink.
struct HostCounter {
  Tally& tally;
  int k;  // columns of the position matrix
  void rank(std::uint64_t r) { tally[TallyKind::ranks].add(r); }
  void position(int item, int p) { ++tally[TallyKind::positions].counts()[static_cast<std::size_t>(item) * k + p]; }
  void add(TallyKind kind, std::uint64_t bin) { ++tally[kind].counts()[bin]; }
  void usage(std::uint64_t words, std::uint64_t draws) {
    tally.words += words;
    tally.draws += draws;
  }
};

// The algorithms the device code runs: all but the weighted orders and the card shuffles.
std::vector<Algorithm> device_algorithms() {
  return std::vector<Algorithm>(std::begin(cuda::kDeviceAlgorithms), std::end(cuda::kDeviceAlgorithms));
}

// The thread level as the kernel runs it: a byte an item, the core's trial
// body, a counting sink.
Tally run_on_host(const Job& job) {
  Tally t = Tally::for_job(job);
  HostCounter counter{t, shape_of(job).k};
  const TrialJob tj = trial_job(job);
  CountingSink<HostCounter> sink{tj, counter};
  std::uint8_t items[kMaxDeviceItems];
  with_algorithm(job.algorithm, [&](auto algo) {
    for (std::uint64_t i = 0; i < job.trials; ++i) run_trial<decltype(algo)::value>(tj, job.first + i, items, sink);
  });
  t.trials = job.trials;
  return t;
}

Job host_job(Algorithm a, int n, BoundedSpec spec, std::uint64_t seed, std::uint64_t first,
             std::uint64_t trials, bool ranks) {
  Job job{.seed = seed, .algorithm = a, .spec = spec, .n = n, .first = first, .trials = trials,
          .tallies = {TallyKind::positions}};
  job.tallies.set(TallyKind::ranks, ranks);
  if (a == Algorithm::partial) {
    // A deal of up to five: hands, and poker categories at 5 of 52.
    job.k = std::min(n, 5);
    job.tallies.set(TallyKind::hands, job.k < n);
    job.tallies.set(TallyKind::poker, n == 52);
  }
  return job;
}

// Runs trial(t, counter) for every trial of `job`, as a thread of the kernel
// would, and holds the tally to the reference loop's.
template <class Trial>
void expect_reference(const Job& job, Trial&& trial) {
  Tally got = Tally::for_job(job), want = Tally::for_job(job);
  HostCounter counter{got, shape_of(job).k};
  for (std::uint64_t i = 0; i < job.trials; ++i) trial(job.first + i, counter);
  got.trials = job.trials;
  tally_trials(job, job.first, job.first + job.trials, want);
  EXPECT_TRUE(got == want) << algorithm_name(job.algorithm) << " n=" << job.n << " "
                           << method_name(job.spec.method);
}

TEST(CudaThreadCode, EqualsTheScalarReference) {
  int compared = 0;
  for (Algorithm a : device_algorithms())
    for (int n : {4, 5, 8, 52})
      for (BoundedSpec spec : {BoundedSpec{}, BoundedSpec{Method::modulo, 8}, BoundedSpec{Method::rejection, 7},
                               BoundedSpec{Method::batched, 32}}) {
        if (max_draw_range(a, Shape{n, n}) > (1u << spec.bits)) continue;
        Job job;
        job.algorithm = a;
        job.n = n;
        job.spec = spec;
        job.seed = 0x5eed0000 + n;
        job.first = (std::uint64_t{1} << 32) - 1000;  // crosses 2^32
        job.trials = 3001;
        job.tallies.set(TallyKind::ranks, n <= 8);
        job.tallies.set(TallyKind::positions, true);
        if (a == Algorithm::partial) {  // a deal: 3 of 4 .. 5 of 52, poker's with hands and categories
          job.k = std::min(n - 1, 5);
          job.tallies.set(TallyKind::ranks, n <= 8);
          job.tallies.set(TallyKind::hands, true);
          job.tallies.set(TallyKind::poker, n == 52);
        }
        RunOptions scalar;
        scalar.backend = "scalar";
        ASSERT_TRUE(run_on_host(job) == run(job, scalar).tally)
            << algorithm_name(a) << " n=" << n << " " << method_name(spec.method);
        ++compared;
      }
  EXPECT_GT(compared, 40);
}

// The kernels' other thread-level trial: the job's decision table, as the
// CUDA backend picks it (DecisionTable::fits), against the reference loop.
TEST(CudaThreadCode, TableTrialsEqualTheReferenceLoop) {
  int compared = 0;
  for (Algorithm a : device_algorithms())
    for (int n : {2, 4, 6, 8})
      for (BoundedSpec spec : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::lemire, 32}}) {
        const Job job = host_job(a, n, spec, 0x7ab1e + n, (std::uint64_t{1} << 32) - 1000, 3001, true);
        if (!DecisionTable::fits(job)) continue;
        const DecisionTable table(job);
        const TrialJob tj = trial_job(job);
        expect_reference(job, [&](std::uint64_t t, HostCounter& c) { count_table_trial(tj, table.view(), t, c); });
        ++compared;
      }
  EXPECT_GE(compared, 12);
}

// The table kernels are compiled per index kind (FixedTableIndex): the
// same trials as the kind read from the view.
TEST(CudaThreadCode, TableTrialsOfAFixedKindEqualTheReferenceLoop) {
  int compared = 0;
  for (Algorithm a : device_algorithms())
    for (int n : {3, 5, 7})
      for (BoundedSpec spec : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::lemire, 32}}) {
        const Job job = host_job(a, n, spec, 0xf1ed + n, 12345, 2000, true);
        if (!DecisionTable::fits(job)) continue;
        const DecisionTable table(job);
        const TrialJob tj = trial_job(job);
        if (table.view().kind == TableIndex::coins)
          expect_reference(job, [&](std::uint64_t t, HostCounter& c) {
            count_table_trial<FixedTableIndex<TableIndex::coins>>(tj, table.view(), t, c);
          });
        else
          expect_reference(job, [&](std::uint64_t t, HostCounter& c) {
            count_table_trial<FixedTableIndex<TableIndex::batch>>(tj, table.view(), t, c);
          });
        ++compared;
      }
  EXPECT_GE(compared, 12);
}

// Position-only jobs of the algorithms that fix a slot a draw are counted as
// each slot becomes final (count_positions_in_turn): the reference's tallies,
// words and draws, on a byte an item and on the kernels' interleaved items,
// with the batch plan read as the device reads it.
TEST(CudaThreadCode, PositionsCountedInTurnEqualTheReference) {
  int compared = 0;
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::sattolo, Algorithm::partial})
    for (int n : {2, 3, 9, 13, 52, 128})
      for (BoundedSpec spec : {BoundedSpec{}, BoundedSpec{Method::modulo, 16}, BoundedSpec{Method::rejection, 9},
                               BoundedSpec{Method::batched, 32}}) {
        if (max_draw_range(a, Shape{n, n}) > (1u << spec.bits)) continue;
        Job job = host_job(a, n, spec, 0x7e11 + n, (std::uint64_t{1} << 32) - 700, 1500, false);
        job.tallies.set(TallyKind::hands, false);
        job.tallies.set(TallyKind::poker, false);
        const TrialJob tj = trial_job(job);
        std::uint8_t bytes[kMaxDeviceItems];
        std::vector<std::uint8_t> block(InterleavedItems::bytes(n, 32));
        const std::vector<PlannedBatch> plan = planned_batches(a, shape_of(job));
        expect_reference(job, [&](std::uint64_t t, HostCounter& c) {
          with_algorithm(a, [&](auto algo) {
            constexpr Algorithm A = decltype(algo)::value;
            if constexpr (kFixesSlotsInTurn<A>) {
              if (spec.method == Method::batched && t % 2)
                count_positions_in_turn<A, MethodSet::batched>(tj, t, InterleavedItems{block.data() + 4 * 5, 32}, c,
                                                               BatchesAt{plan.data()});
              else
                count_positions_in_turn<A>(tj, t, bytes, c);
            }
          });
        });
        ++compared;
      }
  EXPECT_GE(compared, 36);
}

TEST(CudaThreadCode, SampleTrialEqualsTheScalarPermutation) {
  Job job;
  job.algorithm = Algorithm::sort_v8_timsort;
  job.n = 13;
  job.trials = 100;
  job.first = 77;
  const auto ref = sample(job).permutations;
  const TrialJob tj = trial_job(job);
  std::vector<std::uint16_t> got(job.trials * job.n);
  std::uint8_t items[kMaxDeviceItems];
  for (std::uint64_t i = 0; i < job.trials; ++i) {
    SampleSink sink{&got[i * job.n]};
    run_trial<Algorithm::sort_v8_timsort>(tj, job.first + i, items, sink);
  }
  EXPECT_EQ(got, ref);
  // The byte records a GPU writes where every item is below 256.
  std::vector<std::uint8_t> bytes(job.trials * job.n);
  for (std::uint64_t i = 0; i < job.trials; ++i) {
    SampleSink sink{&bytes[i * job.n]};
    run_trial<Algorithm::sort_v8_timsort>(tj, job.first + i, items, sink);
  }
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), ref.begin()));
}

TEST(CudaMerge, PartialsAddUpPastThirtyTwoBits) {
  const std::uint64_t bins = 24, blocks = 1056;
  std::mt19937 gen(3);
  std::vector<std::uint32_t> partials(bins * blocks);
  std::vector<std::uint64_t> want(bins, 0);
  for (std::uint64_t b = 0; b < bins; ++b)
    for (std::uint64_t k = 0; k < blocks; ++k) {
      // Large counts: the sums must leave 32 bits without wrapping.
      const std::uint32_t v = gen() | 0x80000000u;
      partials[b * blocks + k] = v;
      want[b] += v;
    }
  for (std::uint64_t b = 0; b < bins; ++b)
    EXPECT_EQ(cuda::sum_of_partials(partials.data(), b, blocks), want[b]) << "bin " << b;
}

// A fault the merge would meet (an illegal address left by the audit
// kernel) is reported by the synchronisation before it as melange::Error; the
// buffers the audit holds then go without throwing (their cudaFree fails
// too after such a fault), and no library temporary is left on that path
// whose release could throw in a destructor and reach std::terminate.
TEST(CudaFaults, AFaultBeforeTheMergeIsAnErrorNotAnAbort) {
  static_assert(std::is_nothrow_destructible_v<cuda::internal::DeviceBuffer<std::uint32_t>>);
  static_assert(std::is_nothrow_destructible_v<cuda::internal::DeviceBuffer<unsigned long long>>);
  try {
    cuda::internal::check(cudaErrorIllegalAddress, "audit kernel");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA audit kernel: "), std::string::npos) << e.what();
  }
  if (cuda::device_count() == 0) {
    // No device: the buffers cannot be had, and that is an Error too.
    EXPECT_THROW(cuda::internal::DeviceBuffer<std::uint32_t>(std::size_t{1} << 20), Error);
    EXPECT_EQ(cuda::make_backend(), nullptr);
  }
}

TEST(CudaLaunchPlan, ATrillionTrialsInLaunchesOfAtMost2To32) {
  const std::uint64_t first = (std::uint64_t{1} << 40) - 5, trials = 1'000'000'000'000ull;
  const auto plan = cuda::plan_launches(first, trials, std::uint64_t{1} << 32);
  ASSERT_EQ(plan.size(), (trials + (std::uint64_t{1} << 32) - 1) >> 32);
  std::uint64_t next = first, total = 0;
  for (const auto& l : plan) {
    ASSERT_EQ(l.first, next);
    ASSERT_GE(l.count, 1u);
    ASSERT_LE(l.count, std::uint64_t{1} << 32);
    next += l.count;
    total += l.count;
  }
  EXPECT_EQ(total, trials);
  // At the top of the 64-bit trial space.
  const auto top = cuda::plan_launches(~std::uint64_t{0} - 10, 10, 4);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top.back().first + top.back().count, ~std::uint64_t{0});
  EXPECT_TRUE(cuda::plan_launches(5, 0, 4).empty());
}

// The small-n thread code: items packed in a register (PackedItems), the
// source compiled for the one-word methods, n fixed; against the reference.
TEST(CudaThreadCode, PackedItemsEqualTheReferenceLoop) {
  int compared = 0;
  for (Algorithm a : device_algorithms())
    for (int n = 1; n <= PackedItems::kMaxItems; ++n)
      for (BoundedSpec spec : {BoundedSpec{Method::lemire, 32}, BoundedSpec{Method::modulo, 5},
                               BoundedSpec{Method::rejection, 7}, BoundedSpec{Method::multiply, 9}}) {
        if (max_draw_range(a, Shape{n, n}) > (std::uint64_t{1} << spec.bits)) continue;
        const Job job = host_job(a, n, spec, 0xbacc + n, ~std::uint64_t{0} - 1999, 2000, true);  // ends at 2^64
        const TrialJob tj = trial_job(job);
        with_algorithm(a, [&](auto algo) {
          expect_reference(job, [&](std::uint64_t t, HostCounter& c) {
            PackedItems packed = PackedItems::identity(n);
            BasicPhiloxSource<MethodSet::one_a_word> src(job.seed, t, spec, a, shape_of(job));
            shuffle_as<decltype(algo)::value>(packed, shape_of(job), src);
            std::uint8_t items[PackedItems::kMaxItems];
            for (int p = 0; p < n; ++p) items[p] = packed.item(p);
            count_trial(tj, items, src.words_consumed(), src.draws_made(), c);
          });
        });
        ++compared;
      }
  EXPECT_GT(compared, 100);
}

// The larger-n thread code: items interleaved with other threads' in one
// buffer (InterleavedItems, as in a block's shared memory), any method.
TEST(CudaThreadCode, InterleavedItemsEqualTheReferenceLoop) {
  constexpr int kThreads = 5;  // trials t, t + 1, .. share the buffer, as a block's threads do
  for (Algorithm a : device_algorithms())
    for (int n : {9, 13, 52})
      for (BoundedSpec spec : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::lemire, 32}}) {
        // Ranks up to 9! bins; 13! would not fit in memory.
        const Job job = host_job(a, n, spec, 0x57 + n, 1000, 500, n <= 9);
        const TrialJob tj = trial_job(job);
        std::vector<std::uint8_t> shared(InterleavedItems::bytes(n, kThreads), 0xee);
        with_algorithm(a, [&](auto algo) {
          expect_reference(job, [&](std::uint64_t t, HostCounter& c) {
            CountingSink<HostCounter> sink{tj, c};
            run_trial<decltype(algo)::value>(tj, t, InterleavedItems{shared.data() + 4 * (t % kThreads), kThreads},
                                             sink);
          });
        });
      }
}

// The layout itself: every item of every thread its own byte, and the same
// item of consecutive threads in consecutive words (one bank a lane).
TEST(CudaThreadCode, InterleavedItemsPutEachLaneInItsOwnBank) {
  constexpr int kThreads = 32, kN = 13;
  std::vector<std::uint8_t> shared(InterleavedItems::bytes(kN, kThreads), 0);
  for (int t = 0; t < kThreads; ++t) {
    const InterleavedItems items{shared.data() + 4 * t, kThreads};
    for (int i = 0; i < kN; ++i) {
      ++items[i];
      const std::size_t byte = static_cast<std::size_t>(&items[i] - shared.data());
      EXPECT_EQ(byte / 4 % 32, static_cast<std::size_t>(t)) << "item " << i << " of thread " << t;
    }
  }
  for (std::size_t b = 0; b < shared.size(); ++b) EXPECT_LE(shared[b], 1) << "byte " << b << " is shared";
  EXPECT_EQ(std::count(shared.begin(), shared.end(), 1), kN * kThreads);
}

// A job outside the device code's algorithms or methods is not supported, so
// the engine runs it on the CPU instead of launching nothing.
TEST(CudaBackendChoice, OnlyJobsWithADeviceKernel) {
  Job job;
  for (Algorithm a : kAllAlgorithms) {
    job.algorithm = a;
    // The weighted orders' floating point keys are CPU only (contract
    // §3), and so are the card shuffles, whose cards keep a digit or a pile each.
    EXPECT_EQ(cuda::job_has_kernel(job), draw_kind(a) == DrawKind::schedule || draw_kind(a) == DrawKind::coins)
        << algorithm_name(a);
  }
  job.algorithm = Algorithm::fisher_yates;
  for (Method m : kAllMethods) {
    job.spec.method = m;
    EXPECT_TRUE(cuda::job_has_kernel(job)) << method_name(m);
  }
  Job unknown = job;
  unknown.algorithm = static_cast<Algorithm>(200);
  EXPECT_FALSE(cuda::job_has_kernel(unknown));
  unknown = job;
  unknown.spec.method = static_cast<Method>(200);
  EXPECT_FALSE(cuda::job_has_kernel(unknown));
  job.n = kMaxDeviceItems + 1;
  EXPECT_FALSE(cuda::job_has_kernel(job));
}

TEST(CudaErrors, SayWhatFailedInWords) {
  const Error memory = cuda::internal::describe(cudaErrorMemoryAllocation, "audit");
  EXPECT_EQ(memory.param(), Param::backend);
  EXPECT_EQ(memory.render([](Param p) { return "--" + std::string(param_name(p)); }),
            "GPU out of memory while audit: use a smaller job or --backend simd");
  EXPECT_STREQ(memory.what(), "GPU out of memory while audit: use a smaller job or backend simd");
  const std::string fault = cuda::internal::describe(cudaErrorIllegalAddress, "audit kernel").what();
  EXPECT_EQ(fault.rfind("CUDA audit kernel: ", 0), 0u) << fault;
  EXPECT_GT(fault.size(), std::string("CUDA audit kernel: ").size()) << fault;
  EXPECT_THROW(cuda::internal::check(cudaErrorLaunchFailure, "launch"), Error);
  EXPECT_NO_THROW(cuda::internal::check(cudaSuccess, "launch"));
}

}  // namespace
}  // namespace melange
