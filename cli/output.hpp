// Where results go: stdout, or files written whole (temporary file, then
// rename) so that a failed run never leaves a half-written file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace melange::cli {

using Json = nlohmann::ordered_json;

// Writes `content` to `path` atomically; "-" means stdout.
void write_output(const std::string& path, const std::string& content);

// The fields every JSON result starts with.
nlohmann::ordered_json json_header(const std::string& command);

// Writes `doc` (pretty-printed) to `path` when it is not empty.
void emit_json(const std::string& path, const nlohmann::ordered_json& doc);

std::string hex32(std::uint32_t w);

// DIR/index.html, creating DIR when needed.
std::string report_page(const std::string& dir);

}  // namespace melange::cli
