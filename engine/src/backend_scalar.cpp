// The scalar backend: the core's reference trial loop (trial.hpp), one trial
// at a time. Every other backend is checked against it bit for bit.
#include <memory>

#include "melange/backend.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

class ScalarBackend final : public Backend {
 public:
  std::string_view name() const override { return "scalar"; }
  bool supports(const Job&) const override { return true; }

  void run_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                 Tally& tally) const override {
    tally_trials(job, begin, end, tally);
  }

  void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                    std::uint16_t* out) const override {
    sample_trials(job, begin, end, out);
  }
};

}  // namespace

std::unique_ptr<Backend> make_scalar_backend() { return std::make_unique<ScalarBackend>(); }

}  // namespace melange
