#include "stdin_check.hpp"

#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "melange/error.hpp"

namespace melange::cli {
namespace {

// How long an open pipe that holds nothing yet is watched: a producer such
// as `cat` writes within a few milliseconds of its start.
constexpr int kPipeWaitMs = 100;

bool data_waits() {
  struct stat st {};
  if (::fstat(STDIN_FILENO, &st) != 0) return false;  // closed
  if (S_ISREG(st.st_mode)) {
    const off_t at = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
    return at >= 0 && at < st.st_size;
  }
  if (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) return false;  // terminal, device
  struct pollfd p {STDIN_FILENO, POLLIN, 0};
  if (::poll(&p, 1, kPipeWaitMs) <= 0) return false;  // nothing came: an idle pipe
  int ready = 0;
  // POLLIN with no bytes is an end of file: the writer closed an empty pipe.
  return (p.revents & POLLIN) && ::ioctl(STDIN_FILENO, FIONREAD, &ready) == 0 && ready > 0;
}

}  // namespace

void refuse_unread_stdin() {
  if (data_waits())
    throw UsageError("standard input holds data, and this command does not read it: to audit those records, "
                     "use 'melange audit -' (n is read from the records; --n and --k for deals)");
}

}  // namespace melange::cli
