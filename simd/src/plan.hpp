// Everything the vector kernels need to know about a job, worked out once on
// the host: the key schedule and, for every draw of a trial, its range and
// the constants that let a lane draw from it without division.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "melange/algorithms/card_keys.hpp"
#include "melange/bounded.hpp"
#include "melange/decision_table.hpp"
#include "melange/job.hpp"
#include "melange/philox.hpp"
#include "melange/trial.hpp"

namespace melange::simd::internal {

// Unsigned division of 32-bit values by a constant (Granlund and Montgomery,
// "Division by invariant integers using multiplication", 1994, figure 4.1):
// q = (t + ((y - t) >> sh1)) >> sh2 with t = mulhi(m, y).
struct Divisor {
  std::uint32_t m = 1;
  int sh1 = 0, sh2 = 0;
  explicit Divisor(std::uint32_t d = 1);
};

struct DrawPlan {
  std::uint32_t s;         // range
  std::uint32_t i;         // the position this draw swaps with a[j]
  std::uint32_t threshold; // lemire: t << (32 - bits); rejection: t
  Divisor divisor;         // for modulo and rejection
};

// Under `batched`: the batch one word of a trial serves (planned_batches:
// its product P, rejection threshold 2^32 mod P and draw count), and its
// first draw. The batch is redrawn when the word times P leaves a low half
// below the threshold.
struct WordPlan : PlannedBatch {
  std::uint32_t first;
};

// The card shuffles run in the lanes for decks of up to kCardItems cards
// (melange/algorithms/card_keys.hpp says why).
using lanes::kCardItems;
using lanes::kCardPositionBits;
using lanes::kRiffleDigitBits;

// Under `batched`, the digits of each Philox block's four words side by
// side, a row at a time (the kernels' SteppedDigits): row r holds each
// word's r-th draw or, past the word's last draw, a multiplier of 1, which
// leaves the word's x as it is, and a digit for the spare slot after the
// group's draws. Four words' multiply chains run side by side and no
// batch's length is branched on; the rows past a word's end cost a fifth
// more multiplies at n = 52 (64 for 51 draws).
struct DigitRows {
  static constexpr std::size_t kWords = 4;  // a Philox block's
  struct Row {
    std::uint32_t s[kWords];    // each word's range, or 1
    std::uint32_t out[kWords];  // its digit's draw, or the spare slot: the group's draw count
  };
  struct Block {
    std::size_t first_row, rows;
    std::uint32_t threshold[kWords];  // each word's rejection threshold (0: none, or no word)
  };
  std::vector<Row> rows;
  std::vector<Block> blocks;
};

struct Plan {
  Job job;  // the job itself
  std::optional<ReferenceTrials> reference;  // the scalar path, for the trials a lane's rejection re-runs
  PhiloxKey round_keys[philox::kRounds];
  std::uint32_t high_mask;  // keeps a word's top `bits` bits
  bool may_reject;          // lemire or rejection with some t > 0
  std::vector<DrawPlan> draws;
  std::vector<WordPlan> words;      // batched only
  DigitRows digit_rows;             // batched only: the words' digits four at a time
  std::size_t words_per_trial = 0;  // words a trial reads when nothing is rejected
  // The decks in a register (deck_swaps_avx512vbmi.hpp) take the draws in
  // reverse: of the last draws, how many swap only positions below 16, and
  // below 32, their ranges included (last_draws_below).
  std::size_t last_draws_below_16 = 0, last_draws_below_32 = 0;
  // True where each draw's slot i is final once drawn: no later draw swaps
  // it (fisher-yates, sattolo; not naive-swap), so a lane's swap can write
  // the slot's item out and keep only the slots still open
  // (kernel.hpp's slot_fixing_batch). open_slots: the slots no draw fixes
  // (fisher-yates' and sattolo's 0), final once every draw is made.
  bool fixes_slots = false;
  std::vector<std::uint32_t> open_slots;
  // The card shuffles in the lanes (cards_in_lanes): each lane's keys are
  // sorted by a network (card_rows in kernel_cards-inl.hpp), not swapped along the draws.
  bool sorts_keys = false;
  // The job's decision table where it has one (the sort one-liners at
  // small n; one-batch schedules under batched), owned by the backend;
  // perms is null where it has none.
  DecisionTableView table;
};


// True when the vector kernels cover the job (otherwise use the scalar path).
bool vectorizable(const Job& job);
Plan make_plan(const Job& job);
// The round keys of `seed` alone: for the kernels that run the cipher and
// nothing else, where make_plan's draw plan and reference trial cost more
// than the blocks they make.
Plan key_plan(std::uint64_t seed);
// True when a trial's permutation stays packed in a register (a swap or
// coin algorithm, n <= kPackedItems and the whole permutation is the
// outcome); deals, riffles and larger n use per-lane item arrays.
bool packed(const Job& job);
// True when the lanes shuffle the job's decks of cards: riffle (at most
// kRiffleDigitBits riffles) and shelf, 2 <= n <= kCardItems; larger decks
// run on the scalar path.
bool cards_in_lanes(const Job& job);
// True when the kernels write the job's rows as bytes themselves (packed
// permutations and card shuffles); the dispatcher narrows the other paths' rows.
bool rows_as_bytes(const Job& job);

// How many of the last draws swap only positions below `bound`, their
// ranges included.
std::size_t last_draws_below(const std::vector<DrawPlan>& draws, std::uint32_t bound);
// True when no draw swaps a slot an earlier draw fixed (Plan::fixes_slots):
// each later draw's i differs and its range stays at or below the slot.
bool draws_fix_their_slots(const std::vector<DrawPlan>& draws, int n);
// Host bytes a worker's lane-private counters take beside its tally.
std::uint64_t scratch_bytes(const Job& job, std::uint64_t table_bytes);
// Trials a run_range call should hold (0: the engine's default).
std::uint64_t preferred_chunk(const Job& job);

}  // namespace melange::simd::internal
