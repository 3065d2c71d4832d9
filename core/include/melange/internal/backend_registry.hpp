// How the engine picks a backend; not part of the public API.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "melange/backend.hpp"

namespace melange::internal {

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string note;  // set when the job runs elsewhere than asked
};

// nullopt = auto. Throws Error when an explicitly requested backend is not
// available on this machine.
BackendChoice choose_backend(const Job& job, std::optional<BackendKind> requested);

}  // namespace melange::internal
