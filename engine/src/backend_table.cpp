#include "melange/backend_table.hpp"

#include <algorithm>
#include <thread>

#include "melange/error.hpp"
#include "backend_choice.hpp"
#include "melange/internal/join_names.hpp"
#include "melange/philox.hpp"
#include "melange/stream.hpp"

#if defined(MELANGE_HAVE_SIMD)
#include "melange/simd/backend.hpp"
#endif
#if defined(MELANGE_HAVE_CUDA)
#include "melange/cuda/device.hpp"
#endif

namespace melange {

std::unique_ptr<Backend> make_scalar_backend();  // backend_scalar.cpp

namespace {

std::vector<std::string> no_archs() { return {}; }
std::string no_device() { return ""; }
std::string runs_anywhere() { return ""; }
std::string not_built() { return "not built into this melange"; }
void on_the_cpu(int) {}

const BackendRow kTable[] = {
    {"scalar", 0, true, runs_anywhere, [](std::string_view) { return make_scalar_backend(); }, no_archs,
     no_archs, no_device, on_the_cpu},
#if defined(MELANGE_HAVE_SIMD)
    {"simd", 1, true,
     [] {
       if (!simd::available_architectures().empty()) return std::string();
       return "this CPU runs none of " + internal::join_names(simd::compiled_architectures(),
                                                              [](const std::string& a) { return a; }, ", ");
     },
     [](std::string_view arch) { return simd::make_backend(arch); }, simd::compiled_architectures,
     simd::available_architectures, no_device, on_the_cpu},
#else
    {"simd", 1, false, not_built, [](std::string_view) { return std::unique_ptr<Backend>(); },
     no_archs, no_archs, no_device, on_the_cpu},
#endif
#if defined(MELANGE_HAVE_CUDA)
    {"cuda", 2, true, cuda::unavailable_reason,
     [](std::string_view) { return cuda::make_backend(); }, no_archs, no_archs,
     [] { return cuda::device_name(); }, cuda::use_device},
#else
    {"cuda", 2, false, not_built, [](std::string_view) { return std::unique_ptr<Backend>(); },
     no_archs, no_archs, no_device, on_the_cpu},
#endif
};

bool available(const BackendRow& row) { return row.compiled && row.unavailable().empty(); }

}  // namespace

std::span<const BackendRow> backend_table() { return kTable; }

std::vector<std::string> backend_choice_list() {
  std::vector<std::string> out{"auto"};
  for (const BackendRow& row : kTable) {
    if (!row.compiled) continue;
    out.emplace_back(row.name);
    for (const std::string& arch : row.compiled_archs()) out.push_back(arch);
  }
  return out;
}

std::string backend_choices(std::string_view sep) {
  return internal::join_names(backend_choice_list(), [](const std::string& c) { return c; }, sep);
}

std::vector<BackendInfo> backend_inventory() {
  std::vector<BackendInfo> out;
  for (const BackendRow& row : kTable) {
    const std::string reason = row.compiled ? row.unavailable() : not_built();
    out.push_back({std::string(row.name), row.compiled, reason.empty(), reason,
                   reason.empty() ? row.available_archs() : std::vector<std::string>{},
                   reason.empty() ? row.device() : std::string()});
  }
  return out;
}

namespace internal {
namespace {

// Why the job did not run where it was headed.
std::string fallback_note(const Job& job, const Backend& skipped, std::string_view used) {
  const std::string where = skipped.arch().empty() ? std::string(skipped.name())
                                                   : std::string(skipped.name()) + " (" + skipped.arch() + ")";
  return std::string(algorithm_name(job.algorithm)) + " at n = " + std::to_string(job.n) + " has no " +
         where + " kernel; it ran on the " + std::string(used) + " path";
}

// The best available CPU backend's name, for error messages.
std::string best_cpu_backend() {
  std::string best = "scalar";
  for (const BackendRow& row : kTable)
    if (row.name != "cuda" && available(row)) best = std::string(row.name);
  return best;
}

}  // namespace

std::shared_ptr<const Backend> ContextBackends::get(const std::string& key,
                                                    const std::function<std::unique_ptr<Backend>()>& make) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<const Backend>& made = made_[key];
  if (!made) made = make();
  return made;
}

std::size_t ContextBackends::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return made_.size();
}

