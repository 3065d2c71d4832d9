// A file audit that outlives a sitting, or a log audited in pieces
// (contract §6): the job, how the records were read, how many records of
// each input were read, and the record auditor's saved state
// (RecordAuditor::save). `--resume` goes on from the records read; `merge`
// appends the states of consecutive pieces of one log.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "melange/job.hpp"

namespace melange {

struct RecordCheckpoint {
  Job job;  // the audit's: trials, the valid records counted
  // How the records were read: what must be the same to go on from them.
  std::string format;     // record_format_name
  int base = 0;
  // What was asked for (AuditRequest): the plan made from it is the job's.
  bool position = false, rank = true, hands = false;
  std::vector<int> lags;  // empty: no stream tests
  std::vector<std::string> labels;  // the items' names (--labels); empty: numbers
  std::uint64_t invalid = 0;   // wrong records skipped (--skip-invalid)
  std::string first_invalid;   // what was wrong with the first of them
  struct Input {
    std::string path;
    std::uint64_t read = 0;  // its records read, right or wrong
    bool finished = false;   // read to its end
  };
  std::vector<Input> inputs;
  std::vector<std::uint64_t> state;  // RecordAuditor::save

  // Every input read to its end: a piece a merge may take.
  bool finished() const;
};

// A text header ("melange records checkpoint 1", then a line "key value"
// for each job field and reading option, a line per input, a checksum over
// the header and the state), then the state as little-endian 64-bit words.
// Throws UsageError for a path a header line cannot hold (a newline).
void write_record_checkpoint(std::ostream& out, const RecordCheckpoint& c);
// Throws UsageError naming `name` where `in` is not one melange wrote, is
// cut short or damaged (the checksum), or whose state is larger than
// `memory_cap`.
RecordCheckpoint read_record_checkpoint(std::istream& in, const std::string& name, std::uint64_t memory_cap);
// Whether `in` starts as a record checkpoint does (it is left where it was).
bool is_record_checkpoint(std::istream& in);

}  // namespace melange
