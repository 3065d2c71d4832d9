#include "plan.hpp"

#include <bit>

#include "melange/rank.hpp"
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
  const bool algo = job.algorithm == Algorithm::fisher_yates ||
                    job.algorithm == Algorithm::naive_swap || job.algorithm == Algorithm::sattolo;
  return algo && job.n >= 2;
}

std::uint64_t scratch_bytes(const Job& job) {
  // The packed path keeps a 32-bit rank histogram per lane and a lane-wide
  // position matrix; the wide path adds to the tally directly.
  if (!vectorizable(job) || job.n > kPackedItems) return 0;
  std::uint64_t bytes = 0;
  if (job.rank_histogram) bytes += factorial(job.n) * kMaxLanes * sizeof(std::uint32_t);
  if (job.position_matrix) bytes += static_cast<std::uint64_t>(job.n) * job.n * kMaxLanes * sizeof(std::uint32_t);
  return bytes;
}

Plan make_plan(const Job& job) {
  Plan p{};
  p.job = job;
  PhiloxKey k = stream_key(job.seed);
  for (int r = 0; r < philox::kRounds; ++r) {
    p.round_keys[r] = k;
    k = philox::bump(k);
  }
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
  const auto n = static_cast<std::uint32_t>(job.n);
  switch (job.algorithm) {
    case Algorithm::fisher_yates:
      for (std::uint32_t i = n - 1; i >= 1; --i) add(i + 1, i);
      break;
    case Algorithm::sattolo:
      for (std::uint32_t i = n - 1; i >= 1; --i) add(i, i);
      break;
    case Algorithm::naive_swap:
      for (std::uint32_t i = 0; i < n; ++i) add(n, i);
      break;
    default: break;
  }
  return p;
}

}  // namespace melange::simd::internal
