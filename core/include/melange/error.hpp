// Errors a caller can act on. UsageError means the request itself is wrong
// (the CLI exits 2); Error is anything else that stops a run (exit 1).
#pragma once

#include <stdexcept>
#include <string>

namespace melange {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace melange
