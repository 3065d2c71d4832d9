#include "trace_lanes.hpp"

#include <algorithm>
#include <bit>

namespace melange::predict::internal {
namespace {

constexpr int L = kTraceLanes;

// The position swapped at step k.
inline std::uint32_t swapped_at(Swaps swaps, int n, int k) {
  switch (swaps) {
    case Swaps::downward: return static_cast<std::uint32_t>(n - 1 - k);
    case Swaps::asf: return static_cast<std::uint32_t>(k);
    case Swaps::upward: return static_cast<std::uint32_t>(k + 1);
  }
  return 0;
}

int steps_of(Swaps swaps, int n, const Traced& traced) {
  switch (swaps) {
    case Swaps::downward: return n - std::max(traced.position[traced.count - 1], 1);
    case Swaps::asf: return n;
    case Swaps::upward: return n - 1;
  }
  return 0;
}

// Follows each traced position back through the swaps to the fresh deck's
// card there (position p holds card p), and marks the lanes to deal.
[[gnu::always_inline]] inline void follow_back(Swaps swaps, const TracePlan& plan, const std::uint32_t* targets,
                                               const std::uint32_t (&unsure)[L], DealFlags& deal) {
  const Traced& traced = plan.traced;
  alignas(64) std::uint32_t shows[L], p[L];
  for (int lane = 0; lane < L; ++lane) shows[lane] = 1;
  for (int t = 0; t < traced.count; ++t) {
    for (int lane = 0; lane < L; ++lane) p[lane] = static_cast<std::uint32_t>(traced.position[t]);
    for (int k = traced.steps - 1; k >= 0; --k) {
      const std::uint32_t here = swapped_at(swaps, plan.n, k);
      const std::uint32_t* __restrict there = targets + k * L;
      for (int lane = 0; lane < L; ++lane) p[lane] = p[lane] == here ? there[lane] : (p[lane] == there[lane] ? here : p[lane]);
    }
    for (int lane = 0; lane < L; ++lane) shows[lane] &= p[lane] == traced.card[t] ? 1u : 0u;
  }
  for (int lane = 0; lane < L; ++lane) deal[lane] = static_cast<std::uint8_t>(shows[lane] | (unsure[lane] != 0));
}

// Delphi's Random(m): RandSeed := RandSeed * 134775813 + 1, then
// RandSeed * m >> 32; never a rejection.
template <class Bound>
[[gnu::always_inline]] inline void delphi_draws(std::uint64_t base, int steps, Bound bound, std::uint32_t* targets) {
  alignas(64) std::uint32_t state[L];
  for (int lane = 0; lane < L; ++lane) state[lane] = static_cast<std::uint32_t>(base + static_cast<std::uint64_t>(lane));
  for (int k = 0; k < steps; ++k) {
    const std::uint64_t m = bound(k);
    std::uint32_t* __restrict out = targets + k * L;
    for (int lane = 0; lane < L; ++lane) {
      state[lane] = state[lane] * 134775813u + 1u;
      out[lane] = static_cast<std::uint32_t>((static_cast<std::uint64_t>(state[lane]) * m) >> 32);
    }
  }
}

// A 31-bit x divided as Divisor says.
[[gnu::always_inline]] inline std::uint32_t divide(std::uint32_t x, std::uint32_t magic, unsigned shift) {
  return static_cast<std::uint32_t>((std::uint64_t{x} * magic) >> shift);
}

// libstdc++'s call `c` split into its swaps' draws: steps k and k + 1 of
// a pair, from draws[lane] below c.range.
[[gnu::always_inline]] inline void split_call(const UpwardCall& c, const std::uint32_t* draws, std::uint32_t* targets) {
  std::uint32_t* __restrict first = targets;
  if (!c.pair) {
    for (int lane = 0; lane < L; ++lane) first[lane] = draws[lane];
    return;
  }
  std::uint32_t* __restrict second = targets + L;
  const std::uint32_t b1 = c.b1.d, magic = c.b1.magic;
  const unsigned shift = c.b1.shift;
  for (int lane = 0; lane < L; ++lane) {
    const std::uint32_t q = divide(draws[lane], magic, shift);
    first[lane] = q;
    second[lane] = draws[lane] - q * b1;
  }
}

}  // namespace

Divisor divisor_of(std::uint32_t d) {
  if (std::has_single_bit(d)) return {d, 1, static_cast<unsigned>(std::countr_zero(d))};
  const auto l = static_cast<unsigned>(std::bit_width(d));  // ceil(log2 d)
  return {d, static_cast<std::uint32_t>((std::uint64_t{1} << (31 + l)) / d + 1), 31 + l};
}

// libstdc++'s calls where the generator's range holds n^2 (its condition
// gen_range / n >= n): the first swap alone where n is even, then pairs.
std::vector<UpwardCall> upward_calls(int n, std::uint64_t gen_range) {
  std::vector<UpwardCall> calls;
  const auto un = static_cast<std::uint64_t>(n);
  if (n < 2 || gen_range / un < un || gen_range > 0xffffffffu) return calls;
  const auto call = [gen_range](std::uint32_t range, bool pair, std::uint32_t b1) {
    const auto scaling = static_cast<std::uint32_t>(gen_range / range);
    return UpwardCall{range, pair, divisor_of(b1), (0u - range) % range, divisor_of(scaling), range * scaling};
  };
  int i = 1;
  if (n % 2 == 0) calls.push_back(call(2, false, 1)), ++i;
  for (; i < n; i += 2) calls.push_back(call(static_cast<std::uint32_t>((i + 1) * (i + 2)), true, static_cast<std::uint32_t>(i + 2)));
  return calls;
}

TracePlan trace_plan(const Probe& probe, Swaps swaps, std::uint64_t gen_range) {
  TracePlan plan;
  plan.n = probe.deck_size();
  Traced& traced = plan.traced;
  // Downward: the bottom settles first; the others settle all at the end.
  for (int i = 0; i < plan.n && traced.count < kTraced; ++i) {
    const int pos = swaps == Swaps::downward ? plan.n - 1 - i : i;
    if (probe.want(pos) < 0) continue;
    traced.position[traced.count] = pos;
    traced.card[traced.count++] = static_cast<std::uint32_t>(probe.want(pos));
  }
  if (traced.count > 0) traced.steps = steps_of(swaps, plan.n, traced);
  for (std::uint32_t d = 1; d <= static_cast<std::uint32_t>(plan.n); ++d) plan.divisors.push_back(divisor_of(d));
  if (swaps == Swaps::upward) plan.calls = upward_calls(plan.n, gen_range);
  return plan;
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void delphi_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal) {
  const int n = plan.n;
  delphi_draws(base, plan.traced.steps, [n](int k) { return static_cast<std::uint32_t>(n - k); }, scratch);
  const std::uint32_t sure[L] = {};
  follow_back(Swaps::downward, plan, scratch, sure, deal);
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void asf_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal) {
  delphi_draws(base, plan.traced.steps, [](int) { return 51u; }, scratch);
  const std::uint32_t sure[L] = {};
  follow_back(Swaps::asf, plan, scratch, sure, deal);
}

// glibc's rand(): srand's 31 words (the seed as an int, then 16807^i
// times it mod 2^31 - 1, made one from the last), then r[i] = r[i-31] +
// r[i-3], the first 310 discarded; rand() = r >> 1, and j = rand() mod
// (i + 1). A lane keeps the last 34 words.
__attribute__((target_clones("avx512f", "avx2", "default")))
void glibc_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal) {
  constexpr std::uint64_t kP = 2147483647;
  constexpr int kWords = 34, kDiscarded = 310;
  alignas(64) std::uint32_t r[kWords][L];
  alignas(64) std::uint64_t x[L];
  for (int lane = 0; lane < L; ++lane) {
    const auto seed = static_cast<std::uint32_t>(base + static_cast<std::uint64_t>(lane));
    r[0][lane] = seed == 0 ? 1 : seed;
    const auto as_int = static_cast<std::int64_t>(static_cast<std::int32_t>(r[0][lane]));
    x[lane] = static_cast<std::uint64_t>(as_int < 0 ? as_int + static_cast<std::int64_t>(kP) : as_int);
  }
  for (int i = 1; i < 31; ++i)
    for (int lane = 0; lane < L; ++lane) {
      const std::uint64_t t = x[lane] * 16807u;  // below 2^46
      std::uint64_t y = (t & kP) + (t >> 31);
      y = y >= kP ? y - kP : y;
      x[lane] = y;
      r[i][lane] = static_cast<std::uint32_t>(y);
    }
  for (int i = 31; i < kWords; ++i)
    for (int lane = 0; lane < L; ++lane) r[i][lane] = r[i - 31][lane];
  for (int i = kWords; i < kWords + kDiscarded + plan.traced.steps; ++i) {
    std::uint32_t* __restrict next = r[i % kWords];
    const std::uint32_t *far = r[(i - 31) % kWords], *near = r[(i - 3) % kWords];
    for (int lane = 0; lane < L; ++lane) next[lane] = far[lane] + near[lane];
    const int k = i - kWords - kDiscarded;
    if (k < 0) continue;
    const Divisor m = plan.divisors[static_cast<std::size_t>(plan.n - k - 1)];
    const std::uint32_t d = m.d, magic = m.magic;
    const unsigned shift = m.shift;
    std::uint32_t* __restrict out = scratch + k * L;
    for (int lane = 0; lane < L; ++lane) {
      const std::uint32_t word = next[lane] >> 1;
      out[lane] = word - divide(word, magic, shift) * d;
    }
  }
  const std::uint32_t sure[L] = {};
  follow_back(Swaps::downward, plan, scratch, sure, deal);
}

