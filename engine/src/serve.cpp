#include "melange/serve.hpp"

#include <algorithm>
#include <vector>

#include "melange/error.hpp"
#include "backend_choice.hpp"
#include "parallel_chunks.hpp"

namespace melange {
namespace {

std::string what_records(const Job& job, std::uint64_t count) {
  return std::to_string(count) + (is_deal(job) ? " deals of " + std::to_string(job.k) + " of " : " permutations of ") +
         std::to_string(job.n) + " items";
}

// validate_draws, with an empty range allowed: serving no records is no error.
void check_job(const Job& job) {
  Job one = job;
  one.trials = std::max<std::uint64_t>(job.trials, 1);
  validate_draws(one);
}

// `chosen`: the backend the caller picked for this job (for_each_piece picks
// once, so that a backend's decision tables are built once, not a piece);
// null: pick here.
template <class Item>
ServeInfo fill(const Job& job, std::span<Item> out, const RunOptions& options,
               const internal::BackendChoice* chosen = nullptr) {
  check_job(job);
  internal::check_threads(options.threads);
  if (sizeof(Item) == 1 && !items_fit_u8(job))
    throw UsageError(Param::n, "uint8 records hold items up to 255, and {n} = " + std::to_string(job.n) +
                                   ": use uint16");
  const auto width = static_cast<std::uint64_t>(record_items(job));
  if (job.trials > out.size() / width || out.size() != job.trials * width)
    throw UsageError(Param::trials, "the buffer holds " + std::to_string(out.size()) + " items, and " +
                                        what_records(job, job.trials) + " ({trials} records of " +
                                        std::to_string(width) + ") need " +
                                        (job.trials > ~std::uint64_t{0} / width
                                             ? std::string("more than 2^64")
                                             : std::to_string(job.trials * width)));
  internal::BackendChoice own;
  if (!chosen) own = internal::choose_backend(job, options.backend, options.context);
  const internal::BackendChoice& choice = chosen ? *chosen : own;
  const Backend& backend = *choice.backend;
  if (job.trials == 0) return ServeInfo{std::string(backend.name()), backend.arch(), choice.note, 1};
  const int workers = std::min(options.threads, backend.max_workers());
  const std::uint64_t chunk = internal::chunk_trials(job.trials, workers, backend.preferred_chunk(job));
  internal::parallel_chunks(job.first, job.trials, workers, chunk, options.progress, options.cancelled,
                            [&](std::uint64_t b, std::uint64_t e, int) {
                              Item* to = out.data() + (b - job.first) * width;
                              if constexpr (sizeof(Item) == 2)
                                backend.sample_range(job, b, e, to);
                              else
                                backend.sample_range_bytes(job, b, e, to);
                            });
  return ServeInfo{std::string(backend.name()), backend.arch(), choice.note, workers};
}

template <class Item>
ServeInfo pieces(const Job& job, std::uint64_t chunk, const RecordPieces<Item>& each, const RunOptions& options) {
  check_job(job);
  if (chunk == 0) throw UsageError("a piece must hold at least one record");
  if (job.trials == 0) return fill(job, std::span<Item>(), options);
  const auto width = static_cast<std::uint64_t>(record_items(job));
  chunk = std::min({chunk, job.trials, (std::uint64_t{1} << 40) / width});
  std::vector<Item> buffer(chunk * width);
  const internal::BackendChoice choice = internal::choose_backend(job, options.backend, options.context);
  ServeInfo info;
  for (std::uint64_t done = 0; done < job.trials;) {
    Job part = job;
    part.first = job.first + done;
    part.trials = std::min(chunk, job.trials - done);
    const std::span<Item> items(buffer.data(), part.trials * width);
    info = fill(part, items, options, &choice);
    if (!each(std::span<const Item>(items), part.first, part.trials)) break;
    done += part.trials;
  }
  return info;
}

}  // namespace

int record_items(const Job& job) { return shape_of(job).k; }

bool items_fit_u8(const Job& job) { return job.n <= 256; }

ServeInfo fill_records(const Job& job, std::span<std::uint8_t> out, const RunOptions& options) {
  return fill(job, out, options);
}

ServeInfo fill_records(const Job& job, std::span<std::uint16_t> out, const RunOptions& options) {
  return fill(job, out, options);
}

ServeInfo for_each_piece(const Job& job, std::uint64_t chunk, const RecordPieces<std::uint8_t>& each,
                         const RunOptions& options) {
  return pieces(job, chunk, each, options);
}

ServeInfo for_each_piece(const Job& job, std::uint64_t chunk, const RecordPieces<std::uint16_t>& each,
                         const RunOptions& options) {
  return pieces(job, chunk, each, options);
}

}  // namespace melange
