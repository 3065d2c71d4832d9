// FNV-1a (Fowler, Noll, Vo), 64 bits: the one hash the project's files and
// fingerprints use where a value must be the same on every machine and
// build (std::hash need not be).
#pragma once

#include <cstdint>
#include <string_view>

namespace melange::internal {

inline constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325u, kFnvPrime = 0x100000001b3u;

// One value mixed into the hash.
constexpr std::uint64_t fnv1a_step(std::uint64_t h, std::uint64_t value) { return (h ^ value) * kFnvPrime; }

// The bytes of `text`, from `h`.
constexpr std::uint64_t fnv1a(std::string_view text, std::uint64_t h = kFnvOffset) {
  for (const char c : text) h = fnv1a_step(h, static_cast<unsigned char>(c));
  return h;
}

}  // namespace melange::internal
