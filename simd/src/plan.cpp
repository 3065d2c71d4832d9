#include "plan.hpp"

#include <algorithm>
#include <bit>

#include "melange/rank.hpp"
#include "melange/source.hpp"
#include "melange/stream.hpp"
#include "tuning.hpp"

namespace melange::simd::internal {

Divisor::Divisor(std::uint32_t d) {
  // l = ceil(log2 d); m = floor(2^32 (2^l - d) / d) + 1.
  const int l = d <= 1 ? 0 : 32 - std::countl_zero(d - 1);
  m = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << l) - d)) / d + 1);
  sh1 = l < 1 ? l : 1;
  sh2 = l > 1 ? l - 1 : 0;
}

bool vectorizable(const Job& job) {
  // Every algorithm with a draw schedule runs in the lanes: the kernels swap
  // along the plan's draws, which are read off the schedule. Coin-driven
  // algorithms decide their draws as they go; they run in the lanes through
  // their decision tables where one fits, else on the scalar path.
  // The weighted orders' keys are floating point, computed by the scalar
  // code (contract §3 lets them).
  // The lanes count a whole permutation's ranks and positions; a deal's
  // kinds, and a record's own statistics, go through the trial body's own
  // count. Serial kinds pair each
  // trial with the one before: up to kMaxSerialPairItems items the lanes'
  // ranks, in trial order, give the pairs (count_rank_pairs the rest);
  // beyond, and for deals, the reference loop's.
  if (has_serial_kinds(job.tallies))
    return !is_deal(job) && job.n >= 2 && job.n <= kMaxSerialPairItems &&
           draw_kind(job.algorithm) == DrawKind::schedule;
  // Kinds beyond ranks and positions (a record's rising sequences, valleys,
  // guesses) are counted from the lanes' rows by the trial body's own
  // count, as a deal's are: on the wide path (deals, riffles, n above
  // kPackedItems), where each lane's items lie in memory.
  if (!lane_kinds_only(job.tallies) && packed(job)) return false;
  if (draw_kind(job.algorithm) == DrawKind::coins) return DecisionTable::fits(job);
  if (draw_kind(job.algorithm) == DrawKind::cards) return cards_in_lanes(job);
  if (draw_kind(job.algorithm) != DrawKind::schedule) return false;  // the weighted orders' keys
  return job.n >= 2;
}

bool packed(const Job& job) {
  return job.n <= kPackedItems && !is_deal(job) && draw_kind(job.algorithm) != DrawKind::cards;
}

bool cards_in_lanes(const Job& job) {
  if (job.n < 2 || job.n > kCardItems) return false;
  return (job.algorithm == Algorithm::riffle && job.riffles <= kRiffleDigitBits) || job.algorithm == Algorithm::shelf;
}

bool rows_as_bytes(const Job& job) { return packed(job) || cards_in_lanes(job); }

namespace {

// The plan's DigitRows, from its words and draws.
DigitRows digit_rows(const Plan& p) {
  constexpr std::size_t kWords = DigitRows::kWords;
  const auto spare = static_cast<std::uint32_t>(p.draws.size());
  DigitRows d;
  for (std::size_t k = 0; k < p.words.size(); k += kWords) {
    const std::size_t words = std::min(kWords, p.words.size() - k);
    DigitRows::Block b{d.rows.size(), 0, {}};
    for (std::size_t w = 0; w < words; ++w) {
      b.rows = std::max<std::size_t>(b.rows, p.words[k + w].count);
      b.threshold[w] = p.words[k + w].threshold;
    }
    for (std::size_t r = 0; r < b.rows; ++r) {
      DigitRows::Row row{{1, 1, 1, 1}, {spare, spare, spare, spare}};
      for (std::size_t w = 0; w < words; ++w)
        if (r < p.words[k + w].count) {
          const std::uint32_t draw = p.words[k + w].first + static_cast<std::uint32_t>(r);
          row.s[w] = p.draws[draw].s;
          row.out[w] = draw;
        }
      d.rows.push_back(row);
    }
    d.blocks.push_back(b);
  }
  return d;
}

}  // namespace

std::size_t last_draws_below(const std::vector<DrawPlan>& draws, std::uint32_t bound) {
  std::size_t below = 0;
  for (std::size_t k = draws.size(); k-- > 0 && draws[k].i < bound && draws[k].s <= bound;) ++below;
  return below;
}

bool draws_fix_their_slots(const std::vector<DrawPlan>& draws, int n) {
  // From the last draw back: the largest range after draw k, and the slots
  // the draws after it fix.
  std::vector<bool> fixed_later(static_cast<std::size_t>(n), false);
  std::uint32_t widest_later = 0;
  for (std::size_t k = draws.size(); k-- > 0;) {
    const DrawPlan& d = draws[k];
    if (d.i >= static_cast<std::uint32_t>(n) || fixed_later[d.i] || widest_later > d.i) return false;
    fixed_later[d.i] = true;
    widest_later = std::max(widest_later, d.s);
  }
  return true;
}

