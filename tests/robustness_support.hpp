// The harness of the robustness suites: runs `melange` as a subprocess in a
// scratch folder with its stdin from an empty file, and records its status,
// output and peak memory; snapshots folders to show nothing changed.
#pragma once

#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "cli_support.hpp"

namespace melange::testing {

namespace fs = std::filesystem;

struct ChildRun {
  int status = -1;
  std::string out, err;
  long peak_kb = 0;  // peak resident memory of the child, from wait4
};

// Runs `command` with /bin/sh in `dir`, stdin from an empty file; stdout and
// stderr go to files outside `dir`. `during(pid)` runs while it does.
inline ChildRun run_in(const fs::path& dir, const std::string& command,
           const std::function<void(pid_t)>& during = {}) {
  static int counter = 0;
  const fs::path io = fs::temp_directory_path() /
                      ("melange-robust-io-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(io);
  const std::string out = (io / "out").string(), err = (io / "err").string();
  // The child's peak memory starts at this process's resident size when it
  // forks (Linux carries it across exec): hand freed memory back first.
  ::malloc_trim(0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group, so that a signal reaches it alone
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int in = ::open((io / "in").c_str(), O_RDONLY | O_CREAT, 0600);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(in, 0);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  if (during) during(pid);
  int raw = 0;
  struct rusage ru {};
  ::wait4(pid, &raw, 0, &ru);
  ChildRun r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(out);
  r.err = slurp(err);
  r.peak_kb = ru.ru_maxrss;
  fs::remove_all(io);
  return r;
}

inline const std::string kCli = MELANGE_CLI;

// Everything observable about a folder's entries: type, size, mode, link
// target, content.
inline std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> s;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    struct stat st {};
    ::lstat(e.path().c_str(), &st);
    std::ostringstream v;
    v << st.st_mode << ' ' << st.st_size;
    if (S_ISLNK(st.st_mode)) v << " -> " << fs::read_symlink(e.path()).string();
    else if (S_ISREG(st.st_mode)) v << ' ' << slurp(e.path());
    s[fs::relative(e.path(), dir).string()] = v.str();
  }
  return s;
}

// A scratch folder holding files a careless program could damage.
inline fs::path furnished(const std::string& name) {
  const fs::path dir = scratch_dir("robust-" + name);
  std::ofstream(dir / "keep.json") << "{\"mine\": true}\n";
  std::ofstream(dir / "afile") << "not a folder\n";
  std::ofstream(dir / "records.txt") << "0 1 2 3\n3 2 1 0\n1 0 3 2\n";
  fs::create_directory(dir / "sub");
  return dir;
}

}  // namespace melange::testing
