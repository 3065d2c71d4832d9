// `melange audit`'s arguments, and what counting a job's trials or the
// records gives its report: shared by the command (cmd_audit.cpp) and its
// records' half (audit_records.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/limits.hpp"
#include "melange/stream_tests.hpp"
#include "melange/report/audit.hpp"

namespace melange::cli {

// The flags as CLI11 leaves them (add_audit_command), and what
// check_audit_args and the records' inference make of them.
struct AuditArgs {
  JobArgs job;
  bool position = false;
  bool no_rank = false;
  std::string model;  // "exact" or a file written by `melange exact --json`
  std::string memory_cap = "1G";
  static_assert(kDefaultMemoryCap == std::uint64_t{1} << 30, "the default --memory-cap is written 1G");
  double weak = kDefaultWeak, fail = kDefaultFail, alpha = kDefaultAlpha;
  std::string svg, csv, report_dir;
  bool fail_on_bias = false, quiet = false;
  // Runs that outlive a sitting (contract §6).
  std::string checkpoint, resume;
  double checkpoint_every = 60;
  bool checkpoint_every_given = false;
  // audit --input: records written by another program instead of a job.
  std::string input, format;
  std::vector<std::string> files;  // the positional FILEs: the first the same as --input FILE
  std::vector<std::string> more_inputs;  // the files after the first, read on as one stream
  int base = 0;
  bool n_given = false, base_given = false;
  bool header = false;     // inferred: the text's first line names columns
  std::string inferred;    // what the records said of themselves, in words
  std::string labels_arg;  // --labels: cards, a comma-separated list, or a FILE of them
  std::vector<std::string> labels;  // the items' names: --labels, or A.. when the records are letters
  bool progressive = false, stop_on_fail = false;
  bool brief = false;  // audit_brief_text rather than audit_text
  std::string skip_invalid;  // "": stop at a wrong record; "true": skip up to kMaxInvalidShare; "all"
  bool hands = false;
  std::vector<int> lags{1};
  bool no_stream_tests = false;
  std::string predict_seconds;  // as given: "": the fixed plan; "0": no predictability pass; S: S seconds more
  std::optional<double> predict_more;  // it read (check_audit_args); nullopt: not given
  bool serial = false;
  std::vector<std::string> job_flags_given;  // flags of a built-in job that were set
};

// What an audit counted: its job with the trials done, their tallies, where
// records came from, and how the count ended.
struct Counted {
  Job job;
  RunResult run;
  report::InputInfo input;
  std::optional<int> exit;       // set when the command ends here, with nothing to report
  int interrupted = 0;           // the signal that ended a read of records
  std::string final_save_error;  // the last checkpoint's, when it failed
  std::shared_ptr<const StreamTally> stream;  // records: their stream tests' counts
  std::optional<RepeatCount> serial_repeats;  // --serial beyond a histogram of every record
  std::vector<std::vector<int>> head;         // records: the first few, for the predictability pass
  int looks = 0;                              // progressive looks made: the final verdict gets the level they left
};

}  // namespace melange::cli
