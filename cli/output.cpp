#include "output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "melange/version.hpp"
#include "signals.hpp"

namespace melange::cli {
namespace fs = std::filesystem;

namespace {

// The folder a new file at `p` would go in, as an absolute path.
fs::path folder_of(const fs::path& p) {
  const fs::path parent = fs::absolute(p).parent_path();
  return parent.empty() ? fs::path("/") : parent;
}

bool under_system_folder(const std::string& path) {
  return path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
}

// The real file a path names, every symlink resolved, including a dangling
// one's target (which is then created, leaving the link in place).
fs::path resolve(const fs::path& p) {
  fs::path at = fs::absolute(p);
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(at, ec)); ++hops) {
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) break;
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
  fs::path real = fs::weakly_canonical(at, ec);
  return ec ? at.lexically_normal() : real;
}

std::string error_text(int err) { return err ? std::strerror(err) : "the system gave no reason"; }

// Temporaries are ".melange-PID-XXXXXX": a process killed while it wrote
// one (SIGKILL, a power cut) leaves it behind.
const std::string kTempPrefix = ".melange-";

// Removes the temporaries in `folder` of processes that no longer run.
// A live process with that id (another program, after the id came round
// again) keeps its file: only a file nobody can be writing goes.
void remove_stale_temporaries(const fs::path& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(kTempPrefix, 0) != 0) continue;
    const std::size_t dash = name.find('-', kTempPrefix.size());
    if (dash == std::string::npos || dash == kTempPrefix.size() || name.size() != dash + 7) continue;
    const std::string pid_text = name.substr(kTempPrefix.size(), dash - kTempPrefix.size());
    if (pid_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 9) continue;
    const auto pid = static_cast<pid_t>(std::stol(pid_text));
    std::error_code regular;
    if (pid == ::getpid() || !it->is_regular_file(regular)) continue;
    if (::kill(pid, 0) != 0 && errno == ESRCH) ::unlink(it->path().c_str());
  }
}

// `flag` names `what` (as given), to be written in the existing folder `folder`.
void require_writable_folder(const std::string& flag, const std::string& what, const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw UsageError(flag + " " + in_quotes(what) + ": the folder " + in_quotes(folder.string()) +
                     " does not exist; create it first");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw UsageError(flag + " " + in_quotes(what) + ": cannot write in the folder " +
                     in_quotes(folder.string()) + "; choose a writable one");
}

}  // namespace

OutputFile::OutputFile(const std::string& path, std::ios::openmode mode) : std::ostream(nullptr) {
  rdbuf(&buffer_);
  if (!buffer_.open(path, mode | std::ios::out)) setstate(std::ios::failbit);
}

bool OutputFile::close() {
  const bool flushed = static_cast<bool>(flush());
  const bool closed = buffer_.close() != nullptr;
  if (!flushed || !closed) setstate(std::ios::failbit);
  return !fail();
}

OutputFile::Buffer::int_type OutputFile::Buffer::overflow(int_type c) {
  errno = 0;
  const int_type r = std::filebuf::overflow(c);
  note(traits_type::eq_int_type(r, traits_type::eof()));
  return r;
}

std::streamsize OutputFile::Buffer::xsputn(const char* s, std::streamsize n) {
  errno = 0;
  const std::streamsize r = std::filebuf::xsputn(s, n);
  note(r < n);
  return r;
}

int OutputFile::Buffer::sync() {
  errno = 0;
  const int r = std::filebuf::sync();
  note(r != 0);
  return r;
}

Outputs::Outputs() {
  // umask can only be read by setting it; put it straight back.
  umask_ = ::umask(0);
  ::umask(umask_);
}

Outputs::~Outputs() {
  for (Target& t : targets_) discard(t);
}

void Outputs::discard(Target& t) {
  if (t.stream) t.stream->close();
  if (!t.temp.empty()) {
    ::unlink(t.temp.c_str());
    t.temp.clear();
  }
  signals::unwatch_temp(t.signal_slot);
  t.signal_slot = -1;
}

void Outputs::add(Target t) {
  for (const Target& o : targets_) {
    if (t.kind == Kind::standard_output && o.kind == Kind::standard_output)
      throw UsageError("'-' (standard output) can serve one output only, but " + o.flag + " and " +
                       t.flag + " both name it; write one of them to a file");
    if (t.kind != Kind::standard_output && o.kind != Kind::standard_output && t.real == o.real)
      throw UsageError(o.flag + " and " + t.flag + " both write " + in_quotes(t.path) +
                       "; give each output its own file");
  }
  targets_.push_back(std::move(t));
}

