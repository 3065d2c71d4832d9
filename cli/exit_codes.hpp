// The exit statuses of the melange program, in one place (the README, the
// "Exit status" section of docs/scaling.md and every command's --help say
// the same).
#pragma once

namespace melange::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntime = 1;   // a failed write, no device, out of memory
inline constexpr int kExitUsage = 2;     // the request is wrong; found before any work
inline constexpr int kExitBiased = 3;    // audit --fail-on-bias: a test FAILed after Holm
inline constexpr int kExitDisagrees = 3; // reproduce: some claim did not agree
// Stopped by signal N: 128 + N (signals.hpp).

}  // namespace melange::cli
