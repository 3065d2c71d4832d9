// One run a checkpoint: `--checkpoint FILE` takes an flock on FILE.lock
// beside it for the whole run, so that a second run given the same path is
// refused instead of overwriting the first one's saves. The lock goes with
// the process (a SIGKILL included); the small lock file stays, empty.
#pragma once

#include <string>

namespace melange::cli {

class CheckpointLock {
 public:
  CheckpointLock() = default;
  // Throws UsageError when another process holds the lock, or when the lock
  // path is not a regular file.
  explicit CheckpointLock(const std::string& checkpoint);
  ~CheckpointLock();
  CheckpointLock(CheckpointLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  CheckpointLock& operator=(CheckpointLock&& other) noexcept;
  CheckpointLock(const CheckpointLock&) = delete;
  CheckpointLock& operator=(const CheckpointLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace melange::cli
