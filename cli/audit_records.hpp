// `melange audit` over records another program wrote (--input, FILEs):
// the records' half of the command, which cmd_audit.cpp composes with the
// job's half.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "audit_args.hpp"
#include "melange/audit.hpp"
#include "melange/audit_plan.hpp"
#include "melange/record_checkpoint.hpp"
#include "melange/records.hpp"
#include "record_input.hpp"
#include "team.hpp"

namespace melange::cli {

// One file of the records, as it is read: its own options (a header line
// of its own, say).
struct RecordFile {
  std::string path;
  InputFile* file;
  RecordOptions options;
};

// A records checkpoint to go on from; the command must read the same
// records the same way (checked when the records are counted).
RecordCheckpoint read_record_resume(const std::string& path, std::uint64_t cap);

// --format, or the one the file's name implies.
RecordFormat input_format(const AuditArgs& a);

// What the records say of their shape where the flags did not, into the
// audit's arguments.
void infer_shape(AuditArgs& a, InputFile& input);

// The records' files with the options each is read with: the first as
// inferred; each later one must hold records of the same n, k and format
// (its header line, if any, its own).
std::vector<RecordFile> files_to_read(const AuditArgs& a, const Job& job, InputFile& first,
                                      const std::vector<std::unique_ptr<InputFile>>& more);

// --input: one pass over the records, memory the tallies. On a stream
// (--progressive) a line per test after 2^10, 2^11, ..
// records; SIGINT ends the read and what was read is reported. With
// --checkpoint the state is saved every --checkpoint-every seconds, when a
// signal ends the read, and at the end (a piece that merge takes).
Counted count_records(const AuditArgs& a, const AuditPlan& plan, const AuditOptions& audit,
                      const std::vector<RecordFile>& files, const std::string& checkpoint,
                      const std::optional<RecordCheckpoint>& resume);

// mpirun over one file of records: rank r reads its share of the file's
// bytes, cut at record boundaries (text: after a line end; binary: whole
// records), into an auditor of its own; rank 0 appends the ranks' saved
// states in rank order, so that the records across each cut are read as
// one stream, and reports. The result equals one process's.
Counted count_records_on_ranks(const AuditArgs& a, const AuditPlan& plan, const AuditOptions& audit,
                               const RecordFile& file, Team& team);

// Records' predictability pass (melange/predictability.hpp): the fixed
// plan, more with --predict-seconds S, none with 0 or where the records'
// order is not read (--hands).
void predictability_pass(const AuditArgs& a, const Job& job, const std::vector<std::vector<int>>& head,
                         AuditReport& report);

// The command that reads the same records the same way and grades them
// alike: every option that changed the result, spelled out (the report's
// "reproduce with" line, its JSON and its page).
std::string records_command(const AuditArgs& a, const Job& job, const std::vector<std::string>& files, int looks);

}  // namespace melange::cli