// java.util.Random: the 48-bit LCG, next(31) its top 31 bits; nextInt(m)
// takes m * next(31) >> 31 for a power of two, else next(31) mod m,
// rejecting the last partial multiple (a lane left unsure).
__attribute__((target_clones("avx512f", "avx2", "default")))
void java_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal) {
  constexpr std::uint64_t kMultiplier = 0x5DEECE66Du, kMask = (std::uint64_t{1} << 48) - 1;
  alignas(64) std::uint64_t state[L];
  alignas(64) std::uint32_t unsure[L] = {};
  for (int lane = 0; lane < L; ++lane) state[lane] = ((base + static_cast<std::uint64_t>(lane)) ^ kMultiplier) & kMask;
  for (int k = 0; k < plan.traced.steps; ++k) {
    const Divisor m = plan.divisors[static_cast<std::size_t>(plan.n - k - 1)];
    const std::uint32_t d = m.d, magic = m.magic;
    const unsigned shift = m.shift;
    std::uint32_t* __restrict out = scratch + k * L;
    if (std::has_single_bit(d)) {
      for (int lane = 0; lane < L; ++lane) {
        state[lane] = (state[lane] * kMultiplier + 0xBu) & kMask;
        out[lane] = static_cast<std::uint32_t>((std::uint64_t{d} * (state[lane] >> 17)) >> 31);
      }
      continue;
    }
    for (int lane = 0; lane < L; ++lane) {
      state[lane] = (state[lane] * kMultiplier + 0xBu) & kMask;
      const auto bits = static_cast<std::uint32_t>(state[lane] >> 17);  // next(31)
      const std::uint32_t val = bits - divide(bits, magic, shift) * d;
      out[lane] = val;
      unsure[lane] |= (bits - val + (d - 1)) >> 31;  // Java's int overflow: rejected
    }
  }
  follow_back(Swaps::downward, plan, scratch, unsure, deal);
}

