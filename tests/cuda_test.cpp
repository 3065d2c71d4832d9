// The CUDA backend on a real device; skipped where there is none.
#include <gtest/gtest.h>

#include "melange/cuda/device.hpp"
#include "melange/stream.hpp"

namespace melange {
namespace {

#define REQUIRE_CUDA_DEVICE() \
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine"

TEST(CudaStream, WordsEqualTheHostStream) {
  REQUIRE_CUDA_DEVICE();
  for (std::uint64_t seed : {0ull, 42ull, 0xfedcba9876543210ull})
    for (std::uint64_t stream : {0ull, 1ull, 0xffffffffull, 0x123456789abcull}) {
      const auto got = cuda::stream_words(seed, stream, 1001);
      PhiloxStream host(seed, stream);
      for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], host.next()) << "seed " << seed << " stream " << stream << " word " << i;
    }
}

TEST(CudaStream, NoDeviceIsReportedNotCrashed) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "a device is present";
  EXPECT_ANY_THROW(cuda::stream_words(0, 0, 4));
}

}  // namespace
}  // namespace melange
