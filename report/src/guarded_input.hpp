// JSON from a file melange may not have written (merge pieces, models),
// with the bounds that keep its parse small checked as the bytes are read,
// before the parser holds them: no string longer than a limit (the parser
// keeps a whole string in memory), no nesting deeper than a limit (a
// document's tree of arrays in arrays). Neither limit binds a document
// melange wrote: its strings are notes and names, and it nests three deep.
#pragma once

#include <array>
#include <cstddef>
#include <istream>
#include <streambuf>
#include <string>

namespace melange::report {

class GuardedJsonInput final : public std::streambuf {
 public:
  static constexpr std::size_t kMaxString = std::size_t{1} << 16;
  static constexpr int kMaxDepth = 32;

  // `path` names the file in the refusal (a UsageError thrown by the read).
  GuardedJsonInput(std::istream& source, std::string path) : source_(*source.rdbuf()), path_(std::move(path)) {}

 protected:
  int_type underflow() override;

 private:
  void check(const char* begin, const char* end);

  std::streambuf& source_;
  std::string path_;
  std::array<char, 1 << 16> buffer_{};
  bool in_string_ = false, escaped_ = false;
  std::size_t string_bytes_ = 0;
  int depth_ = 0;
};

}  // namespace melange::report