// Why `path` cannot be looked at, for the errors stat(2) gives other than
// "no such file": a loop of symlinks (never replaced), a path too long, a
// working folder that was removed.
void require_usable_path(const std::string& flag, const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 || errno == ENOENT) {
    if (path.front() != '/' && errno == ENOENT) {
      std::error_code ec;
      if (fs::current_path(ec).empty() || ec) throw UsageError(flag + " " + in_quotes(path) + ": the working folder no longer exists; cd to one that does");
    }
    return;
  }
  if (errno == ELOOP)
    throw UsageError(flag + " " + in_quotes(path) + " is a loop of symbolic links; name a file");
  if (errno == ENAMETOOLONG)
    throw UsageError(flag + " " + in_quotes(path.substr(0, 40) + "...") + ": the path is longer than the system allows (" +
                     std::to_string(PATH_MAX) + " bytes, or " + std::to_string(NAME_MAX) + " a name)");
  throw UsageError(flag + " " + in_quotes(path) + ": " + std::strerror(errno));
}

void Outputs::declare(const std::string& flag, const std::string& path) {
  if (path.empty()) return;
  Target t;
  t.flag = flag;
  t.path = path;
  if (path == "-") {
    t.kind = Kind::standard_output;
    add(std::move(t));
    return;
  }
  require_usable_path(flag, path);
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;  // follows symlinks
  if (exists && S_ISDIR(st.st_mode))
    throw UsageError(flag + " " + in_quotes(path) + " is a folder; name a file");
  if (under_system_folder(path) || (exists && !S_ISREG(st.st_mode))) {
    // /dev/null, /dev/stdout, a FIFO, a device: written in place, never replaced.
    if (!exists) throw UsageError(flag + " " + in_quotes(path) + " does not exist");
    if (::access(path.c_str(), W_OK) != 0)
      throw UsageError(flag + " " + in_quotes(path) + " is not writable");
    t.kind = Kind::direct;
    t.real = resolve(path);
    add(std::move(t));
    return;
  }
  t.kind = Kind::replace;
  t.real = resolve(path);
  if (t.real.filename().string().size() > NAME_MAX)
    throw UsageError(flag + " " + in_quotes(path) + ": the file name is longer than " +
                     std::to_string(NAME_MAX) + " characters");
  if (exists) {
    t.keep_mode = true;
    t.mode = st.st_mode & 07777;
  }
  require_writable_folder(flag, path, folder_of(t.real));
  add(std::move(t));
}

std::string Outputs::declare_report(const std::string& flag, const std::string& dir) {
  if (dir.empty()) return "";
  require_usable_path(flag, dir);
  std::error_code ec;
  const fs::path real = resolve(dir);
  const auto status = fs::status(real, ec);
  Target t;
  t.flag = flag;
  t.kind = Kind::replace;
  if (fs::exists(status)) {
    if (!fs::is_directory(status))
      throw UsageError(flag + " " + in_quotes(dir) + " is a file; name a folder for the report");
    require_writable_folder(flag, dir, real);
    struct stat st {};
    if (::stat((real / "index.html").c_str(), &st) == 0) {
      if (!S_ISREG(st.st_mode))
        throw UsageError(flag + " " + in_quotes(dir) + ": index.html there is not a regular file");
      t.keep_mode = true;
      t.mode = st.st_mode & 07777;
    }
  } else {
    require_writable_folder(flag, dir, folder_of(real));
    t.make_folder = true;
  }
  t.path = (fs::path(dir) / "index.html").string();
  t.real = real / "index.html";
  const std::string page = t.path;
  add(std::move(t));
  return page;
}

Outputs::Target& Outputs::find(const std::string& path) {
  for (Target& t : targets_)
    if (t.path == path) return t;
  throw Error("internal: output " + in_quotes(path) + " was not declared");
}

void Outputs::refuse_reading(const std::string& flag, const std::string& path) const {
  std::error_code ec;
  for (const Target& t : targets_)
    if (t.kind != Kind::standard_output && std::filesystem::equivalent(t.real, path, ec))
      throw UsageError(t.flag + " '" + t.path + "' is the file " + flag + " reads: it would be replaced by the "
                       "output; write the output to another file");
}

