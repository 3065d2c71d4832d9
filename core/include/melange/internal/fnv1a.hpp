// FNV-1a (Fowler, Noll, Vo), 64 bits: the one hash the project's files and
// fingerprints use where a value must be the same on every machine and
// build (std::hash need not be).
#pragma once

#include <bit>
#include <cstddef>
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

// 64-bit words mixed into `h` by xor, a rotation and an odd multiplier:
// every step is a bijection of the state, so a change to any one word
// always shows, and it depends on the order, so swapped words show too
// (the checkpoints' checksums over their counts).
constexpr std::uint64_t mix_words(std::uint64_t h, const std::uint64_t* words, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) h = std::rotl(h ^ words[i], 23) * 0x9e3779b97f4a7c15u;
  return h;
}

}  // namespace melange::internal
