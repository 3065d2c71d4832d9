// The backend table: one row per backend technology, in the order a plain
// listing shows them. It is the only place that knows every backend; adding
// one is a row here (and its library in CMake).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "melange/backend.hpp"
#include "melange/stream.hpp"

namespace melange {

struct BackendRow {
  std::string_view name;  // what a run asks for: "scalar", "simd", "cuda"
  int priority;           // "auto" tries the highest available first
  bool compiled;          // built into this library
  // Why it cannot run on this machine now; empty when it can.
  std::string (*unavailable)();
  // The backend, pinned to one of its architectures when `arch` is not empty;
  // nullptr when that is not available here.
  std::unique_ptr<Backend> (*make)(std::string_view arch);
  // Architectures it can be pinned to ("avx2"), compiled and available here.
  std::vector<std::string> (*compiled_archs)();
  std::vector<std::string> (*available_archs)();
  // The device it runs on, when it is not the CPU ("NVIDIA H200"); else "".
  std::string (*device)();
  // Under MPI, ranks on one node share its devices: the rank with node-local
  // index i takes device i modulo their count. Does nothing for a backend
  // that runs on the CPU.
  void (*bind_node_rank)(int node_rank);
};

std::span<const BackendRow> backend_table();

// What a run may ask for: "auto", each compiled backend's name, and each
// architecture name (which pins that backend to it); and the same joined by `sep`.
std::vector<std::string> backend_choice_list();
std::string backend_choices(std::string_view sep);

// Every backend, in table order, as `melange version` lists them.
struct BackendInfo {
  std::string name;
  bool compiled;
  bool available;
  std::string reason;              // why it is not available ("no CUDA device")
  std::vector<std::string> archs;  // available architectures, widest first
  std::string device;              // the device it runs on, when available and not the CPU
};
std::vector<BackendInfo> backend_inventory();

// The fastest way this CPU makes many blocks of one stream (stream.hpp):
// the SIMD kernel where one runs, else the scalar reference. For
// BoundedIntegers; the words are the same either way.
BlockFill fastest_block_fill();

// The Philox limit of this CPU: block 0 of the streams [first, first +
// streams) made and xored, never stored, split over `threads` threads, on
// the SIMD architecture `arch` (empty: the widest this CPU runs; the scalar
// cipher where none). Where a trial needs one block (n <= 8), no trial on
// that architecture runs faster than these blocks: `melange bench`'s limit
// column, for a row pinned to an architecture that architecture's.
std::uint32_t philox_limit_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams, int threads,
                                    std::string_view arch = {});

}  // namespace melange