std::ostream& Outputs::open(const std::string& path) {
  Target& t = find(path);
  if (t.kind == Kind::standard_output) return std::cout;
  if (t.stream) return *t.stream;
  if (t.kind == Kind::direct) {
    t.stream = std::make_unique<OutputFile>(t.path, std::ios::binary);
    if (!*t.stream) throw Error("cannot open " + in_quotes(t.path) + " for " + t.flag + ": " + error_text(errno));
    return *t.stream;
  }
  const fs::path folder = folder_of(t.real);
  if (t.make_folder) {
    std::error_code ec;
    fs::create_directory(folder, ec);
    if (ec && !fs::is_directory(folder))
      throw Error("cannot make the folder " + in_quotes(folder.string()) + ": " + ec.message());
  }
  remove_stale_temporaries(folder);
  // A short name, so that a target's name near the length limit still fits;
  // it carries this process's id, so that a later run can tell it is stale.
  std::string name = (folder / (kTempPrefix + std::to_string(::getpid()) + "-XXXXXX")).string();
  // A signal between mkstemp and watch_temp would leave the file behind:
  // the signals that remove temporaries wait until it is watched.
  sigset_t removing, before;
  sigemptyset(&removing);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&removing, sig);
  ::pthread_sigmask(SIG_BLOCK, &removing, &before);
  const int fd = ::mkstemp(name.data());
  const int made = errno;
  if (fd >= 0) t.signal_slot = signals::watch_temp(name.c_str());
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (fd < 0)
    throw Error("cannot write a temporary file in " + in_quotes(folder.string()) + " for " + t.flag +
                ": " + error_text(made));
  t.temp = name;
  // mkstemp makes 0600; the file gets the mode a new file would have, or the
  // mode of the file it replaces.
  ::fchmod(fd, t.keep_mode ? t.mode : (0666 & ~umask_));
  ::close(fd);
  t.stream = std::make_unique<OutputFile>(t.temp, std::ios::binary | std::ios::trunc);
  if (!*t.stream) throw Error("cannot write " + in_quotes(t.temp) + ": " + error_text(errno));
  return *t.stream;
}

void Outputs::commit() {
  check_stdout();
  for (Target& t : targets_) {
    if (!t.stream) continue;
    errno = 0;
    const bool closed = t.stream->close();
    const int why = t.stream->error() ? t.stream->error() : errno;
    if (!closed) throw Error("writing " + in_quotes(t.path) + " (" + t.flag + ") failed: " + error_text(why));
  }
  for (Target& t : targets_) {
    if (t.temp.empty()) continue;
    if (::rename(t.temp.c_str(), t.real.c_str()) != 0)
      throw Error("cannot put " + in_quotes(t.path) + " (" + t.flag + ") in place: " + error_text(errno));
    t.temp.clear();
    signals::unwatch_temp(t.signal_slot);
    t.signal_slot = -1;
  }
}

namespace {

// Standard output's buffer: write(2) in pieces of 64 KB, keeping the errno
// of the first write that failed, which a later flush no longer has.
class StdoutBuffer final : public std::streambuf {
 public:
  StdoutBuffer() { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n < epptr() - pptr()) {
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    return drain() && write_all(s, n) ? n : 0;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const bool ok = write_all(pbase(), pptr() - pbase());
    setp(buffer_, buffer_ + sizeof buffer_);
    return ok;
  }
  bool write_all(const char* s, std::streamsize n) {
    while (n > 0) {
      const ssize_t w = ::write(STDOUT_FILENO, s, static_cast<std::size_t>(n));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        if (error_ == 0) error_ = w < 0 ? errno : EIO;
        return false;
      }
      s += w;
      n -= w;
    }
    return true;
  }
  char buffer_[1 << 16];
  int error_ = 0;
};

}  // namespace

void use_stdout_buffer() {
  // Never destroyed: std::cout is flushed after main returns, when a buffer
  // with a static's lifetime could already be gone.
  if (!dynamic_cast<StdoutBuffer*>(std::cout.rdbuf())) std::cout.rdbuf(new StdoutBuffer);
}

void check_stdout(int write_errno) {
  errno = 0;
  std::cout.flush();
  if (std::cout) return;
  int why = errno ? errno : write_errno;
  if (const auto* buffer = dynamic_cast<const StdoutBuffer*>(std::cout.rdbuf()); why == 0 && buffer)
    why = buffer->error();
  // An earlier write failed and its errno is gone: a reader that went away
  // still shows on the descriptor.
  struct pollfd p {STDOUT_FILENO, POLLOUT, 0};
  if (why == 0 && ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR)) why = EPIPE;
  throw Error("writing to standard output failed: " + error_text(why));
}

std::string hex32(std::uint32_t w) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", w);
  return buf;
}

}  // namespace melange::cli
