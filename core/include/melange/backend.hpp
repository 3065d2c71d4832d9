// Backends run trial ranges of a job; they own no algorithm. The scalar
// backend is the reference every other backend is checked against bit for bit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "melange/job.hpp"

namespace melange {

enum class BackendKind : std::uint8_t { scalar, avx2, cuda };
std::string_view backend_name(BackendKind k);
std::optional<BackendKind> parse_backend(std::string_view name);

struct BackendInfo {
  BackendKind kind;
  bool compiled;
  bool available;
};
// Every backend melange knows, in order scalar, avx2, cuda.
std::vector<BackendInfo> backend_inventory();

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // False when this backend has no kernel for the job; the engine then runs
  // the scalar path and says so.
  virtual bool supports(const Job& job) const = 0;
  // Adds trials [begin, end) of `job` to `tally` (made by Tally::for_job).
  virtual void run_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                         Tally& tally) const = 0;
  // Writes permutations of trials [begin, end), n items each, into out.
  virtual void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                            std::uint16_t* out) const = 0;
  // Trials per run_range call the engine should hand out (0: its default).
  virtual std::uint64_t preferred_chunk() const { return 0; }
  // Host memory one worker needs beside its Tally (lane-private counters,
  // say), counted against the run's memory cap.
  virtual std::uint64_t scratch_bytes(const Job&) const { return 0; }
  // How many engine threads may call this backend at once.
  virtual int max_workers() const { return 1 << 10; }
};

std::unique_ptr<Backend> make_scalar_backend();

}  // namespace melange
