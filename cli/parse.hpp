// Parsing of the CLI's numeric arguments, with messages a user can act on.
#pragma once

#include <cstdint>
#include <string>

namespace melange::cli {

// A non-negative integer count: "1000000", "1e6" or "2.5e6" (must be whole).
// Throws UsageError naming `flag` when the text is not one or exceeds `max`.
std::uint64_t parse_count(const std::string& text, const std::string& flag, std::uint64_t max);

// A number of bytes: a count as parse_count reads it, or one with a size
// suffix K, M, G or T (powers of 1024, as sort -S and ulimit read them;
// "KB", "KiB" and lower case too): "2G", "512M", "1.5G".
std::uint64_t parse_bytes(const std::string& text, const std::string& flag);

// A 64-bit seed, decimal or 0x-prefixed hexadecimal.
std::uint64_t parse_seed(const std::string& text, const std::string& flag = "--seed");

// A 64-bit index (the first trial, a stream): as a seed, or in 1e6
// notation as a count, so that --first 1e6 follows --trials 1e6.
std::uint64_t parse_index(const std::string& text, const std::string& flag);

}  // namespace melange::cli
