// Runs the melange executable the way a user would and captures what it says.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace melange::testing {

struct CliResult {
  int status = -1;   // exit status
  std::string out;   // stdout
  std::string err;   // stderr
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh scratch folder per call site.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("melange-test-" + name + "-" +
                                                       std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs a shell command line with stdin from /dev/null, capturing both streams.
inline CliResult run_shell(const std::string& command) {
  static int counter = 0;
  const auto dir = std::filesystem::temp_directory_path();
  const auto tag = std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const auto out = dir / ("melange-cli-out-" + tag), err = dir / ("melange-cli-err-" + tag);
  const std::string cmd = "(" + command + ") >" + out.string() + " 2>" + err.string() + " </dev/null";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = slurp(out);
  r.err = slurp(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// `args` is a shell-quoted argument string appended to the executable.
inline CliResult run_cli(const std::string& args) { return run_shell(MELANGE_CLI " " + args); }

inline int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace melange::testing