namespace {

// The backend of `row` on `arch` ("": its widest): the context's, made once
// there, or a fresh one.
std::shared_ptr<const Backend> backend_of(const BackendRow& row, std::string_view arch, Context* context) {
  if (!context) return row.make(arch);
  return context->backends().get(std::string(row.name) + "/" + std::string(arch), [&] { return row.make(arch); });
}

std::shared_ptr<const Backend> scalar_backend(Context* context) {
  if (!context) return make_scalar_backend();
  return context->backends().get("scalar/", [] { return make_scalar_backend(); });
}

}  // namespace

BackendChoice choose_backend(const Job& job, std::string_view requested, Context* context) {
  if (requested != "auto") {
    // A backend's name, or an architecture that pins its backend.
    const BackendRow* row = nullptr;
    std::string_view arch;
    for (const BackendRow& r : kTable) {
      if (r.name == requested) row = &r;
      for (const std::string& a : r.compiled_archs())
        if (a == requested) row = &r, arch = requested;
    }
    if (!row) {
      for (const BackendRow& r : kTable)
        if (r.name == requested)
          throw Error("backend " + std::string(requested) + " is not built into this melange: use " +
                      best_cpu_backend());
      throw UsageError(Param::backend, "unknown {backend} '" + std::string(requested) + "': use " + backend_choices(", "));
    }
    if (!row->compiled)
      throw Error("backend " + std::string(requested) + " is not built into this melange: use " + best_cpu_backend());
    std::shared_ptr<const Backend> backend = available(*row) ? backend_of(*row, arch, context) : nullptr;
    if (!backend) {
      if (row->name == "cuda") throw Error(Param::backend, row->unavailable() + ": use {backend} " + best_cpu_backend());
      throw Error(Param::backend, "this CPU cannot run " + std::string(requested) + ": use {backend} scalar");
    }
    if (backend->supports(job)) return BackendChoice{std::move(backend), ""};
    return BackendChoice{scalar_backend(context), fallback_note(job, *backend, "scalar")};
  }
  // auto: the highest-priority available backend that has a kernel for the job.
  std::vector<const BackendRow*> order;
  for (const BackendRow& r : kTable)
    if (r.compiled) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->priority > b->priority; });
  std::shared_ptr<const Backend> skipped;
  for (const BackendRow* row : order) {
    if (!available(*row)) continue;
    std::shared_ptr<const Backend> backend = backend_of(*row, "", context);
    if (!backend) continue;
    if (backend->supports(job)) {
      std::string note = skipped ? fallback_note(job, *skipped, backend->name()) : "";
      return BackendChoice{std::move(backend), std::move(note)};
    }
    if (!skipped) skipped = std::move(backend);
  }
  return BackendChoice{scalar_backend(context), ""};
}

}  // namespace internal
BlockFill fastest_block_fill() {
#if defined(MELANGE_HAVE_SIMD)
  return &simd::stream_blocks;  // the scalar reference itself where this CPU runs no kernel
#else
  return &scalar_stream_blocks;
#endif
}

namespace {

std::uint32_t philox_blocks(std::uint64_t seed, std::uint64_t first, std::uint64_t streams,
                            [[maybe_unused]] std::string_view arch) {
#if defined(MELANGE_HAVE_SIMD)
  return simd::philox_checksum(seed, first, streams, arch);
#else
  std::uint32_t x = 0;
  for (std::uint64_t s = 0; s < streams; ++s) {
    const PhiloxCounter b = philox4x32_10(stream_counter(first + s, 0), stream_key(seed));
    x ^= b.v[0] ^ b.v[1] ^ b.v[2] ^ b.v[3];
  }
  return x;
#endif
}

}  // namespace

std::uint32_t philox_limit_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams, int threads,
                                    std::string_view arch) {
  threads = std::max(1, threads);
  std::vector<std::uint32_t> x(static_cast<std::size_t>(threads), 0);
  const auto at = [&](int i) { return streams / static_cast<unsigned>(threads) * static_cast<unsigned>(i); };
  std::vector<std::thread> pool;
  for (int w = 1; w < threads; ++w)
    pool.emplace_back([&, w] {
      x[w] = philox_blocks(seed, first + at(w), w + 1 == threads ? streams - at(w) : at(w + 1) - at(w), arch);
    });
  x[0] = philox_blocks(seed, first, threads == 1 ? streams : at(1), arch);
  for (std::thread& t : pool) t.join();
  std::uint32_t all = 0;
  for (std::uint32_t v : x) all ^= v;
  return all;
}

}  // namespace melange
