#include "melange/engine.hpp"

#include <algorithm>

#include "melange/error.hpp"
#include "melange/serve.hpp"
#include "backend_choice.hpp"
#include "parallel_chunks.hpp"
#include "tally_workers.hpp"

namespace melange {
namespace internal {

WorkerPlan plan_for(const Job& job, const RunOptions& options, const Backend& backend) {
  const std::uint64_t per_worker = tally_bytes(job) + backend.scratch_bytes(job);
  if (per_worker > options.memory_cap)
    throw UsageError(Param::memory_cap, "the tallies of n = " + std::to_string(job.n) + " take " + bytes_text(per_worker) +
                     ", more than the " + bytes_text(options.memory_cap) +
                     " the memory cap leaves them; raise {memory_cap}" +
                     (job.tallies.has(TallyKind::ranks) ? ", or tally only the item x position matrix ({position_matrix})"
                                                        : ""));
  const int wanted = std::min(options.threads, backend.max_workers());
  const std::uint64_t fit = per_worker ? options.memory_cap / per_worker : ~std::uint64_t{0};
  WorkerPlan plan;
  plan.workers = static_cast<int>(std::min<std::uint64_t>(wanted, fit));
  plan.bytes = per_worker * plan.workers;
  if (plan.workers < wanted)
    plan.note = std::to_string(plan.workers) + " of " + std::to_string(wanted) +
                " threads: each holds " + bytes_text(per_worker) + " of tallies and the memory cap leaves them " +
                bytes_text(options.memory_cap);
  return plan;
}

void zero(Tally& t) {
  for (TallyCounts& counts : t.by_kind) std::fill(counts.counts().begin(), counts.counts().end(), 0);
  t.trials = t.words = t.draws = 0;
}

TallyWorkers::TallyWorkers(const Job& job, const RunOptions& options)
    : job_(job), choice_((validate(job), check_threads(options.threads), choose_backend(job, options.backend, options.context))),
      plan_(plan_for(job, options, *choice_.backend)), cancelled_(options.cancelled), tallies_(plan_.workers) {}

void TallyWorkers::run(std::uint64_t first, std::uint64_t count,
                       const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  if (count == 0) return;
  parallel_chunks(first, count, plan_.workers, chunk_trials(count, plan_.workers, choice_.backend->preferred_chunk(job_)),
                  progress, cancelled_, [&](std::uint64_t b, std::uint64_t e, int w) {
                    // Each worker makes its tally on its first unit: the
                    // workers first-touch their pages at once, and one that
                    // gets no unit holds no memory.
                    if (!tallies_[w]) tallies_[w] = Tally::for_job(job_);
                    choice_.backend->run_range(job_, b, e, *tallies_[w]);
                  });
}

void TallyWorkers::fold_into(Tally& total) {
  for (std::optional<Tally>& t : tallies_)
    if (t) {
      total.merge(*t);
      zero(*t);
    }
}

RunResult TallyWorkers::result() && {
  std::optional<Tally> total;
  for (std::optional<Tally>& t : tallies_)
    if (t && !total) total = std::move(*t);
    else if (t) total->merge(*t);
  if (!total) total = Tally::for_job(job_);  // no trials
  return RunResult{std::move(*total), std::string(choice_.backend->name()), choice_.backend->arch(),
                   choice_.note, plan_.workers, plan_.note};
}

}  // namespace internal

Context::Context() : backends_(std::make_unique<internal::ContextBackends>()) {}
Context::~Context() = default;

WorkerPlan plan_workers(const Job& job, const RunOptions& options) {
  validate(job);
  internal::check_threads(options.threads);
  const internal::BackendChoice choice = internal::choose_backend(job, options.backend, options.context);
  return internal::plan_for(job, options, *choice.backend);
}

RunResult run(const Job& job, const RunOptions& options) {
  internal::TallyWorkers workers(job, options);
  workers.run(job.first, job.trials, options.progress);
  return std::move(workers).result();
}

SampleResult sample(const Job& job, const RunOptions& options) {
  using internal::bytes_text;
  validate_draws(job);
  // The buffer is trials x k items of 2 bytes (k = n for permutations);
  // check by division, not by a product that could wrap.
  const auto width = static_cast<std::uint64_t>(record_items(job));
  if (job.trials > options.memory_cap / 2 / width)
    throw UsageError(Param::memory_cap, "a sample of " + std::to_string(job.trials) +
                     (is_deal(job) ? " deals of " + std::to_string(width) + " of " : " permutations of ") +
                     std::to_string(job.n) + " items does not fit the memory cap of " +
                     bytes_text(options.memory_cap) + "; sample in pieces");
  std::vector<std::uint16_t> out(job.trials * width);
  ServeInfo info = fill_records(job, std::span<std::uint16_t>(out), options);
  return SampleResult{std::move(out), std::move(info.backend), std::move(info.arch), std::move(info.note),
                      info.threads};
}

}  // namespace melange
