#include "checkpoint_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

#include "melange/error.hpp"

namespace melange::cli {
namespace {

// The file a path names: its links followed, a link to a file not made yet
// (the first save makes it) too, as far as the links go.
std::string resolved(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p = path;
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(p, ec); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  const fs::path whole = fs::weakly_canonical(p, ec);
  return ec ? p.string() : whole.string();
}

}  // namespace

CheckpointLock::CheckpointLock(const std::string& checkpoint) {
  // The lock belongs to the file, not to its spelling: a symlink to the
  // checkpoint, or another path to it, takes the same lock, beside the
  // file the saves replace.
  const std::string path = resolved(checkpoint) + ".lock";
  // A holder that lets go removes the file: one locked after that removal
  // is no longer the lock, and the open starts again.
  for (int tries = 0; tries < 100; ++tries) {
    // O_NONBLOCK: a FIFO planted at the lock's path does not hang the open.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw UsageError("cannot make the lock file '" + path + "' beside --checkpoint: " +
                       std::error_code(errno, std::generic_category()).message());
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      throw UsageError("'" + path + "' is not a regular file: --checkpoint keeps its lock there; remove it");
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int why = errno;
      ::close(fd);
      if (why == EWOULDBLOCK)
        throw UsageError("another melange run is saving to --checkpoint '" + checkpoint + "' (it holds '" + path +
                         "'): wait for it to end, or give another file");
      throw UsageError("cannot lock '" + path + "': " + std::error_code(why, std::generic_category()).message());
    }
    struct stat named {};
    if (::stat(path.c_str(), &named) == 0 && named.st_dev == st.st_dev && named.st_ino == st.st_ino) {
      fd_ = fd;
      path_ = path;
      return;
    }
    ::close(fd);  // removed by the holder before it let go: try the new one
  }
  throw UsageError("cannot take the lock '" + path + "': it keeps being replaced");
}

CheckpointLock::~CheckpointLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // while locked: no one takes the removed file for the lock
  ::close(fd_);             // closing drops the lock
}

CheckpointLock& CheckpointLock::operator=(CheckpointLock&& other) noexcept {
  std::swap(fd_, other.fd_);
  std::swap(path_, other.path_);
  return *this;
}

}  // namespace melange::cli
