// Records read on one thread and counted on another: the reader parses
// batch t + 1 while the counter tallies batch t (and runs the stream
// tests), so an input audit takes the longer of the two, not their sum.
// The counter sees every record once, in file order, exactly as a call of
// the batch function a batch would: the tallies are the same bits.
//
// Two buffers: the reader fills one while the counter drains the other. A
// buffer is handed on when it is full (the reader then waits for the
// counter), or a quarter full when the counter is idle: a slow pipe's
// records are counted as they come, 16K items at a time, and a fast
// reader does not pay a wake-up for each of its 4K-item batches.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "melange/records.hpp"

namespace melange::internal {

class RecordPipeline {
 public:
  // Items a buffer holds: a hand-off (a lock and a wake-up) every 128 KB.
  static constexpr std::size_t kBufferItems = std::size_t{1} << 16;

  RecordPipeline(std::size_t width, RecordBatch count)
      : width_(width),
        capacity_(std::max<std::size_t>(1, kBufferItems / width) * width),
        count_(std::move(count)),
        filling_(capacity_),
        counting_(capacity_) {}
  RecordPipeline(const RecordPipeline&) = delete;
  RecordPipeline& operator=(const RecordPipeline&) = delete;
  ~RecordPipeline() { close(); }

  // The reader's batch function: false once the counter has stopped (a
  // look's FAIL, a stop request), so the reader stops too.
  bool push(const std::uint16_t* items, std::size_t records) {
    while (records > 0) {
      if (stopped_.load(std::memory_order_acquire)) return false;
      const std::size_t room = (capacity_ - filled_) / width_;
      const std::size_t take = std::min(room, records);
      std::memcpy(filling_.data() + filled_, items, take * width_ * sizeof(std::uint16_t));
      filled_ += take * width_;
      items += take * width_;
      records -= take;
      if (filled_ == capacity_ || (filled_ >= capacity_ / 4 && idle())) hand_on();
    }
    return !stopped_.load(std::memory_order_acquire);
  }

  // Counts what is left and waits for the counter; rethrows what it threw.
  void finish() {
    if (filled_ > 0) hand_on();
    close();
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  // The counter waits for records (or has not started): hand them on now.
  bool idle() {
    if (!worker_.joinable()) return true;
    std::lock_guard<std::mutex> lock(m_);
    return !full_;
  }

  // The filled buffer goes to the counter, started by the first one.
  void hand_on() {
    std::unique_lock<std::mutex> lock(m_);
    space_.wait(lock, [this] { return !full_; });
    filling_.swap(counting_);
    counting_items_ = filled_;
    filled_ = 0;
    full_ = true;
    lock.unlock();
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    else ready_.notify_one();
  }

  void run() {
    for (;;) {
      std::unique_lock<std::mutex> lock(m_);
      ready_.wait(lock, [this] { return full_ || closing_; });
      if (!full_) return;
      lock.unlock();
      count_buffer();
      lock.lock();
      full_ = false;
      lock.unlock();
      space_.notify_one();
    }
  }

  void count_buffer() {
    if (stopped_.load(std::memory_order_relaxed)) return;
    try {
      if (!count_(counting_.data(), counting_items_ / width_)) stopped_.store(true, std::memory_order_release);
    } catch (...) {
      failure_ = std::current_exception();
      stopped_.store(true, std::memory_order_release);
    }
  }

  void close() {
    if (!worker_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(m_);
      closing_ = true;
    }
    ready_.notify_one();
    worker_.join();
  }

  std::size_t width_, capacity_;
  RecordBatch count_;
  std::vector<std::uint16_t> filling_, counting_;
  std::size_t filled_ = 0, counting_items_ = 0;
  std::mutex m_;
  std::condition_variable ready_, space_;
  bool full_ = false, closing_ = false;
  std::atomic<bool> stopped_{false};
  std::exception_ptr failure_;
  std::thread worker_;
};

}  // namespace melange::internal
