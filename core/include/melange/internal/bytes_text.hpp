// A size in words for a message: "12.5 MiB", "1.20 GiB". One spelling for
// every limit message, the engine's and the front ends'.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace melange::internal {

inline std::string bytes_text(std::uint64_t b) {
  char buf[32];
  if (b >= (std::uint64_t{1} << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / 1073741824.0);
  else std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(b) / 1048576.0);
  return buf;
}

}  // namespace melange::internal
