// A one-line progress display on stderr, for terminals only: done/total,
// rate and time left, shown once a run has taken about a second, and cleared
// at the end. Silent when stderr is not a TTY or the user asked for quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace melange::cli {

class ProgressLine {
 public:
  // `unit` names what is counted: "trials", "subtrees".
  ProgressLine(std::string what, bool quiet, std::string unit = "trials");
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  // `now`, when given, names the step under way ("fisher-yates n 52 simd").
  void update(std::uint64_t done, std::uint64_t total, const std::string& now = {});
  void clear();

 private:
  std::string what_, unit_;
  bool enabled_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace melange::cli
