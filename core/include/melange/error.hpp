// Errors a caller can act on. UsageError means the request itself is wrong
// (the CLI exits 2); Error is anything else that stops a run (exit 1).
//
// A UsageError speaks the library's language: it names the parameter at
// fault (Param) and writes parameters in its message as {name} tokens, the
// names of the fields of Job, BoundedSpec and RunOptions. what() shows them
// as those names ("trials must be at least 1"); a front end renders them as
// its own spelling (the CLI: "--count must be at least 1").
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace melange {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a run throws when its caller asked it to stop (RunOptions::cancelled,
// or an exact walk's progress callback throwing it).
class Cancelled : public Error {
 public:
  Cancelled() : Error("stopped by the caller") {}
};

enum class Param : std::uint8_t {
  none, n, trials, first, seed, threads, bits, method, range, backend, memory_cap,
  position_matrix, state_bits, deal, model, k, hand_histogram, poker_categories, weights, algorithm,
  base,
};
// The field's name, as written in messages: "trials", "memory_cap".
std::string_view param_name(Param p);

class UsageError : public Error {
 public:
  // A message with no parameter in it.
  explicit UsageError(const std::string& message);
  // `message` may name parameters as {n}, {trials}, ...; `param` is the one at fault.
  UsageError(Param param, std::string message);

  Param param() const { return param_; }
  // The message with each {name} token replaced by spell(param).
  std::string render(const std::function<std::string(Param)>& spell) const;

 private:
  Param param_ = Param::none;
  std::string template_;
};

}  // namespace melange
