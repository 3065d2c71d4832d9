// Chooses the vector kernels at run time. Compiled without architecture
// flags: it must run, and say no, on a CPU without AVX2.
#include <xsimd/config/xsimd_cpuid.hpp>

#include "kernel_entry.hpp"
#include "melange/simd/avx2_backend.hpp"
#include "plan.hpp"

namespace melange::simd {
namespace {

class Avx2Backend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::avx2; }
  bool supports(const Job& job) const override { return internal::vectorizable(job); }
  std::uint64_t scratch_bytes(const Job& job) const override { return internal::scratch_bytes(job); }

  void run_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                 Tally& tally) const override {
    kernels_.tally(internal::make_plan(job), begin, end, tally);
  }

  void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                    std::uint16_t* out) const override {
    kernels_.sample(internal::make_plan(job), begin, end, out);
  }

 private:
  internal::KernelEntry kernels_ = internal::avx2_kernels();
};

}  // namespace

bool avx2_available() { return xsimd::available_architectures().avx2; }

std::unique_ptr<Backend> make_avx2_backend() {
  if (!avx2_available()) return nullptr;
  return std::make_unique<Avx2Backend>();
}

void avx2_stream_words(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                       int words_per_stream, std::uint32_t* out) {
  internal::avx2_kernels().words(seed, first, streams, words_per_stream, out);
}

std::uint32_t avx2_philox_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams) {
  return internal::avx2_kernels().checksum(seed, first, streams);
}

}  // namespace melange::simd
