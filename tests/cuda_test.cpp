// The CUDA backend on a real device; every test skips where there is none.
#include <gtest/gtest.h>

#include "melange/cuda/device.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/stream.hpp"

namespace melange {
namespace {

#define REQUIRE_CUDA_DEVICE() \
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine"

const std::uint64_t kSeeds[] = {0, 42, 0xfedcba9876543210ull};
const std::uint64_t kStreams[] = {0, 1, 0xffffffffull, 0x123456789abcull};

TEST(CudaStream, WordsEqualTheHostStream) {
  REQUIRE_CUDA_DEVICE();
  for (std::uint64_t seed : kSeeds)
    for (std::uint64_t stream : kStreams) {
      const auto got = cuda::stream_words(seed, stream, 1001);
      PhiloxStream host(seed, stream);
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], host.next()) << "seed " << seed << " stream " << stream << " word " << i;
    }
}

TEST(CudaStream, WordsEqualCurandsDeviceApi) {
  REQUIRE_CUDA_DEVICE();
  for (std::uint64_t seed : kSeeds)
    for (std::uint64_t stream : kStreams) {
      const auto ours = cuda::stream_words(seed, stream, 37);
      EXPECT_EQ(cuda::curand_words(seed, stream, 37), ours) << "seed " << seed << " stream " << stream;
    }
}

RunOptions on(const std::string& k) {
  RunOptions o;
  o.backend = k;
  o.threads = 2;
  return o;
}

TEST(CudaBackend, TalliesEqualTheCpu) {
  REQUIRE_CUDA_DEVICE();
  struct Case {
    Algorithm a;
    int n;
    BoundedSpec spec;
  };
  const Case cases[] = {{Algorithm::fisher_yates, 4, {}},          {Algorithm::fisher_yates, 5, {Method::modulo, 8}},
                        {Algorithm::naive_swap, 8, {}},            {Algorithm::sattolo, 8, {Method::rejection, 6}},
                        {Algorithm::sort_binary_insertion, 5, {}}, {Algorithm::sort_v8_timsort, 8, {}},
                        {Algorithm::fisher_yates, 52, {}},         {Algorithm::naive_swap, 52, {Method::multiply, 9}},
                        {Algorithm::fisher_yates, 4, {Method::lemire, 3}}};
  for (const Case& c : cases)
    for (std::uint64_t trials : {std::uint64_t{1'000'003}, std::uint64_t{777}}) {
      Job job;
      job.algorithm = c.a;
      job.n = c.n;
      job.spec = c.spec;
      job.seed = 1234;
      job.first = (std::uint64_t{1} << 32) - 500'000;
      job.trials = trials;
      job.tallies.set(TallyKind::ranks, c.n <= 8);
      job.tallies.set(TallyKind::positions, true);
      const RunResult gpu = run(job, on("cuda"));
      ASSERT_EQ(gpu.backend, "cuda");
      EXPECT_TRUE(gpu.tally == run(job, on("scalar")).tally)
          << algorithm_name(c.a) << " n=" << c.n << " " << method_name(c.spec.method) << " trials " << trials;
    }
}

TEST(CudaBackend, SamplesEqualTheCpu) {
  REQUIRE_CUDA_DEVICE();
  Job job;
  job.algorithm = Algorithm::sort_v8_timsort;
  job.n = 9;
  job.trials = 100'001;
  job.first = 99;
  EXPECT_EQ(sample(job, on("cuda")).permutations, sample(job, on("scalar")).permutations);
}

TEST(CudaBackend, AutoPicksTheGpu) {
  REQUIRE_CUDA_DEVICE();
  Job job;
  job.trials = 1000;
  EXPECT_EQ(run(job).backend, "cuda");
}

TEST(CudaBackend, NoDeviceIsAnErrorWhenAskedForAndSilentOnAuto) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "a device is present";
  EXPECT_ANY_THROW(cuda::stream_words(0, 0, 4));
  EXPECT_EQ(cuda::make_backend(), nullptr);
  Job job;
  job.trials = 1000;
  EXPECT_THROW(run(job, on("cuda")), Error);
  EXPECT_NE(run(job).backend, "cuda");
}

}  // namespace
}  // namespace melange
