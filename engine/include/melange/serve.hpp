// Serving records to Monte Carlo code (contract §5): the caller owns
// the memory and the library fills it.
//
// Record r of a job is the outcome of trial job.first + r: the permutation
// (n items, the item at each position) or a deal's k items in slot order.
// Records are row-major, record after record. Because a trial's outcome is a
// pure function of (seed, trial index), any split of a range into calls, and
// any backend or thread count, gives the same bits as one call.
//
//   melange::Job job;                 // fisher-yates of 52, default seed
//   job.n = 52;
//   job.first = 0;
//   job.trials = 1'000'000;
//   std::vector<std::uint8_t> decks(job.trials * 52);
//   melange::RunOptions options;
//   options.threads = 8;
//   melange::fill_records(job, std::span<std::uint8_t>(decks), options);
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "melange/engine.hpp"
#include "melange/integers.hpp"
#include "melange/job.hpp"

namespace melange {

// Items a record holds: n for a permutation, k for a deal.
int record_items(const Job& job);
// Whether the job's items fit uint8 (n <= 256); else they need uint16.
bool items_fit_u8(const Job& job);

// What served the records.
struct ServeInfo {
  std::string backend;  // "scalar", "simd", "cuda"
  std::string arch;     // "avx512", where the backend has several
  std::string note;     // why the asked backend was not used, when it was not
  int threads = 1;
};

// Records [job.first, job.first + job.trials) of `job` into `out`, which must
// hold exactly job.trials * record_items(job) items. The uint8 form needs
// n <= 256. Throws UsageError for a bad job or a wrong size, before any
// record is made. job's tallies are ignored.
ServeInfo fill_records(const Job& job, std::span<std::uint8_t> out, const RunOptions& options = {});
ServeInfo fill_records(const Job& job, std::span<std::uint16_t> out, const RunOptions& options = {});

// A long range in order, a piece of at most `chunk` records at a time, with
// memory for one piece whatever job.trials is: each(items, first, records)
// gets records [first, first + records) of the range (first is a trial
// index) and returns false to stop. Returns what served them.
template <class Item>
using RecordPieces = std::function<bool(std::span<const Item> items, std::uint64_t first, std::uint64_t records)>;
ServeInfo for_each_piece(const Job& job, std::uint64_t chunk, const RecordPieces<std::uint8_t>& each,
                         const RunOptions& options = {});
ServeInfo for_each_piece(const Job& job, std::uint64_t chunk, const RecordPieces<std::uint16_t>& each,
                         const RunOptions& options = {});

}  // namespace melange
