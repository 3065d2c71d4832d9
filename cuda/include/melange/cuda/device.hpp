// What the CUDA runtime sees on this machine. Safe to call where no driver
// or device exists: it then reports zero devices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace melange::cuda {

int device_count();
std::string device_name(int device = 0);

// The first `count` words of stream `stream` under `seed`, computed on the GPU
// (one thread per block of four words). Throws melange::Error without a device.
std::vector<std::uint32_t> stream_words(std::uint64_t seed, std::uint64_t stream,
                                        std::uint64_t count);

}  // namespace melange::cuda