std::uint64_t scratch_bytes(const Job& job, std::uint64_t table_bytes) {
  // The packed path keeps a 32-bit rank histogram per lane and a lane-wide
  // position matrix; the wide path a 16-bit position matrix (WideCounters),
  // with its staged rows from 256 items, or DeckCounters' bytes and bit
  // planes (n <= 64, 6 KB): at most n max(n, 64) 32-bit cells and the rows.
  if (!vectorizable(job)) return 0;
  if (!packed(job)) {
    if (!job.tallies.has(TallyKind::positions)) return 0;
    const auto n = static_cast<std::uint64_t>(job.n);
    const std::uint64_t staged = job.n >= kWideStagedItems ? kWideStagedGroups * kMaxLanes * n * sizeof(std::uint16_t) : 0;
    return n * std::max<std::uint64_t>(n, 64) * sizeof(std::uint32_t) + staged;
  }
  std::uint64_t bytes = table_bytes;  // decision_table_bytes(job), as the backend's tables know it
  // Ranks: a column of n! counters a lane, or IndexCounters' columns (at
  // most n! kMaxLanes counters, and under 16,384 for the lanes' and pairs'
  // columns of small tables).
  if (job.tallies.has(TallyKind::ranks))
    bytes += std::max<std::uint64_t>(factorial(job.n) * kMaxLanes, 16384) * sizeof(std::uint32_t);
  if (job.tallies.has(TallyKind::positions))
    bytes += static_cast<std::uint64_t>(job.n) * job.n * kMaxLanes * sizeof(std::uint32_t);
  return bytes;
}

std::uint64_t preferred_chunk(const Job& job) {
  // A table job ends each call with a flush that walks the table's n! (or
  // more) entries: a call of 64 trials an entry makes that walk cheap (at
  // n = 8 and the engine's 2^18 trials a call, it took two fifths of a
  // sort's time). Other jobs keep the engine's unit, which bounds how long
  // a cancelled run waits.
  if (!packed(job) || !DecisionTable::fits(job) || job.n < 7) return 0;
  return std::bit_ceil(factorial(job.n) * 64);
}

Plan key_plan(std::uint64_t seed) {
  Plan p{};
  PhiloxKey k = stream_key(seed);
  for (int r = 0; r < philox::kRounds; ++r) {
    p.round_keys[r] = k;
    k = philox::bump(k);
  }
  return p;
}

Plan make_plan(const Job& job) {
  Plan p = key_plan(job.seed);
  p.job = job;
  p.reference.emplace(job);
  const int b = job.spec.bits;
  p.high_mask = static_cast<std::uint32_t>(~std::uint64_t{0} << (32 - b));
  auto add = [&](std::uint32_t s, std::uint32_t i) {
    const std::uint64_t span = std::uint64_t{1} << b;
    const auto t = static_cast<std::uint32_t>((span - s) % s);
    DrawPlan d{s, i, 0, Divisor(s)};
    if (job.spec.method == Method::lemire) d.threshold = t << (32 - b);
    if (job.spec.method == Method::rejection) d.threshold = t;
    if (d.threshold != 0) p.may_reject = true;
    p.draws.push_back(d);
  };
  const Shape shape = shape_of(job);
  for (int k = 0; k < scheduled_draws(job.algorithm, shape); ++k) {
    const ScheduledDraw d = scheduled_draw(job.algorithm, shape, k);
    add(d.range, d.position);
  }
  p.words_per_trial = p.draws.size();
  p.sorts_keys = cards_in_lanes(job);
  p.last_draws_below_16 = last_draws_below(p.draws, 16);
  p.last_draws_below_32 = last_draws_below(p.draws, 32);
  if (draw_kind(job.algorithm) == DrawKind::schedule && draws_fix_their_slots(p.draws, job.n)) {
    p.fixes_slots = true;
    std::vector<bool> drawn(static_cast<std::size_t>(job.n), false);
    for (const DrawPlan& d : p.draws) drawn[d.i] = true;
    for (int pos = 0; pos < job.n; ++pos)
      if (!drawn[static_cast<std::size_t>(pos)]) p.open_slots.push_back(static_cast<std::uint32_t>(pos));
  }
  if (job.spec.method == Method::batched) {
    // The same batches as the scalar source cuts, with their thresholds
    // (planned_batches); a batch's first draw follows the ones before it.
    std::uint32_t first = 0;
    for (const PlannedBatch& b : planned_batches(job.algorithm, shape)) {
      p.words.push_back(WordPlan{b, first});
      if (b.threshold != 0) p.may_reject = true;
      first += b.count;
    }
    p.words_per_trial = p.words.size();
    p.digit_rows = digit_rows(p);
  }
  return p;
}

}  // namespace melange::simd::internal
