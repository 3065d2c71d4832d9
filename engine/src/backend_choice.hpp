// How the engine picks a backend for a job; not part of the public API.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "melange/backend.hpp"

namespace melange::internal {

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string note;  // set when the job runs elsewhere than asked
};

// `requested` is "auto", a backend's name, or an architecture's name. Throws
// UsageError for a name the table does not know, Error when the backend asked
// for is not available here.
BackendChoice choose_backend(const Job& job, std::string_view requested);

}  // namespace melange::internal
