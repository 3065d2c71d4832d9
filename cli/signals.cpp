#include "signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstring>

namespace melange::cli::signals {
namespace {

constexpr int kSlots = 64;  // a command writes a handful of files at most

struct Slot {
  std::atomic<bool> used{false};
  char path[PATH_MAX]{};
};

Slot g_slots[kSlots];
std::atomic<bool> g_progress_shown{false};
std::atomic<bool> g_defer_interrupt{false};
std::atomic<int> g_interrupted{0};

extern "C" void on_signal(int sig) {
  if ((sig == SIGINT || sig == SIGTERM) && g_defer_interrupt.load(std::memory_order_acquire)) {
    g_interrupted.store(sig, std::memory_order_release);
    return;
  }
  // Only async-signal-safe calls from here on: unlink, write, _exit.
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) ::unlink(s.path);
  if (g_progress_shown.load(std::memory_order_acquire)) {
    static const char kClear[] = "\r\033[K";
    [[maybe_unused]] const auto ignored = ::write(STDERR_FILENO, kClear, sizeof kClear - 1);
  }
  ::_exit(128 + sig);
}

}  // namespace

void install() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;  // no SA_RESTART: a deferred SIGINT ends a blocked read
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) {
    // A signal the caller ignores (nohup, a shell's background job) stays ignored.
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

int watch_temp(const char* path) {
  if (std::strlen(path) >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.used.load(std::memory_order_relaxed)) continue;
    std::strcpy(s.path, path);
    s.used.store(true, std::memory_order_release);
    return i;
  }
  return -1;
}

void unwatch_temp(int slot) {
  if (slot >= 0 && slot < kSlots) g_slots[slot].used.store(false, std::memory_order_release);
}

void progress_shown(bool shown) { g_progress_shown.store(shown, std::memory_order_release); }

void defer_interrupt(bool defer) { g_defer_interrupt.store(defer, std::memory_order_release); }
int interrupted() { return g_interrupted.load(std::memory_order_acquire); }

}  // namespace melange::cli::signals
