// Where results go (contract §7). A command declares every output
// before it does any work, so that a bad one is refused at once; it writes
// them after the work, and commits them together at the end:
//
// - a regular file, or a path that does not exist yet, is written to a short
//   temporary file in the target's real folder (symlinks resolved: the link
//   stays, its target is replaced), given the mode of the file it replaces,
//   and renamed into place by commit();
// - anything else (/dev/null, /dev/stdout, a FIFO, a device) is written
//   directly, never replaced;
// - "-" is standard output, and serves at most one output.
//
// Temporary files that are not committed are removed, on an error and on a
// signal alike.
#pragma once

#include <sys/types.h>

#include <cerrno>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "melange/report/format.hpp"
#include "melange/report/json.hpp"

namespace melange::cli {

// The CLI composes the report library's documents and speaks its formats:
// their names are the CLI's own.
using namespace melange::report;

// A file written through a buffer that keeps the errno of its first failed
// write: a stream only knows that it failed, and by the time the failure is
// reported errno speaks of other calls.
class OutputFile : public std::ostream {
 public:
  OutputFile(const std::string& path, std::ios::openmode mode);
  bool is_open() const { return buffer_.is_open(); }
  // Flushes and closes; false when any write failed.
  bool close();
  // The errno of the first failed write, or 0.
  int error() const { return buffer_.error(); }

 private:
  class Buffer : public std::filebuf {
   public:
    int error() const { return error_; }

   protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override;

   private:
    void note(bool failed) {
      if (failed && error_ == 0) error_ = errno;
    }
    int error_ = 0;
  };
  Buffer buffer_;
};

class Outputs {
 public:
  Outputs();
  ~Outputs();
  Outputs(const Outputs&) = delete;
  Outputs& operator=(const Outputs&) = delete;

  // Checks `path` as the target of option `flag` and remembers it: a folder,
  // a missing or read-only folder, a name too long, or a path another output
  // already has, throws UsageError. An empty `path` means the option was not
  // given (the CLI refuses empty values while parsing) and declares nothing.
  void declare(const std::string& flag, const std::string& path);
  // --report DIR: DIR is a folder or can be made in an existing one; returns
  // DIR/index.html, declared. The folder is made when the page is opened.
  std::string declare_report(const std::string& flag, const std::string& dir);

  // `path` is read by this run (option `flag`): an output declared on the
  // same file would replace what is being read, and throws UsageError.
  void refuse_reading(const std::string& flag, const std::string& path) const;

  // The stream to write a declared output to.
  std::ostream& open(const std::string& path);
  void write(const std::string& path, const std::string& content) { open(path) << content; }

  // Flushes standard output and every file, and renames the temporary files
  // into place; throws Error naming the output that could not be written.
  void commit();

 private:
  enum class Kind { standard_output, replace, direct };
  struct Target {
    std::string flag, path;
    Kind kind = Kind::replace;
    std::filesystem::path real;       // the file that ends up written
    bool make_folder = false;         // --report's folder, made at open()
    bool keep_mode = false;           // replacing a file: give the new one its mode
    mode_t mode = 0;
    std::unique_ptr<OutputFile> stream;
    std::string temp;                 // temporary file, while not committed
    int signal_slot = -1;
  };
  Target& find(const std::string& path);
  void add(Target t);
  void discard(Target& t);

  std::vector<Target> targets_;
  mode_t umask_ = 022;
};

// Flushes standard output; throws Error when something written to it was lost
// (a full disk, a closed descriptor).
// Puts std::cout on a buffer of melange's own that keeps the errno of the
// first failed write, for check_stdout to say why. Once, first in main.
void use_stdout_buffer();

// `write_errno`: the errno of a write the caller saw fail, said when the
// flush has none of its own.
void check_stdout(int write_errno = 0);

std::string hex32(std::uint32_t w);

}  // namespace melange::cli
