// Raw Philox words and bounded integers per second.
#include <Random123/philox.h>
#include <benchmark/benchmark.h>

#include <vector>

#include "melange/bounded.hpp"
#include "melange/stream.hpp"
#if defined(MELANGE_HAVE_SIMD)
#include "melange/simd/backend.hpp"
#endif

namespace {

constexpr std::uint64_t kSeed = 42;

void BM_PhiloxScalar(benchmark::State& state) {
  std::uint64_t stream = 0;
  std::uint32_t sink = 0;
  for (auto _ : state) {
    for (int s = 0; s < 1024; ++s, ++stream) {
      const melange::PhiloxCounter c = melange::philox4x32_10(
          melange::stream_counter(stream, 0), melange::stream_key(kSeed));
      sink ^= c.v[0] ^ c.v[1] ^ c.v[2] ^ c.v[3];
    }
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations() * 1024 * 4);
}
BENCHMARK(BM_PhiloxScalar);

void BM_PhiloxRandom123(benchmark::State& state) {
  r123::Philox4x32_R<10> philox;
  r123::Philox4x32_R<10>::key_type key = {{std::uint32_t(kSeed), 0}};
  std::uint32_t stream = 0, sink = 0;
  for (auto _ : state) {
    for (int s = 0; s < 1024; ++s, ++stream) {
      r123::Philox4x32_R<10>::ctr_type ctr = {{0, 0, stream, 0}};
      const auto r = philox(ctr, key);
      sink ^= r.v[0] ^ r.v[1] ^ r.v[2] ^ r.v[3];
    }
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations() * 1024 * 4);
}
BENCHMARK(BM_PhiloxRandom123);

#if defined(MELANGE_HAVE_SIMD)
// On the widest architecture this CPU runs (the label names it).
void BM_PhiloxSimd(benchmark::State& state) {
  if (melange::simd::available_architectures().empty()) {
    state.SkipWithError("no SIMD architecture on this CPU");
    return;
  }
  state.SetLabel(melange::simd::available_architectures().front());
  std::uint64_t stream = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(melange::simd::philox_checksum(kSeed, stream, 1024));
    stream += 1024;
  }
  state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(BM_PhiloxSimd);

// The same words written out stream after stream, as a consumer reads them.
void BM_PhiloxSimdStored(benchmark::State& state) {
  if (melange::simd::available_architectures().empty()) {
    state.SkipWithError("no SIMD architecture on this CPU");
    return;
  }
  state.SetLabel(melange::simd::available_architectures().front());
  std::vector<std::uint32_t> out(4096);
  std::uint64_t stream = 0;
  for (auto _ : state) {
    melange::simd::stream_words(kSeed, stream, 1024, 4, out.data());
    stream += 1024;
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * 4096);
}
BENCHMARK(BM_PhiloxSimdStored);
#endif

void BM_Bounded(benchmark::State& state) {
  const auto method = static_cast<melange::Method>(state.range(0));
  const melange::BoundedSpec spec{method, 32};
  melange::PhiloxStream words(kSeed, 0);
  std::uint64_t sink = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1024; ++i) sink += melange::bounded(words, 52, spec);
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations() * 1024);
  state.SetLabel(std::string(melange::method_name(method)) + ", range 52");
}
BENCHMARK(BM_Bounded)->DenseRange(0, 3);

}  // namespace
