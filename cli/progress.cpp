#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "melange/report/format.hpp"
#include "signals.hpp"

namespace melange::cli {

using namespace melange::report;

ProgressLine::ProgressLine(std::string what, bool quiet, std::string unit)
    : what_(std::move(what)), unit_(std::move(unit)), enabled_(!quiet && ::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(std::uint64_t done, std::uint64_t total, const std::string& now) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed < 1.0 || done >= total) return;
  const double rate = done / elapsed;
  const double left = rate > 0 ? (total - done) / rate : 0;
  shown_ = true;
  signals::progress_shown(true);
  std::fprintf(stderr, "\r\033[K%s %s / %s %s, %s/s, %s s left%s%s", what_.c_str(),
               grouped(done).c_str(), grouped(total).c_str(), unit_.c_str(),
               general(rate, 3).c_str(), done > 0 ? fixed(left, 0).c_str() : "?", now.empty() ? "" : ", now ",
               now.c_str());
  std::fflush(stderr);
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
  signals::progress_shown(false);
}

}  // namespace melange::cli
