// Chooses the vector kernels at run time. Compiled without architecture
// flags: it must run, and say no, on a CPU without any of them.
#include <xsimd/config/xsimd_cpuid.hpp>

#include <iterator>

#include "kernel_entry.hpp"
#include "melange/simd/backend.hpp"
#include "melange/stream.hpp"
#include "melange/trial.hpp"
#include "plan.hpp"

namespace melange::simd {
namespace {

struct Architecture {
  const char* name;
  bool (*available)();  // CPUID, at run time
  internal::KernelEntry (*kernels)();
};

[[maybe_unused]] bool has_avx512() {
  const auto cpu = xsimd::available_architectures();
  return cpu.avx512f != 0 && cpu.avx512bw != 0 && cpu.avx512dq != 0;
}

// Widest first. A new architecture is its kernels_<arch>.cpp, compiled with
// its flags, and one row here. xsimd 8.1 does not look for VBMI; the
// compiler's own CPUID check does.
// A row for each kernel this build has (MELANGE_SIMD_ARCHS, simd/CMakeLists.txt).
const Architecture kArchitectures[] = {
#if defined(MELANGE_SIMD_AVX512VBMI)
    {"avx512vbmi", [] { return has_avx512() && __builtin_cpu_supports("avx512vbmi"); },
     &internal::avx512vbmi_kernels},
#endif
#if defined(MELANGE_SIMD_AVX512)
    {"avx512", has_avx512, &internal::avx512_kernels},
#endif
#if defined(MELANGE_SIMD_AVX2)
    {"avx2", [] { return xsimd::available_architectures().avx2 != 0; }, &internal::avx2_kernels},
#endif
};
static_assert(std::size(kArchitectures) > 0, "MELANGE_SIMD_ARCHS names at least one architecture");

class SimdBackend final : public Backend {
 public:
  explicit SimdBackend(const Architecture& a) : arch_(a), kernels_(a.kernels()) {}

  std::string_view name() const override { return "simd"; }
  std::string arch() const override { return arch_.name; }
  bool supports(const Job& job) const override { return internal::vectorizable(job); }
  std::uint64_t scratch_bytes(const Job& job) const override { return internal::scratch_bytes(job, tables_.bytes(job)); }
  std::uint64_t preferred_chunk(const Job& job) const override { return internal::preferred_chunk(job); }

  // A job whose lanes go through a decision table, with none built (too few
  // trials to pay for one: kTableMinTrials), runs on the reference loop.
  void run_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                 Tally& tally) const override {
    const auto table = tables_.get(job);
    if (!table && DecisionTable::fits(job)) return tally_trials(job, begin, end, tally);
    kernels_.tally(plan(job, table.get()), begin, end, tally);
  }

  void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                    std::uint16_t* out) const override {
    const auto table = tables_.get(job);
    if (!table && DecisionTable::fits(job)) return sample_trials(job, begin, end, out);
    kernels_.sample(plan(job, table.get()), begin, end, out);
  }

  void sample_range_bytes(const Job& job, std::uint64_t begin, std::uint64_t end,
                          std::uint8_t* out) const override {
    const auto table = tables_.get(job);
    if (!table && DecisionTable::fits(job)) return Backend::sample_range_bytes(job, begin, end, out);
    // Packed permutations (n <= 8), riffles and decision tables are written
    // as bytes by the lanes; wider rows are made 16-bit and narrowed.
    if (!table && !internal::rows_as_bytes(job)) return Backend::sample_range_bytes(job, begin, end, out);
    kernels_.sample_bytes(plan(job, table.get()), begin, end, out);
  }

 private:
  static internal::Plan plan(const Job& job, const DecisionTable* table) {
    internal::Plan p = internal::make_plan(job);
    if (table) p.table = table->view();
    return p;
  }

  const Architecture& arch_;
  internal::KernelEntry kernels_;
  DecisionTables tables_;  // the sort one-liners' tables, built on first use
};

const Architecture* widest_available() {
  for (const Architecture& a : kArchitectures)
    if (a.available()) return &a;
  return nullptr;
}

}  // namespace

std::vector<std::string> compiled_architectures() {
  std::vector<std::string> names;
  for (const Architecture& a : kArchitectures) names.emplace_back(a.name);
  return names;
}

std::vector<std::string> available_architectures() {
  std::vector<std::string> names;
  for (const Architecture& a : kArchitectures)
    if (a.available()) names.emplace_back(a.name);
  return names;
}

std::unique_ptr<Backend> make_backend(std::string_view arch) {
  for (const Architecture& a : kArchitectures)
    if ((arch.empty() || arch == a.name) && a.available()) return std::make_unique<SimdBackend>(a);
  return nullptr;
}

void stream_words(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                  int words_per_stream, std::uint32_t* out) {
  if (const Architecture* a = widest_available()) return a->kernels().words(seed, first, streams, words_per_stream, out);
  for (std::uint64_t s = 0; s < streams; ++s) {
    PhiloxStream st(seed, first + s);
    for (int k = 0; k < words_per_stream; ++k) out[s * words_per_stream + k] = st.next();
  }
}

void stream_blocks(std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block, std::uint64_t blocks,
                   std::uint32_t* out) {
  if (const Architecture* a = widest_available()) return a->kernels().blocks(seed, stream, first_block, blocks, out);
  scalar_stream_blocks(seed, stream, first_block, blocks, out);
}

bool stream_blocks_on(std::string_view arch, std::uint64_t seed, std::uint64_t stream, std::uint64_t first_block,
                      std::uint64_t blocks, std::uint32_t* out) {
  for (const Architecture& a : kArchitectures)
    if (arch == a.name && a.available()) {
      a.kernels().blocks(seed, stream, first_block, blocks, out);
      return true;
    }
  return false;
}

std::uint32_t philox_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams, std::string_view arch) {
  for (const Architecture& a : kArchitectures)
    if (arch == a.name && a.available()) return a.kernels().checksum(seed, first, streams);
  if (const Architecture* a = widest_available()) return a->kernels().checksum(seed, first, streams);
  std::uint32_t x = 0;
  for (std::uint64_t s = 0; s < streams; ++s) {
    const PhiloxCounter b = philox4x32_10(stream_counter(first + s, 0), stream_key(seed));
    x ^= b.v[0] ^ b.v[1] ^ b.v[2] ^ b.v[3];
  }
  return x;
}

}  // namespace melange::simd
