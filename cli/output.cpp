#include "output.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "melange/version.hpp"

namespace melange::cli {

void write_output(const std::string& path, const std::string& content) {
  if (path == "-") {
    std::cout << content << std::flush;
    return;
  }
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (fs::is_directory(target)) throw UsageError("output path '" + path + "' is a directory");
  const fs::path tmp = target.string() + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw Error("cannot write '" + path + "': check that its folder exists and is writable");
    out << content;
    out.close();
    if (!out) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw Error("writing '" + path + "' failed (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error("cannot replace '" + path + "': " + ec.message());
  }
}

nlohmann::ordered_json json_header(const std::string& command) {
  nlohmann::ordered_json j;
  j["melange_version"] = kVersion;
  j["stream_version"] = kStreamVersion;
  j["command"] = command;
  return j;
}

void emit_json(const std::string& path, const nlohmann::ordered_json& doc) {
  if (!path.empty()) write_output(path, doc.dump(2) + "\n");
}

std::string hex32(std::uint32_t w) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", w);
  return buf;
}

std::string report_page(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw Error("cannot create report folder '" + dir + "': " + ec.message());
  return (std::filesystem::path(dir) / "index.html").string();
}

}  // namespace melange::cli
