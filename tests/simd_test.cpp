// The AVX2 backend is bit-identical to the scalar reference: words, tallies,
// sampled permutations and words consumed, for every supported algorithm and
// method, at trial offsets and counts that are not multiples of eight.
#include <gtest/gtest.h>

#include <random>

#include "../simd/src/plan.hpp"
#include "melange/engine.hpp"
#include "melange/simd/avx2_backend.hpp"
#include "melange/stream.hpp"

namespace melange {
namespace {

#define REQUIRE_AVX2() \
  if (!simd::avx2_available()) GTEST_SKIP() << "this CPU has no AVX2"

TEST(Avx2Words, EqualTheScalarStreams) {
  REQUIRE_AVX2();
  for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{0xfffffffcu},
                              std::uint64_t{0x123456789abcull}}) {
    const std::uint64_t streams = 21;  // two batches of eight and a tail
    std::vector<std::uint32_t> out(streams * 9);
    simd::avx2_stream_words(77, first, streams, 9, out.data());
    std::uint32_t checksum = 0;
    for (std::uint64_t s = 0; s < streams; ++s) {
      PhiloxStream ref(77, first + s);
      for (int k = 0; k < 9; ++k) {
        const std::uint32_t w = ref.next();
        ASSERT_EQ(out[s * 9 + k], w) << "stream " << first + s << " word " << k;
        if (k < 4) checksum ^= w;
      }
    }
    EXPECT_EQ(simd::avx2_philox_checksum(77, first, streams), checksum);
  }
}

TEST(Avx2Plan, DivisionByInvariantIntegersIsExact) {
  std::mt19937 gen(7);
  auto check = [&](std::uint32_t d) {
    const simd::internal::Divisor div(d);
    auto quotient = [&](std::uint32_t y) {
      const auto t = static_cast<std::uint32_t>((std::uint64_t{div.m} * y) >> 32);
      return (t + ((y - t) >> div.sh1)) >> div.sh2;
    };
    for (std::uint32_t y : {0u, 1u, d - 1, d, d + 1, 0x7fffffffu, 0xfffffffeu, 0xffffffffu, static_cast<std::uint32_t>(gen()), static_cast<std::uint32_t>(gen())})
      ASSERT_EQ(quotient(y), y / d) << "d=" << d << " y=" << y;
  };
  for (std::uint32_t d = 1; d <= 70000; ++d) check(d);
  for (std::uint32_t d : {0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu}) check(d);
}

struct Case {
  Algorithm algorithm;
  int n;
  BoundedSpec spec;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  const BoundedSpec specs[] = {{Method::lemire, 32},   {Method::modulo, 32},  {Method::rejection, 32},
                               {Method::multiply, 32}, {Method::modulo, 8},   {Method::lemire, 7},
                               {Method::rejection, 6}, {Method::multiply, 6}, {Method::lemire, 3}};
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::naive_swap, Algorithm::sattolo})
    for (int n : {3, 4, 5, 8, 13, 52})
      for (BoundedSpec s : specs)
        if (max_draw_range(a, n) <= (std::uint64_t{1} << s.bits)) c.push_back({a, n, s});
  return c;
}

Job job_for(const Case& c, std::uint64_t seed, std::uint64_t first, std::uint64_t trials) {
  Job j;
  j.algorithm = c.algorithm;
  j.n = c.n;
  j.spec = c.spec;
  j.seed = seed;
  j.first = first;
  j.trials = trials;
  j.rank_histogram = c.n <= 8;
  j.position_matrix = true;
  return j;
}

RunOptions on(BackendKind k, int threads) {
  RunOptions o;
  o.backend = k;
  o.threads = threads;
  return o;
}

TEST(Avx2Equality, TalliesMatchTheScalarReference) {
  REQUIRE_AVX2();
  int compared = 0;
  for (const Case& c : cases())
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{0xdeadbeefcafef00dull}})
      for (auto [first, trials] : {std::pair<std::uint64_t, std::uint64_t>{0, 20'003},
                                   {13, 4'099}, {0xfffffff9ull, 1'001}}) {
        const Job job = job_for(c, seed, first, c.n > 8 ? trials / 4 : trials);
        const RunResult ref = run(job, on(BackendKind::scalar, 1));
        for (int threads : {1, 2}) {
          const RunResult got = run(job, on(BackendKind::avx2, threads));
          ASSERT_EQ(got.backend, BackendKind::avx2);
          ASSERT_TRUE(got.tally == ref.tally)
              << algorithm_name(c.algorithm) << " n=" << c.n << " " << method_name(c.spec.method)
              << "/" << c.spec.bits << " seed " << seed << " first " << first << " threads "
              << threads << ": words " << got.tally.words << " vs " << ref.tally.words;
          ++compared;
        }
      }
  EXPECT_GT(compared, 500);
}

TEST(Avx2Equality, SampledPermutationsMatchTheScalarReference) {
  REQUIRE_AVX2();
  for (const Case& c : cases()) {
    const Job job = job_for(c, 31337, 1'000'003, 517);
    const auto ref = sample(job, on(BackendKind::scalar, 1)).permutations;
    for (int threads : {1, 2})
      ASSERT_EQ(sample(job, on(BackendKind::avx2, threads)).permutations, ref)
          << algorithm_name(c.algorithm) << " n=" << c.n << " " << method_name(c.spec.method) << "/"
          << c.spec.bits;
  }
}

TEST(Avx2Backend, IsTheDefaultAndFallsBackWithANote) {
  REQUIRE_AVX2();
  Job fy;
  fy.trials = 100;
  EXPECT_EQ(run(fy).backend, BackendKind::avx2) << "auto picks AVX2 for Fisher-Yates";
  Job sort = fy;
  sort.algorithm = Algorithm::sort_binary_insertion;
  const RunResult r = run(sort, on(BackendKind::avx2, 1));
  EXPECT_EQ(r.backend, BackendKind::scalar);
  EXPECT_NE(r.note.find("scalar path"), std::string::npos) << r.note;
  EXPECT_TRUE(r.tally == run(sort, on(BackendKind::scalar, 1)).tally);
}

TEST(Avx2Backend, InventoryReportsIt) {
  const auto inv = backend_inventory();
  EXPECT_TRUE(inv[static_cast<int>(BackendKind::avx2)].compiled);
  EXPECT_EQ(inv[static_cast<int>(BackendKind::avx2)].available, simd::avx2_available());
}

}  // namespace
}  // namespace melange
