// Randomness sources that the shuffle algorithms draw from. An algorithm asks
// only two questions: bounded(s), a value in [0, s), and less(), a comparator
// coin. PhiloxSource answers them from a trial's stream; the exact enumerator
// (exact.hpp) answers them by walking every outcome.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/config.hpp"
#include "melange/stream.hpp"

namespace melange {

// Which methods a source is compiled for. `any` reads the method from the
// spec at run time; the others fix part of it at compile time, so that a GPU
// thread's source holds no state it does not use (the batch's digits are an
// array read at a run-time index, which lives in local memory).
enum class MethodSet : std::uint8_t { any, batched, one_a_word };

// A source without a batch plan: `batched` cuts its batches as it goes.
struct NoBatchPlan {};
// A batch plan in memory the source can read (host, or device global).
struct BatchesAt {
  const PlannedBatch* at;
  MELANGE_HD PlannedBatch operator[](int i) const { return at[i]; }
};

// Trial t of a job: stream t under the job's seed, drawn through one bounded
// method. Under `batched` the source knows the algorithm's draw schedule, so
// that it can cut each batch from the ranges still to come, and it takes
// comparator coins 24 to a word.
template <MethodSet Set = MethodSet::any, class Batches = NoBatchPlan>
class BasicPhiloxSource {
 public:
  // `batches`: the schedule's batches planned once for the job
  // (planned_batches), or NoBatchPlan to cut them as the draws come.
  MELANGE_HD BasicPhiloxSource(std::uint64_t seed, std::uint64_t trial, BoundedSpec spec,
                               Algorithm algorithm = Algorithm::fisher_yates, Shape shape = {0, 0},
                               Batches batches = {})
      : stream_(seed, trial), spec_(spec), algorithm_(algorithm), shape_(shape), batches_(batches) {}

  MELANGE_HD bool batched() const {
    if constexpr (Set == MethodSet::any) return spec_.method == Method::batched;
    return Set == MethodSet::batched;
  }

  MELANGE_HD std::uint32_t bounded(std::uint64_t s) {
    const int k = draw_++;
    if (!batched()) return internal::bounded_one_a_word(stream_, s, spec_);
    if constexpr (!std::is_same_v<Batches, NoBatchPlan>) return batch_.next_planned(stream_, s, batches_);
    const int draws = scheduled_draws(algorithm_, shape_);
    return batch_.next(stream_, s, [&](int j) -> std::uint64_t {
      return k + j < draws ? scheduled_draw(algorithm_, shape_, k + j).range : 0;
    });
  }

  // Models `Math.random() - 0.5 < 0`: "less" when the word's top bit is 0;
  // under `batched`, coin i of a word is its bit 31 - i.
  MELANGE_HD bool less() {
    ++draw_;
    if (!batched()) return (stream_.next() >> 31) == 0;
    if (coins_left_ == 0) {
      coin_word_ = stream_.next();
      coins_left_ = kCoinsPerWord;
    }
    const int i = kCoinsPerWord - coins_left_--;
    return ((coin_word_ >> (31 - i)) & 1u) == 0;
  }

  // A raw stream word, for the weighted orders' keys.
  MELANGE_HD std::uint32_t word() { return stream_.next(); }

  MELANGE_HD std::uint64_t words_consumed() const { return stream_.words_consumed(); }
  // Bounded draws and comparator coins so far: what the algorithm asked for,
  // whatever the words behind them.
  MELANGE_HD std::uint64_t draws_made() const { return static_cast<std::uint64_t>(draw_); }

 private:
  PhiloxStream stream_;
  BoundedSpec spec_;
  Algorithm algorithm_;
  Shape shape_;
  int draw_ = 0;  // draws and coins made so far: the place in the schedule
  [[no_unique_address]] Batches batches_;
  BatchedDraws batch_;
  std::uint32_t coin_word_ = 0;
  int coins_left_ = 0;
};
using PhiloxSource = BasicPhiloxSource<>;
static_assert(RandomSource<PhiloxSource>);

// The batches `batched` cuts from a swap algorithm's schedule, in order: the
// same greedy rule as BatchedDraws. For the tests, the exact walk's word count
// and the vector kernels' plans.
struct ScheduleBatch {
  int first, count;       // draws first .. first + count - 1
  std::uint64_t product;  // P, the product of their ranges
};
inline std::vector<ScheduleBatch> schedule_batches(Algorithm a, Shape s) {
  std::vector<ScheduleBatch> out;
  const int draws = scheduled_draws(a, s);
  for (int k = 0; k < draws;) {
    ScheduleBatch b{k, 1, scheduled_draw(a, s, k).range};
    while (k + b.count < draws && b.count < kMaxBatch &&
           b.product * scheduled_draw(a, s, k + b.count).range <= kBatchProduct)
      b.product *= scheduled_draw(a, s, k + b.count++).range;
    out.push_back(b);
    k += b.count;
  }
  return out;
}

// The same batches with their thresholds: the plan a source reads instead
// of cutting batches and dividing per trial (the GPU's constant memory
// holds it). Empty for algorithms without a draw schedule.
inline std::vector<PlannedBatch> planned_batches(Algorithm a, Shape s) {
  std::vector<PlannedBatch> out;
  if (!has_draw_schedule(a)) return out;
  for (const ScheduleBatch& b : schedule_batches(a, s))
    out.push_back(PlannedBatch{b.product, static_cast<std::uint32_t>(internal::reject_threshold(b.product, 32)),
                               static_cast<std::uint32_t>(b.count)});
  return out;
}

}  // namespace melange
