// A saved state as 64-bit words (StreamTally::save, RecordAuditor::save):
// written in a fixed order, read back in the same order, every length
// checked before it is used, so that damaged words are refused with an
// Error rather than read past their end.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "melange/error.hpp"

namespace melange::internal {

class StateWriter {
 public:
  explicit StateWriter(std::vector<std::uint64_t>& out) : out_(out) {}
  void word(std::uint64_t w) { out_.push_back(w); }
  // A length, then the words.
  void words(const std::vector<std::uint64_t>& v) {
    word(v.size());
    out_.insert(out_.end(), v.begin(), v.end());
  }
  // A length in items, then the 16-bit items four a word.
  void items(const std::vector<std::uint16_t>& v) {
    word(v.size());
    for (std::size_t i = 0; i < v.size(); i += 4) {
      std::uint64_t w = 0;
      for (std::size_t j = 0; j < 4 && i + j < v.size(); ++j) w |= std::uint64_t{v[i + j]} << (16 * j);
      word(w);
    }
  }

 private:
  std::vector<std::uint64_t>& out_;
};

class StateReader {
 public:
  // `what` names the state in errors ("a stream tally's state").
  StateReader(std::span<const std::uint64_t> in, std::string what) : in_(in), what_(std::move(what)) {}
  std::uint64_t word() {
    if (at_ == in_.size()) fail("it is cut short");
    return in_[at_++];
  }
  // A word that must be `expected`; `field` names it in the error.
  void expect(std::uint64_t expected, const char* field) {
    if (word() != expected) fail(std::string("its ") + field + " differs from this audit's");
  }
  // A length, which must be `expected` (or at most `most` when expected is
  // unknown), then as many words.
  std::vector<std::uint64_t> words(std::uint64_t most) {
    const std::uint64_t size = word();
    if (size > most || size > in_.size() - at_) fail("a length in it is out of range");
    std::vector<std::uint64_t> v(in_.begin() + static_cast<std::ptrdiff_t>(at_),
                                 in_.begin() + static_cast<std::ptrdiff_t>(at_ + size));
    at_ += size;
    return v;
  }
  void words_into(std::vector<std::uint64_t>& v) {
    if (word() != v.size()) fail("a table in it has another size than this audit's");
    for (std::uint64_t& w : v) w = word();
  }
  std::vector<std::uint16_t> items(std::uint64_t most) {
    const std::uint64_t size = word();
    if (size > most || (size + 3) / 4 > in_.size() - at_) fail("a length in it is out of range");
    std::vector<std::uint16_t> v(size);
    for (std::size_t i = 0; i < size; i += 4) {
      const std::uint64_t w = word();
      for (std::size_t j = 0; j < 4 && i + j < size; ++j) v[i + j] = static_cast<std::uint16_t>(w >> (16 * j));
    }
    return v;
  }
  bool done() const { return at_ == in_.size(); }
  std::size_t at() const { return at_; }
  [[noreturn]] void fail(const std::string& why) const { throw Error(what_ + " cannot be read: " + why); }

 private:
  std::span<const std::uint64_t> in_;
  std::string what_;
  std::size_t at_ = 0;
};

}  // namespace melange::internal
