#include "checkpoint_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <utility>

#include "melange/error.hpp"

namespace melange::cli {

CheckpointLock::CheckpointLock(const std::string& checkpoint) {
  const std::string path = checkpoint + ".lock";
  // O_NONBLOCK: a FIFO planted at the lock's path does not hang the open.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
  if (fd_ < 0)
    throw UsageError("cannot make the lock file '" + path + "' beside --checkpoint: " +
                     std::error_code(errno, std::generic_category()).message());
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw UsageError("'" + path + "' is not a regular file: --checkpoint keeps its lock there; remove it");
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    ::close(fd_);
    fd_ = -1;
    if (why == EWOULDBLOCK)
      throw UsageError("another melange run is saving to --checkpoint '" + checkpoint + "' (it holds '" + path +
                       "'): wait for it to end, or give another file");
    throw UsageError("cannot lock '" + path + "': " + std::error_code(why, std::generic_category()).message());
  }
}

CheckpointLock::~CheckpointLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the lock
}

CheckpointLock& CheckpointLock::operator=(CheckpointLock&& other) noexcept {
  std::swap(fd_, other.fd_);
  return *this;
}

}  // namespace melange::cli
