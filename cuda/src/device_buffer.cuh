// Device memory owned by an object, freed without a word when it goes. After
// a sticky fault (an illegal address, say) cudaFree itself fails; a
// thrust::device_vector then throws from its destructor and std::terminate
// runs, while this buffer ignores the status, so the error that caused it
// reaches the caller as a melange::Error instead of an abort.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "check.cuh"

namespace melange::cuda::internal {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ == 0) return;
    check(cudaMalloc(reinterpret_cast<void**>(&data_), count_ * sizeof(T)), "allocating device memory");
  }
  // A buffer holding `host`'s values.
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (count_ != 0)
      check(cudaMemcpy(data_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice), "copying to the device");
  }
  ~DeviceBuffer() {
    if (data_) static_cast<void>(cudaFree(data_));  // after a fault this fails too: nothing to add
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), count_(other.count_) {
    other.data_ = nullptr;
    other.count_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }

  T* data() const { return data_; }
  std::size_t size() const { return count_; }

  // Every byte zero.
  void zero() {
    if (count_ != 0) check(cudaMemset(data_, 0, count_ * sizeof(T)), "clearing device memory");
  }
  // The values, copied back.
  std::vector<T> to_host() const {
    std::vector<T> host(count_);
    if (count_ != 0)
      check(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "copying from the device");
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace melange::cuda::internal
