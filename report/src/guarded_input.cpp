#include "guarded_input.hpp"

#include "melange/error.hpp"
#include "melange/report/format.hpp"

namespace melange::report {

GuardedJsonInput::int_type GuardedJsonInput::underflow() {
  const std::streamsize got = source_.sgetn(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  if (got <= 0) return traits_type::eof();
  check(buffer_.data(), buffer_.data() + got);
  setg(buffer_.data(), buffer_.data(), buffer_.data() + got);
  return traits_type::to_int_type(buffer_[0]);
}

void GuardedJsonInput::check(const char* begin, const char* end) {
  for (const char* p = begin; p != end; ++p) {
    const char c = *p;
    if (in_string_) {
      if (escaped_) escaped_ = false;
      else if (c == '\\') escaped_ = true;
      else if (c == '"') in_string_ = false;
      if (++string_bytes_ > kMaxString)
        throw UsageError(in_quotes(path_) + " has a string longer than " + std::to_string(kMaxString) +
                         " bytes, which no document of melange's holds: give the file melange wrote");
    } else if (c == '"') {
      in_string_ = true;
      string_bytes_ = 0;
    } else if (c == '[' || c == '{') {
      if (++depth_ > kMaxDepth)
        throw UsageError(in_quotes(path_) + " nests arrays or objects more than " + std::to_string(kMaxDepth) +
                         " deep, which no document of melange's does: give the file melange wrote");
    } else if (c == ']' || c == '}') {
      --depth_;
    }
  }
}

}  // namespace melange::report
