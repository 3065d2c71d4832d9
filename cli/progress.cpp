#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "format.hpp"

namespace melange::cli {

ProgressLine::ProgressLine(std::string what, bool quiet)
    : what_(std::move(what)), enabled_(!quiet && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < 1.0 || done >= total) return;
  const double rate = done / elapsed;
  const double left = rate > 0 ? (total - done) / rate : 0;
  std::fprintf(stderr, "\r\033[K%s %s / %s trials, %s/s, %s s left", what_.c_str(),
               grouped(done).c_str(), grouped(total).c_str(), general(rate, 3).c_str(),
               fixed(left, 0).c_str());
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace melange::cli
