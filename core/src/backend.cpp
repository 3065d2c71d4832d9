#include "melange/backend.hpp"

#include "melange/error.hpp"
#include "melange/internal/backend_registry.hpp"

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
#if defined(MELANGE_HAVE_CUDA)
  const bool cuda_compiled = true, cuda_available = cuda::device_count() > 0;
#else
  const bool cuda_compiled = false, cuda_available = false;
#endif
  return {BackendInfo{BackendKind::scalar, true, true},
          BackendInfo{BackendKind::avx2, false, false},
          BackendInfo{BackendKind::cuda, cuda_compiled, cuda_available}};
}

namespace internal {

BackendChoice choose_backend(const Job&, std::optional<BackendKind> requested) {
  if (requested && *requested != BackendKind::scalar)
    throw Error("backend " + std::string(backend_name(*requested)) +
                " is not available in this build: use --backend scalar");
  return BackendChoice{make_scalar_backend(), ""};
}

}  // namespace internal
}  // namespace melange
