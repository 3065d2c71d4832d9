// The thread level: how a thread runs one trial, the core's trial body or
// the job's decision table, and the batch plan it reads from constant
// memory.
// Included by backend.cu alone: its names stay in that translation unit's
// anonymous namespace, as the kernels' names the scripts read expect.
#pragma once

#include <cstdint>

#include "block_sink.cuh"
#include "melange/limits.hpp"
#include "melange/packed_items.hpp"
#include "melange/trial.hpp"

namespace melange::cuda {
namespace {

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

}  // namespace
}  // namespace melange::cuda
