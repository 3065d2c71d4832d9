// The scalar backend: the core's trial loop (trial.hpp), one trial at a time,
// with the sort one-liners at small n through their decision tables
// (decision_table.hpp). Every other backend is checked against the reference
// loop, tally_trials, bit for bit.
#include <memory>

#include "melange/backend.hpp"
#include "melange/decision_table.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

class ScalarBackend final : public Backend {
 public:
  std::string_view name() const override { return "scalar"; }
  bool supports(const Job&) const override { return true; }
  std::uint64_t scratch_bytes(const Job& job) const override {
    return tables_.bytes(job);
  }

  void run_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                 Tally& tally) const override {
    if (const auto table = tables_.get(job)) return tally_table_trials(job, table->view(), begin, end, tally);
    tally_trials(job, begin, end, tally);
  }

  void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                    std::uint16_t* out) const override {
    if (const auto table = tables_.get(job)) return sample_table_trials(job, table->view(), begin, end, out);
    sample_trials(job, begin, end, out);
  }

 private:
  DecisionTables tables_;  // built on first use, shared by the run's threads
};

}  // namespace

std::unique_ptr<Backend> make_scalar_backend() { return std::make_unique<ScalarBackend>(); }

}  // namespace melange
