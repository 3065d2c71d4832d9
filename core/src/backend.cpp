#include "melange/backend.hpp"

#include "melange/error.hpp"
#include "melange/internal/backend_registry.hpp"

#if defined(MELANGE_HAVE_SIMD)
#include "melange/simd/avx2_backend.hpp"
#endif
#if defined(MELANGE_HAVE_CUDA)
#include "melange/cuda/device.hpp"
#endif

namespace melange {

std::string_view backend_name(BackendKind k) {
  switch (k) {
    case BackendKind::scalar: return "scalar";
    case BackendKind::avx2: return "avx2";
    case BackendKind::cuda: return "cuda";
  }
  return "?";
}

std::optional<BackendKind> parse_backend(std::string_view name) {
  for (BackendKind k : {BackendKind::scalar, BackendKind::avx2, BackendKind::cuda})
    if (backend_name(k) == name) return k;
  return std::nullopt;
}

std::vector<BackendInfo> backend_inventory() {
#if defined(MELANGE_HAVE_SIMD)
  const bool avx2_compiled = true, avx2_available = simd::avx2_available();
#else
  const bool avx2_compiled = false, avx2_available = false;
#endif
#if defined(MELANGE_HAVE_CUDA)
  const bool cuda_compiled = true, cuda_available = cuda::device_count() > 0;
#else
  const bool cuda_compiled = false, cuda_available = false;
#endif
  return {BackendInfo{BackendKind::scalar, true, true},
          BackendInfo{BackendKind::avx2, avx2_compiled, avx2_available},
          BackendInfo{BackendKind::cuda, cuda_compiled, cuda_available}};
}

namespace internal {
namespace {

std::unique_ptr<Backend> make_backend(BackendKind k) {
  switch (k) {
    case BackendKind::scalar: return make_scalar_backend();
#if defined(MELANGE_HAVE_SIMD)
    case BackendKind::avx2: return simd::make_avx2_backend();
#endif
#if defined(MELANGE_HAVE_CUDA)
    case BackendKind::cuda: return cuda::make_backend();
#endif
    default: return nullptr;
  }
}

}  // namespace

// Why the job did not run where it was headed.
std::string fallback_note(const Job& job, BackendKind skipped, BackendKind used) {
  return std::string(algorithm_name(job.algorithm)) + " at n = " + std::to_string(job.n) + " has no " +
         std::string(backend_name(skipped)) + " kernel; it ran on the " +
         std::string(backend_name(used)) + " path";
}

BackendChoice choose_backend(const Job& job, std::optional<BackendKind> requested) {
  const auto inventory = backend_inventory();
  auto info = [&](BackendKind k) { return inventory[static_cast<int>(k)]; };
  if (requested) {
    const BackendInfo b = info(*requested);
    const std::string name(backend_name(*requested));
    if (!b.compiled)
      throw Error("backend " + name + " is not built into this melange: use --backend scalar");
    if (!b.available) {
      // Name the fastest CPU backend this build and machine do have.
      const std::string cpu = info(BackendKind::avx2).available ? "avx2" : "scalar";
      throw Error(*requested == BackendKind::cuda ? "no CUDA device: use --backend " + cpu
                                                  : "this CPU has no AVX2: use --backend scalar");
    }
    auto backend = make_backend(*requested);
    if (backend->supports(job)) return BackendChoice{std::move(backend), ""};
    return BackendChoice{make_scalar_backend(),
                         fallback_note(job, *requested, BackendKind::scalar)};
  }
  // auto: the fastest available backend that has a kernel for the job.
  std::optional<BackendKind> skipped;
  for (BackendKind k : {BackendKind::cuda, BackendKind::avx2}) {
    if (!info(k).available) continue;
    auto backend = make_backend(k);
    if (!backend) continue;
    if (backend->supports(job))
      return BackendChoice{std::move(backend), skipped ? fallback_note(job, *skipped, k) : ""};
    if (!skipped) skipped = k;
  }
  return BackendChoice{make_scalar_backend(),
                       skipped ? fallback_note(job, *skipped, BackendKind::scalar) : ""};
}

}  // namespace internal
}  // namespace melange
