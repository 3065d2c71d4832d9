// How the engine picks a backend for a job; not part of the public API.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "melange/backend.hpp"
#include "melange/engine.hpp"

namespace melange::internal {

struct BackendChoice {
  std::shared_ptr<const Backend> backend;
  std::string note;  // set when the job runs elsewhere than asked
};

// The backends a Context keeps, one per (backend, architecture), made on
// first use.
class ContextBackends {
 public:
  // The backend `make` makes for `key`, made once.
  std::shared_ptr<const Backend> get(const std::string& key, const std::function<std::unique_ptr<Backend>()>& make);
  // Backends made so far.
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Backend>> made_;
};

// `requested` is "auto", a backend's name, or an architecture's name. Throws
// UsageError for a name the table does not know, Error when the backend asked
// for is not available here. With a context, its backends (and what they
// built) are reused.
BackendChoice choose_backend(const Job& job, std::string_view requested, Context* context = nullptr);

}  // namespace melange::internal
