// The interface every backend implements. Backends run trial ranges of a job;
// they own no algorithm (they run the trial body of trial.hpp, or a kernel
// checked against it bit for bit). Which backends exist, and which one a run
// gets, is the engine's business (engine/: backend_table.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "melange/job.hpp"

namespace melange {

class Backend {
 public:
  virtual ~Backend() = default;
  // Its row in the backend table: "scalar", "simd", "cuda".
  virtual std::string_view name() const = 0;
  // The architecture it runs on where it has several ("avx2"); else "".
  virtual std::string arch() const { return ""; }
  // False when this backend has no kernel for the job; the engine then runs
  // the scalar path and says so.
  virtual bool supports(const Job& job) const = 0;
  // Adds trials [begin, end) of `job` to `tally` (made by Tally::for_job);
  // end may be 0, meaning 2^64.
  virtual void run_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                         Tally& tally) const = 0;
  // Writes permutations of trials [begin, end), n items each, into out.
  virtual void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                            std::uint16_t* out) const = 0;
  // The same rows as bytes, for n <= 256. By default sample_range's rows are
  // made a piece at a time and narrowed; a backend that can write bytes
  // directly (the SIMD one, from its packed registers) overrides it.
  virtual void sample_range_bytes(const Job& job, std::uint64_t begin, std::uint64_t end,
                                  std::uint8_t* out) const {
    constexpr std::uint64_t kPiece = 4096;
    const auto width = static_cast<std::uint64_t>(shape_of(job).k);
    std::vector<std::uint16_t> rows(std::min(end - begin, kPiece) * width);
    for (std::uint64_t t = begin; t != end;) {
      const std::uint64_t piece = std::min(end - t, kPiece);
      sample_range(job, t, t + piece, rows.data());
      out = std::copy_n(rows.data(), piece * width, out);  // items < 256: exact
      t += piece;
    }
  }
  // Trials per run_range call the engine should hand out for this job (0:
  // its default).
  virtual std::uint64_t preferred_chunk(const Job&) const { return 0; }
  // Host memory one worker needs beside its Tally (lane-private counters,
  // say), counted against the run's memory cap.
  virtual std::uint64_t scratch_bytes(const Job&) const { return 0; }
  // How many engine threads may call this backend at once.
  virtual int max_workers() const { return 1 << 10; }
};

}  // namespace melange
