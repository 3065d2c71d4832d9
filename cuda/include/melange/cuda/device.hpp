// What the CUDA runtime sees on this machine. Safe to call where no driver
// or device exists: it then reports zero devices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "melange/backend.hpp"
#include "melange/job.hpp"

namespace melange::cuda {

int device_count();
// Why no device can be used, in words ("no CUDA device", or the driver's own
// error such as an old driver); empty when device 0 can run.
std::string unavailable_reason();
std::string device_name(int device = 0);
// Makes device `index` modulo the device count this process's device for
// everything that follows (an MPI rank takes the one its node-local rank
// selects); does nothing without a device.
void use_device(int index);

// The first `count` words of stream `stream` under `seed`, computed on the GPU
// (one thread per block of four words). Throws melange::Error without a device.
std::vector<std::uint32_t> stream_words(std::uint64_t seed, std::uint64_t stream,
                                        std::uint64_t count);

// The Philox ceiling on the GPU: XOR of the first `blocks` blocks of streams
// first .. first + streams - 1, one thread per stream, nothing stored.
// `seconds` is the kernel's own time, between two CUDA events.
struct PhiloxChecksum {
  std::uint32_t checksum;
  double seconds;
};
PhiloxChecksum philox_checksum(std::uint64_t seed, std::uint64_t first, std::uint64_t streams, int blocks);

// The same words from cuRAND's device API: curand_init(seed, stream, 0, &s)
// and `count` calls of curand(&s). Throws melange::Error without a device.
std::vector<std::uint32_t> curand_words(std::uint64_t seed, std::uint64_t stream,
                                        std::uint64_t count);

// Records [job.first, job.first + job.trials) of `job` (serve.hpp's records:
// permutations, or a deal's k items) into device memory on the current
// device at `device_out`, which must hold job.trials * record_items(job)
// uint16 items; nothing is copied to the host, so a caller's kernels can read them where
// they lie. The same bits as fill_records. Throws UsageError for a job the
// device code has no kernel for (job_has_kernel), Error without a device.
void fill_device(const Job& job, std::uint16_t* device_out);

// An audit of `job` on the current device, as the backend runs it in one
// call, with the kernels' own time (CUDA events from the first launch to the
// last merge: no allocation, table upload or copy-back). Throws
// melange::Error without a device.
struct TimedAudit {
  Tally tally;
  double kernel_seconds = 0;
};
TimedAudit timed_audit(const Job& job);

// How the audit kernel of `job` is launched on the current device: the grid
// (every SM full), resident blocks per SM, registers a thread and dynamic
// shared memory. Throws melange::Error without a device.
struct KernelShape {
  unsigned grid = 0;
  int blocks_per_sm = 0;
  int registers = 0;
  std::size_t shared_bytes = 0;
};
KernelShape audit_kernel_shape(const Job& job);

// The CUDA backend on the current device (0, or use_device's), or nullptr
// when there is no device.
std::unique_ptr<Backend> make_backend();

}  // namespace melange::cuda
