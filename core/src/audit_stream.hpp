// The stream tests' part of analyze() (audit.cpp): each of StreamTally's
// counts (stream_tests.hpp) made into tests that join the audit's family.
#pragma once

#include "melange/audit.hpp"

namespace melange::internal {

// What the stream tests read: a stream of records (StreamTally), or a
// built-in job's serial kinds, which pair each trial with the one before.
struct StreamView {
  Shape shape;
  std::vector<const LagTally*> lags;
  const RepeatCount* repeats = nullptr;
  const SerialPairs* serial = nullptr;
  const GapCounts* gaps = nullptr;
  // The stream graded against independence, with the records' own law:
  // their item x position counts (whole permutations) for the lag tests,
  // their number for the serial pairs' margins and the gaps' frequency.
  // Null, 0: against uniform (or the model).
  const TallyCounts* positions = nullptr;
  std::uint64_t records = 0;
  bool cyclic = true;  // the serial pairs close the cycle (records); a built-in's first trial has its pair already
};

void add_stream_tests(AuditReport& report, const StreamView& stream, const AuditOptions& options);
// A stream of records, as its tests read it.
StreamView stream_view(const StreamTally& stream);
// What a stream's tests read in a built-in job's tally under --serial: its
// serial kinds, and the repeats from its rank (or hand) histogram where it
// has one, else `fingerprinted` (AuditOptions::serial_repeats) where given.
// `lag`, `serial` and `repeats` hold what the view points to.
struct SerialViewParts {
  LagTally lag;
  SerialPairs serial;
  RepeatCount repeats;
};
StreamView serial_view(const Job& job, const Tally& tally, const RepeatCount* fingerprinted, SerialViewParts& parts);

}  // namespace melange::internal
