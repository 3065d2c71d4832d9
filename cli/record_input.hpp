// The records an audit reads from outside: the input itself (a file, a pipe
// or standard input, read ahead where its shape is inferred), the items'
// labels, and what the records say of their own shape where the flags did
// not (contract §4).
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "melange/error.hpp"
#include "melange/records.hpp"
#include "melange/record_shape.hpp"
#include "signals.hpp"

namespace melange::cli {

// --input as a file descriptor: a file or a pipe, or standard input for
// "-". Closed when it goes.
class InputFile {
 public:
  explicit InputFile(const std::string& path) {
    if (path == "-") return;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw UsageError("--input '" + path + "' is a folder; give a file of records or '-' for standard input");
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw UsageError("cannot read --input '" + path + "': " + std::error_code(errno, std::generic_category()).message());
    owned_ = true;
  }
  ~InputFile() {
    if (owned_) ::close(fd_);
  }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  // The input's first bytes, read ahead (and handed out again by read()):
  // up to `bytes`, or fewer once they hold `lines` whole lines or the input
  // ends, so that a slow pipe is not waited on for more than a few records.
  std::string_view peek(std::size_t bytes, std::size_t lines) {
    std::size_t newlines = 0;
    while (ahead_.size() < bytes && newlines < lines) {
      const std::size_t before = ahead_.size();
      ahead_.resize(bytes);
      const std::size_t got = read_fd(ahead_.data() + before, bytes - before);
      ahead_.resize(before + got);
      if (got == 0) {
        ended_ = true;
        break;
      }
      newlines += static_cast<std::size_t>(std::count(ahead_.begin() + static_cast<std::ptrdiff_t>(before), ahead_.end(), '\n'));
    }
    return ahead_;
  }

  // Whether peek() met the end of the input: its last line is whole even
  // without a line end.
  bool ended() const { return ended_; }

  // What read(2) gives, as it arrives (the bytes peeked first); 0 at the
  // end, or once SIGINT came.
  std::size_t read(char* buffer, std::size_t capacity) {
    if (served_ < ahead_.size()) {
      const std::size_t n = std::min(capacity, ahead_.size() - served_);
      std::memcpy(buffer, ahead_.data() + served_, n);
      served_ += n;
      return n;
    }
    return read_fd(buffer, capacity);
  }

 // Bytes [begin, end) of a regular file, read from wherever read() stands
  // (pread): an MPI rank's share of one file. 0 at `end`, or once SIGINT came.
  ByteSource range(std::uint64_t begin, std::uint64_t end) const {
    return [this, at = begin, end](char* buffer, std::size_t capacity) mutable -> std::size_t {
      for (;;) {
        if (signals::interrupted() || at >= end) return 0;
        const ssize_t got = ::pread(fd_, buffer, static_cast<std::size_t>(std::min<std::uint64_t>(capacity, end - at)),
                                    static_cast<off_t>(at));
        if (got >= 0) {
          at += static_cast<std::uint64_t>(got);
          return static_cast<std::size_t>(got);
        }
        if (errno != EINTR) throw Error("reading --input failed: " + std::error_code(errno, std::generic_category()).message());
      }
    };
  }
  // The size of a regular file; nullopt for a pipe or a device.
  std::optional<std::uint64_t> size() const {
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(st.st_size);
  }

 private:
  std::size_t read_fd(char* buffer, std::size_t capacity) const {
    for (;;) {
      if (signals::interrupted()) return 0;
      const ssize_t got = ::read(fd_, buffer, capacity);
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno != EINTR) throw Error("reading --input failed: " + std::error_code(errno, std::generic_category()).message());
    }
  }

  int fd_ = STDIN_FILENO;
  bool owned_ = false;
  std::string ahead_;       // bytes peeked
  bool ended_ = false;      // the peek reached the end of the input
  std::size_t served_ = 0;  // of them, handed out by read()
};

// --labels: "cards" (the 52 names 2c..As), a list ("Kh,2c,..."), or a
// FILE of them (whitespace or commas between), at most `max_bytes` of it.
// Each label once, and none holding what a record line gives another
// meaning ('#' starts a comment, ';' separates items).
std::vector<std::string> parse_labels(const std::string& arg, std::uint64_t max_bytes);

// What the records say of themselves where the flags did not
// (melange/record_shape.hpp), read ahead from the input.
void infer_record_shape(RecordShape& shape, InputFile& input, RecordFormat format);

}  // namespace melange::cli
