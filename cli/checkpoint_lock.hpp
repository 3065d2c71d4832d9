// One run a checkpoint: `--checkpoint FILE` takes an flock on FILE.lock
// beside it for the whole run, so that a second run given the same path is
// refused instead of overwriting the first one's saves. The lock goes with
// the process (a SIGKILL included). The holder removes the lock file when
// it lets go (a run that ends, or stops at a usage error), and a taker
// checks after locking that the path still names the file it locked, so
// that a file removed under it is never taken for the lock.
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
  CheckpointLock(CheckpointLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) { other.fd_ = -1; }
  CheckpointLock& operator=(CheckpointLock&& other) noexcept;
  CheckpointLock(const CheckpointLock&) = delete;
  CheckpointLock& operator=(const CheckpointLock&) = delete;

 private:
  int fd_ = -1;
  std::string path_;  // the lock file, removed when the lock goes
};

}  // namespace melange::cli