// std::minstd_rand: x = x * 48271 mod 2^31 - 1, words 1 .. 2^31 - 2; its
// seed taken mod 2^31 - 1 (0 is 1); libstdc++'s downscaling per call.
__attribute__((target_clones("avx512f", "avx2", "default")))
void minstd_trace(std::uint64_t base, const TracePlan& plan, std::uint32_t* scratch, DealFlags& deal) {
  constexpr std::uint64_t kP = 2147483647;
  alignas(64) std::uint64_t state[L];
  alignas(64) std::uint32_t unsure[L] = {}, draws[L];
  for (int lane = 0; lane < L; ++lane) {
    const std::uint64_t x = (base + static_cast<std::uint64_t>(lane)) % kP;
    state[lane] = x == 0 ? 1 : x;
  }
  std::uint32_t* targets = scratch;
  for (const UpwardCall& c : plan.calls) {
    const std::uint32_t past = c.past, magic = c.scaling.magic;
    const unsigned shift = c.scaling.shift;
    for (int lane = 0; lane < L; ++lane) {
      const std::uint64_t t = state[lane] * 48271u;  // below 2^47
      std::uint64_t x = (t & kP) + (t >> 31);
      x = x >= kP ? x - kP : x;
      state[lane] = x;
      const auto r = static_cast<std::uint32_t>(x - 1);
      unsure[lane] |= r >= past ? 1u : 0u;
      draws[lane] = divide(r, magic, shift);
    }
    split_call(c, draws, targets);
    targets += c.pair ? 2 * L : L;
  }
  follow_back(Swaps::upward, plan, scratch, unsure, deal);
}

// std::mt19937: Lemire's multiply for its 32-bit words.
__attribute__((target_clones("avx512f", "avx2", "default")))
void mt19937_trace(const std::uint32_t* outputs, int stride, const TracePlan& plan, std::uint32_t* scratch,
                   DealFlags& deal) {
  alignas(64) std::uint32_t unsure[L] = {}, draws[L];
  std::uint32_t* targets = scratch;
  for (std::size_t call = 0; call < plan.calls.size(); ++call) {
    const UpwardCall& c = plan.calls[call];
    const std::uint64_t range = c.range;
    const std::uint32_t threshold = c.threshold;
    const std::uint32_t* __restrict words = outputs + call * static_cast<std::size_t>(stride);
    for (int lane = 0; lane < L; ++lane) {
      const std::uint64_t product = words[lane] * range;
      unsure[lane] |= static_cast<std::uint32_t>(product) < threshold ? 1u : 0u;
      draws[lane] = static_cast<std::uint32_t>(product >> 32);
    }
    split_call(c, draws, targets);
    targets += c.pair ? 2 * L : L;
  }
  follow_back(Swaps::upward, plan, scratch, unsure, deal);
}

}  // namespace melange::predict::internal
