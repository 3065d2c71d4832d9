// Errors a caller can act on. UsageError means the request itself is wrong
// (the CLI exits 2); Error is anything else that stops a run (exit 1).
//
// Both speak the library's language: they name the parameter at fault
// (Param) and write parameters in their messages as {name} tokens, the
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

enum class Param : std::uint8_t {
  none, n, trials, first, seed, threads, bits, method, range, backend, memory_cap,
  position_matrix, state_bits, deal, model, k, hand_histogram, poker_categories, weights, algorithm,
  base, skip_invalid, lags, serial, riffles, shelves, passes, labels, format, family,
};
// The last Param: messages read the tokens of every value up to it.
inline constexpr Param kLastParam = Param::family;
// The field's name, as written in messages: "trials", "memory_cap".
std::string_view param_name(Param p);

// Any error a run can stop with. Its message may name parameters as {n},
// {trials}, ... tokens (a UsageError's do; an Error's may, where what to do
// is to change a parameter: "use {backend} scalar").
class Error : public std::runtime_error {
 public:
  // A message with no parameter in it.
  explicit Error(const std::string& message);
  // `message` may name parameters as {n}, {trials}, ...; `param` is the one at fault.
  Error(Param param, std::string message);

  Param param() const { return param_; }
  // The message with each {name} token replaced by spell(param); a message
  // made without a parameter is given as it is (it may quote text, such as
  // a record, whose braces are no tokens).
  std::string render(const std::function<std::string(Param)>& spell) const;

 private:
  Param param_;
  std::string template_;  // empty for a message made without a parameter
};

// What a run throws when its caller asked it to stop (RunOptions::cancelled,
// or an exact walk's progress callback throwing it).
class Cancelled : public Error {
 public:
  Cancelled() : Error("stopped by the caller") {}
};


class UsageError : public Error {
 public:
  using Error::Error;
};

// Text with {n}, {trials}, ... tokens (a message, or words a library
// function hands on for the caller to print) with each replaced by
// spell(param); "{{" is a brace.
std::string spell_tokens(const std::string& text, const std::function<std::string(Param)>& spell);

// Text quoted into a message with {tokens} (a record, a path): "{{" stands
// for a brace, so that the text's own braces are never read as tokens.
std::string token_safe(std::string_view text);

}  // namespace melange
