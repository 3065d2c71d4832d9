// `melange audit`: run a job, tally it, test it, grade it.
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>

#include "command.hpp"
#include "exit_codes.hpp"
#include "job_args.hpp"
#include "audit_files.hpp"
#include "melange/audit.hpp"
#include "melange/audit_plan.hpp"
#include "melange/predictability.hpp"
#include "melange/checkpoint.hpp"
#include "melange/record_checkpoint.hpp"
#include "melange/job_fields.hpp"
#include "melange/deal.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/rank.hpp"
#include "melange/records.hpp"
#include "melange/report/format.hpp"
#include "signals.hpp"
#include "melange/trial.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "artifacts.hpp"
#include "checkpoint_lock.hpp"
#include "progress.hpp"
#include "record_input.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/job_text.hpp"
#include "team.hpp"

namespace melange::cli {
namespace {

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

// The flags that describe a job melange runs, which an input audit has not.
const char* const kJobOnlyFlags[] = {"--trials", "--seed", "--first", "--method", "--bits", "--threads", "--backend"};

// A progressive report after `records` records: a line per test with its
// statistic, p and grade, as PractRand prints by length.
std::string progress_lines(std::uint64_t records, const AuditReport& r) {
  int log2 = 0;
  while ((std::uint64_t{1} << (log2 + 1)) <= records) ++log2;
  const std::string head = "  records 2^" + std::to_string(log2) + " (" + grouped(records) + "): ";
  std::string lines = head + "graded at WEAK below " + general(r.thresholds.weak, 3) + ", FAIL below " +
                      general(r.thresholds.fail, 3) + " (this look's share of each level)\n";
  for (const TestResult* t : r.tests()) {
    // p as the test gives it (log10 where it underflows); the grade is Holm's.
    const std::string p = p_text(t->fit.p_value, t->fit.log10_p, 3);
    const std::string statistic = t->statistic == "z"         ? " z " + fixed(t->fit.statistic, 2)
                                  : t->statistic == "repeats" ? " repeats " + fixed(t->fit.statistic, 0)
                                                              : " chi2 " + fixed(t->fit.statistic, 1) + " df " +
                                                                    fixed(t->fit.df, 0);
    lines += head + t->name + statistic + " p " + p + " -> " + std::string(verdict_name(t->verdict)) + "\n";
  }
  return r.tests().empty() ? lines + head + "no test yet\n" : lines;
}



// The checkpoint to resume from, checked against the job; its tallies must
// fit `cap` bytes.
Checkpoint read_resume(const std::string& path, const Job& job, std::uint64_t cap) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError("--resume '" + path + "' is not a file; give the file --checkpoint wrote");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read --resume file '" + path + "'");
  Checkpoint c = read_checkpoint(in, path, cap);
  const std::string difference = job_difference(job, c.job);
  if (!difference.empty())
    throw UsageError("--resume '" + path + "' is the checkpoint of another job (" + difference +
                     "): give the same job, or start afresh without --resume");
  return c;
}

// Writes the checkpoint as every output is written: to a temporary file,
// renamed over the last one, so that a kill at any moment leaves a whole
// checkpoint behind.
void save_checkpoint(const std::string& path, const Job& job, const Tally& done) {
  Outputs file;
  file.declare("--checkpoint", path);
  write_checkpoint(file.open(path), job, done);
  file.commit();
}

void save_checkpoint(const std::string& path, const RecordCheckpoint& c) {
  Outputs file;
  file.declare("--checkpoint", path);
  write_record_checkpoint(file.open(path), c);
  file.commit();
}

// A records checkpoint to go on from; the command must read the same
// records the same way (checked by go_on_from).
RecordCheckpoint read_record_resume(const std::string& path, std::uint64_t cap) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError("--resume '" + path + "' is not a file; give the file --checkpoint wrote");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read --resume file '" + path + "'");
  if (!is_record_checkpoint(in))
    throw UsageError("--resume '" + path + "' is not the checkpoint of an audit of records: go on from it without "
                     "the records, or start afresh");
  return read_record_checkpoint(in, path, cap);
}

// Whether two paths name one file (both exist and are the same inode).
bool same_file(const std::string& x, const std::string& y) {
  std::error_code ec;
  return !x.empty() && !y.empty() && std::filesystem::equivalent(x, y, ec);
}

// --checkpoint and --resume: checked before the run, the lock taken.
void check_checkpoint_args(const AuditArgs& a, const std::string& checkpoint) {
  if (a.checkpoint_every_given && checkpoint.empty())
    throw UsageError("--checkpoint-every sets how often --checkpoint saves: add --checkpoint FILE, or drop it");
  if (!(a.checkpoint_every > 0))
    throw UsageError("--checkpoint-every takes a number of seconds above 0, such as 60");
  if (checkpoint == "-")
    throw UsageError("--checkpoint needs a file (it is replaced whole at each save), not standard output");
  struct stat st {};
  if (!checkpoint.empty() && ::stat(checkpoint.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UsageError("--checkpoint '" + checkpoint + "' is not a regular file: give a file it may replace at each save");
  if (!a.checkpoint.empty() && !same_file(a.checkpoint, a.resume) && ::stat(a.checkpoint.c_str(), &st) == 0)
    throw UsageError("--checkpoint '" + a.checkpoint + "' already exists: go on from it with --resume " +
                     a.checkpoint + ", or remove it to start afresh");
}

// What MPI ranks must share: every field of the job that defines its bits
// and tallies, and what decides when the ranks meet to save.
Team::Fingerprint rank_fingerprint(const Job& job, const std::string& checkpoint, double every_seconds) {
  Team::Fingerprint f = job_fingerprint(job);
  f.emplace_back("checkpoint", !checkpoint.empty());
  f.emplace_back("checkpoint-every (bits)", std::bit_cast<std::uint64_t>(every_seconds));
  return f;
}

// The files an audit writes, for a message that says they were.
std::string written_files(const AuditArgs& a) {
  std::string s;
  for (const std::string* f : {&a.job.json, &a.svg, &a.csv, &a.report_dir})
    if (!f->empty() && *f != "-") s += (s.empty() ? "" : ", ") + *f;
  return s.empty() ? "the report on standard output" : s;
}

// The audit the arguments ask for, in the library's words.
AuditRequest audit_request(const AuditArgs& a, bool from_input, const Team& team) {
  AuditRequest r;
  r.job = make_job(a.job);
  r.records = from_input;
  r.position = a.position;
  r.hands = a.hands;
  r.rank = !a.no_rank;
  r.stream_tests = !a.no_stream_tests;
  r.serial = a.serial;
  r.lags = a.lags;
  r.law = a.model.empty()             ? ReferenceLaw::uniform
          : a.model == "exact"        ? ReferenceLaw::exact
          : a.model == "plackett-luce" ? ReferenceLaw::plackett_luce
                                      : ReferenceLaw::given;
  r.memory_cap = parse_bytes(a.memory_cap, "--memory-cap");
  r.reserve = program_reserve(r.memory_cap);
  const bool checkpointed = !a.checkpoint.empty() || !a.resume.empty();
  r.held_tallies = from_input ? 0 : team.many() ? 2 : checkpointed ? 1 : 0;
  r.held_states = !from_input ? 0 : team.many() ? 2 : checkpointed ? 1 : 0;
  r.run.threads = from_input ? 1 : thread_count(a.job);
  r.run.backend = from_input ? "scalar" : backend_arg(a.job);
  return r;
}

// --format, or the one the file's name implies.
RecordFormat input_format(const AuditArgs& a) {
  if (a.format.empty()) return record_format_for_path(a.input);
  if (const auto f = parse_record_format(a.format)) return *f;
  throw UsageError("unknown --format '" + a.format + "': use " + record_format_names(", "));
}

// --input's reading options.
RecordOptions record_options(const AuditArgs& a, const Job& job) {
  RecordOptions records;
  records.n = job.n;
  records.k = is_deal(job) ? job.k : 0;
  records.base = a.base;
  records.skip_invalid = !a.skip_invalid.empty();
  if (a.skip_invalid == "all") records.max_invalid_share = 1;
  records.header = a.header;
  records.format = input_format(a);
  // Letters read as letters; only given labels change how items are read.
  if (!a.labels_arg.empty()) records.labels = a.labels;
  if (a.labels_arg == "cards") {
    records.label_spellings = card_spellings();
    records.label_words = std::string(kCardSpellingWords);
  }
  if (a.base != 0 && a.base != 1) throw UsageError("--base must be 0 or 1");
  return records;
}

// What an audit counted: its job with the trials done, their tallies, where
// records came from, and how the count ended.
struct Counted {
  Job job;
  RunResult run;
  InputInfo input;
  std::optional<int> exit;       // set when the command ends here, with nothing to report
  int interrupted = 0;           // the signal that ended a read of records
  std::string final_save_error;  // the last checkpoint's, when it failed
  std::shared_ptr<const StreamTally> stream;  // records: their stream tests' counts
  std::optional<RepeatCount> serial_repeats;  // --serial beyond a histogram of every record
  std::vector<std::vector<int>> head;         // records: the first few, for the predictability pass
  int looks = 0;                              // progressive looks made: the final verdict gets the level they left
};

// The records' time: a file's, or now for standard input (a feed read as
// it is dealt), so that a file and the same file piped get the same search.
// The predictability pass searches the clock before it.
std::optional<std::int64_t> records_time(const std::string& input) {
  if (input == "-")
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(input, ec)) return std::nullopt;
  const auto written = std::filesystem::last_write_time(input, ec);
  if (ec) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::file_clock::to_sys(written).time_since_epoch()).count();
}

// Records' predictability pass (melange/predictability.hpp): the fixed
// plan, more with --predict-seconds S, none with 0 or where the records'
// order is not read (--hands).
void predictability_pass(const AuditArgs& a, const Job& job, const std::vector<std::vector<int>>& head,
                         AuditReport& report) {
  const double extra = a.predict_more.value_or(0);
  if ((a.predict_more && extra == 0) || a.hands) return;
  PredictabilityPlan plan;
  plan.extra_seconds = extra;
  plan.records_time = records_time(a.input);
  plan.threads = thread_count(JobArgs{});
  plan.stop = [] { return signals::interrupted() != 0; };
  add_predictability(report, check_predictability(head, job.n, plan));
}

// One file of the records, as it is read: its own options (a header line
// of its own, say).
struct RecordFile {
  std::string path;
  InputFile* file;
  RecordOptions options;
};

// `e` from one file of several, naming it; its {tokens} kept for the
// front end to spell.
template <class E>
E in_file(const E& e, const std::string& path) {
  if (e.param() == Param::none) return E("in '" + path + "': " + e.what());
  const std::string kept = e.render([](Param p) { return "{" + std::string(param_name(p)) + "}"; });
  return E(e.param(), "in '" + token_safe(path) + "': " + kept);
}

// A file's records into the auditor; an error in one of several names it.
// `stop` is polled between batches (checkpoint saves); with `throw_on_signal`
// a signal ends the read where it stands rather than as the input's end, so
// that no half-read last record is counted (a checkpoint goes on after the
// records counted).
RecordStats read_one_file(RecordAuditor& auditor, const RecordFile& f, const RecordOptions& options, bool name_it,
                          const std::function<bool()>& stop, bool throw_on_signal) {
  try {
    return auditor.read(
        [&](char* buffer, std::size_t capacity) {
          const std::size_t got = f.file->read(buffer, capacity);
          if (got == 0 && throw_on_signal && signals::interrupted()) throw Error("interrupted");
          return got;
        },
        options, stop);
  } catch (const UsageError& e) {
    if (!name_it || signals::interrupted()) throw;
    throw in_file(e, f.path);
  } catch (const Error& e) {
    if (!name_it || signals::interrupted()) throw;
    throw in_file(e, f.path);
  }
}

// Where a file audit stands, for its checkpoints: the records counted from
// each input, and the wrong ones of the inputs read to their end (a partly
// read input's are counted again when it is read on).
struct RecordProgress {
  std::vector<RecordCheckpoint::Input> inputs;
  std::size_t current = 0;           // the input being read
  std::uint64_t counted_before = 0;  // the auditor's count when it began, less the records passed over
  RecordStats finished;              // of the inputs read to their end

  RecordCheckpoint checkpoint(RecordAuditor& auditor, const AuditArgs& a, const AuditPlan& plan) {
    RecordCheckpoint c;
    c.job = auditor.job();
    c.format = std::string(record_format_name(input_format(a)));
    c.base = a.base;
    if (plan.stream) c.lags = plan.stream->lags;
    c.position = a.position;
    c.rank = !a.no_rank;
    c.hands = a.hands;
    c.labels = a.labels;
    c.invalid = finished.invalid;
    c.first_invalid = finished.first_invalid;
    c.inputs = inputs;
    if (current < inputs.size() && !inputs[current].finished)
      c.inputs[current].read = auditor.counted() - counted_before;
    c.state = auditor.save();
    return c;
  }
};

// A checkpoint's records are the command's: the same job, read the same
// way, from the same files; then the auditor takes its state.
void go_on_from(const RecordCheckpoint& c, const AuditArgs& a, const AuditPlan& plan,
                const std::vector<RecordFile>& files, RecordAuditor& auditor) {
  const auto refuse = [&](const std::string& why) {
    return UsageError("--resume '" + a.resume + "' is the checkpoint of another audit (" + why +
                      "): give the command that wrote it, or start afresh without --resume");
  };
  Job theirs = c.job;
  theirs.trials = plan.job.trials;
  const std::string difference = job_difference(plan.job, theirs);
  if (!difference.empty()) throw refuse(difference);
  if (c.format != record_format_name(input_format(a)) || c.base != a.base)
    throw refuse("records read as " + c.format + " from base " + std::to_string(c.base));
  if (c.lags != (plan.stream ? plan.stream->lags : std::vector<int>{}) || c.hands != a.hands)
    throw refuse("other --lag, --hands or --no-stream-tests");
  if (c.labels != a.labels) throw refuse("other --labels");
  if (c.inputs.size() != files.size()) throw refuse(std::to_string(c.inputs.size()) + " files of records");
  for (std::size_t i = 0; i < files.size(); ++i)
    if (c.inputs[i].path != files[i].path) throw refuse("its file " + std::to_string(i + 1) + " is '" + c.inputs[i].path + "'");
  try {
    auditor.restore(c.state);
  } catch (const Error& e) {
    throw refuse(e.what());
  }
}

// --input: one pass over the records, memory the tallies. On a stream
// (--progressive) a line per test after 2^10, 2^11, ..
// records; SIGINT ends the read and what was read is reported. With
// --checkpoint the state is saved every --checkpoint-every seconds, when a
// signal ends the read, and at the end (a piece that merge takes).
Counted count_records(const AuditArgs& a, const AuditPlan& plan, const AuditOptions& audit,
                      const std::vector<RecordFile>& files, const std::string& checkpoint,
                      const std::optional<RecordCheckpoint>& resume) {
  std::ostream& lines = a.job.json == "-" ? std::cerr : std::cout;
  RecordLooks looks;
  looks.enabled = a.progressive;
  looks.stop_on_fail = a.stop_on_fail;
  looks.look = [&lines](std::uint64_t counted, const AuditReport& report) {
    lines << progress_lines(counted, report) << std::flush;
  };
  RecordAuditor auditor(plan.job, audit, looks, plan.stream);
  RecordProgress progress;
  for (const RecordFile& f : files) progress.inputs.push_back({f.path, 0, false});
  if (resume) {
    go_on_from(*resume, a, plan, files, auditor);
    progress.inputs = resume->inputs;
    progress.finished.invalid = resume->invalid;
    progress.finished.first_invalid = resume->first_invalid;
    progress.finished.records = auditor.counted();
  }
  const auto save = [&] { save_checkpoint(checkpoint, progress.checkpoint(auditor, a, plan)); };
  using Clock = std::chrono::steady_clock;
  auto next_save = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.checkpoint_every));
  const std::function<bool()> stop = [&] {
    if (checkpoint.empty() || Clock::now() < next_save) return false;
    save();
    next_save = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.checkpoint_every));
    return false;
  };
  Counted c;
  signals::defer_interrupt(true);
  try {
    // One stream: the auditor's tallies and stream tests go on from file to file.
    for (std::size_t i = 0; i < files.size(); ++i) {
      RecordCheckpoint::Input& input = progress.inputs[i];
      if (input.finished) continue;  // read to its end before the checkpoint
      RecordOptions options = files[i].options;
      options.pass_over = input.read;
      options.piece = input.read > 0;
      progress.current = i;
      progress.counted_before = auditor.counted() - input.read;
      const RecordStats one = read_one_file(auditor, files[i], options, files.size() > 1, stop, !checkpoint.empty());
      if (progress.finished.first_invalid.empty()) progress.finished.first_invalid = one.first_invalid;
      progress.finished.invalid += one.invalid;
      input.read += one.records;
      input.finished = true;
      progress.current = files.size();
      if (auditor.stopped_on_fail() || signals::interrupted()) break;
    }
  } catch (const Error&) {
    if (!signals::interrupted()) throw;
    if (auditor.counted() == 0) {
      std::cerr << "melange: interrupted before any record was read\n";
      c.exit = 128 + signals::interrupted();
      return c;
    }
  }
  signals::defer_interrupt(false);
  c.interrupted = signals::interrupted();
  if (!checkpoint.empty()) {
    try {
      save();
    } catch (const Error& e) {
      c.final_save_error = e.what();
    }
    if (c.interrupted)
      std::cerr << "melange: stopped by " << (c.interrupted == SIGINT ? "SIGINT" : "SIGTERM") << " after "
                << grouped(auditor.counted()) << " records; '" << checkpoint
                << "' holds them: run the same command with --resume " << checkpoint << " to go on\n";
  }
  // The records tallied: all that were read, or up to the first FAIL.
  c.job = auditor.job();
  c.looks = auditor.looks();
  c.run = auditor.result();
  c.stream = auditor.stream();
  c.head = auditor.head();
  c.input = InputInfo{a.input, std::string(record_format_name(files.front().options.format)), a.base,
                      progress.finished.invalid, progress.finished.first_invalid, a.inferred, a.labels};
  if (files.size() > 1)
    for (const RecordFile& f : files) c.input.files.push_back(f.path);
  return c;
}

// mpirun over one file of records: rank r reads its share of the file's
// bytes, cut at record boundaries (text: after a line end; binary: whole
// records), into an auditor of its own; rank 0 appends the ranks' saved
// states in rank order, so that the records across each cut are read as
// one stream, and reports. The result equals one process's.
namespace on_ranks {

// Where rank r of `ranks` starts: text at the first line start at or after
// floor(r S / K); binary at a whole record.
std::uint64_t cut(const InputFile& file, std::uint64_t size, RecordFormat format, std::uint64_t record_bytes, int r,
                  int ranks) {
  const auto share = [&](std::uint64_t total) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(total) * static_cast<unsigned>(r)) /
                                      static_cast<unsigned>(ranks));
  };
  if (r == 0) return 0;
  if (r == ranks) return size;
  if (format != RecordFormat::text) return share(size / record_bytes) * record_bytes;
  std::uint64_t at = share(size) - 1;  // a line starts after a line end
  ByteSource bytes = file.range(at, size);
  char block[4096];
  for (std::size_t got; (got = bytes(block, sizeof block)) > 0; at += got)
    if (const void* end = std::memchr(block, '\n', got))
      return at + static_cast<std::uint64_t>(static_cast<const char*>(end) - block) + 1;
  return size;
}

// A rank's piece as the words it sends rank 0: their count, the wrong
// records skipped, the first one's text (bytes, eight a word), the state.
std::vector<std::uint64_t> message(RecordAuditor& auditor, const RecordStats& stats) {
  std::vector<std::uint64_t> m{0, stats.invalid, stats.first_invalid.size()};
  for (std::size_t i = 0; i < stats.first_invalid.size(); i += 8) {
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < 8 && i + j < stats.first_invalid.size(); ++j)
      w |= std::uint64_t{static_cast<unsigned char>(stats.first_invalid[i + j])} << (8 * j);
    m.push_back(w);
  }
  const std::vector<std::uint64_t> state = auditor.save();
  m.insert(m.end(), state.begin(), state.end());
  m[0] = m.size() - 1;
  return m;
}

}  // namespace on_ranks

Counted count_records_on_ranks(const AuditArgs& a, const AuditPlan& plan, const AuditOptions& audit,
                               const RecordFile& file, Team& team) {
  Ranks& ranks = *team.ranks();
  const int rank = ranks.rank(), size = ranks.size();
  const std::optional<std::uint64_t> bytes = file.file->size();
  if (!bytes) throw UsageError("mpirun splits a file's bytes over the ranks: '" + file.path + "' is not a regular file");
  const RecordFormat format = file.options.format;
  if (format == RecordFormat::npy)
    throw UsageError("mpirun splits text, u8 and u16 records over the ranks: audit '" + file.path +
                     "' in one process, or write it as u8 or u16 (numpy: a.astype('u1').tofile(...))");
  const std::uint64_t record_bytes =
      static_cast<std::uint64_t>(shape_of(plan.job).k) * static_cast<std::uint64_t>(record_format_row(format).item_bytes);
  Team::Fingerprint f = job_fingerprint(plan.job);
  f.emplace_back("input bytes", *bytes);
  f.emplace_back("input format", static_cast<std::uint64_t>(format));
  f.emplace_back("lags", plan.stream ? plan.stream->lags.size() : 0);
  team.agree(f);

  const std::uint64_t begin = on_ranks::cut(*file.file, *bytes, format, record_bytes, rank, size);
  const std::uint64_t end = on_ranks::cut(*file.file, *bytes, format, record_bytes, rank + 1, size);
  RecordAuditor auditor(plan.job, audit, RecordLooks{}, plan.stream);
  RecordOptions options = file.options;
  options.piece = true;
  options.header = rank == 0 && options.header;
  RecordStats stats;
  std::string failure;
  int status = 0;
  signals::defer_interrupt(true);
  try {
    if (begin < end) stats = auditor.read(file.file->range(begin, end), options);
  } catch (const UsageError& e) {
    status = kExitUsage;
    failure = rank == 0 ? e.what()
                        : "in bytes " + std::to_string(begin) + ".." + std::to_string(end) + " of '" + file.path +
                              "' (MPI rank " + std::to_string(rank) + ", its records counted from there): " + e.what();
  } catch (const Error& e) {
    status = kExitRuntime;
    failure = e.what();
  }
  signals::defer_interrupt(false);
  // A rank that failed says so; every rank learns it before any waits on it.
  std::array<std::int64_t, 1> failed{status != 0 ? size - rank : 0};
  ranks.max_all(failed);
  if (failed[0] != 0) {
    ranks.mark_broken();
    if (status == 0) throw RanksFailed();
    if (status == kExitUsage) throw UsageError(failure);
    throw Error(failure);
  }
  // Rank by rank, so that rank 0 holds one piece's words at a time (the
  // plan's held_states): in round r rank r sends, the others send nothing;
  // rank 0's auditor holds its own piece already.
  Counted c;
  std::uint64_t invalid = stats.invalid;
  std::string first_invalid = stats.first_invalid;
  for (int r = 1; r < size; ++r) {
    std::vector<std::vector<std::uint64_t>> to_rank(static_cast<std::size_t>(size));
    if (rank == r) to_rank[0] = on_ranks::message(auditor, stats);
    const std::vector<std::uint64_t> m = ranks.all_to_all(to_rank);
    if (rank != 0) continue;
    if (m.empty() || m[0] + 1 != m.size()) throw Error("internal: rank " + std::to_string(r) + "'s piece came cut");
    invalid += m[1];
    std::string text(m[2], '\0');
    for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>(m[3 + i / 8] >> (8 * (i % 8)));
    if (first_invalid.empty()) first_invalid = text;
    RecordAuditor piece(plan.job, audit, RecordLooks{}, plan.stream);
    piece.restore(std::span<const std::uint64_t>(m).subspan(3 + (text.size() + 7) / 8));
    auditor.append(piece);
  }
  if (rank != 0) {
    c.exit = 0;
    return c;
  }
  if (auditor.counted() == 0) throw UsageError("the input holds no records");
  c.interrupted = signals::interrupted();
  c.job = auditor.job();
  c.run = auditor.result();
  c.run.ranks = size;
  c.stream = auditor.stream();
  c.head = auditor.head();
  c.input = InputInfo{a.input, std::string(record_format_name(format)), a.base, invalid, first_invalid, a.inferred,
                      a.labels};
  return c;
}

// A finished --serial run's repeats where it keeps no histogram of every
// record (serial_repeats): made once the last trial is in, resumed runs
// included, on every rank together. Rank 0 says whether the run finished.
std::optional<RepeatCount> finished_serial_repeats(Team& team, const AuditPlan& plan, bool finished) {
  if (plan.serial_repeat_bytes == 0) return std::nullopt;
  std::uint64_t go[1] = {finished ? 1u : 0u};
  if (team.many()) team.ranks()->broadcast(go);
  if (go[0] == 0) return std::nullopt;
  RunOptions options = plan.run;
  if (team.many()) return serial_repeats(plan, options, team.ranks());
  // One process: a Ctrl-C here ends the comparison, not the finished run.
  options.cancelled = [] { return signals::interrupted() != 0; };
  signals::defer_interrupt(true);
  try {
    std::optional<RepeatCount> r = serial_repeats(plan, options, nullptr);
    signals::defer_interrupt(false);
    return r;
  } catch (const Cancelled&) {
    signals::defer_interrupt(false);
    return std::nullopt;
  }
}

// The job's own trials: in one go, or in segments that save a checkpoint as
// they go and share the trials over MPI ranks.
Counted run_trials(const AuditArgs& a, Team& team, const AuditPlan& plan, const std::string& checkpoint,
                   std::optional<Checkpoint>& resume) {
  const Job& job = plan.job;
  RunOptions options = plan.run;
  Counted c;
  c.job = job;
  team.agree(rank_fingerprint(job, checkpoint, a.checkpoint_every));
  ProgressLine progress("audit", a.quiet || !team.root());
  if (progress.enabled())
    options.progress = [&progress](std::uint64_t done, std::uint64_t total) { progress.update(done, total); };
  if (checkpoint.empty() && !team.many()) {
    c.run = melange::run(job, options);
  } else {
    // In segments: saved as it goes, stopped by SIGINT or SIGTERM after a
    // last checkpoint, and shared over the ranks.
    SegmentOptions segments;
    segments.ranks = team.ranks();
    segments.every_seconds = a.checkpoint_every;
    if (!checkpoint.empty()) {
      segments.save = [&](const Tally& done) {
        if (done.trials < job.trials) return save_checkpoint(checkpoint, job, done);
        // The last save must not cost the finished result: its failure is
        // reported once the outputs are written.
        try {
          save_checkpoint(checkpoint, job, done);
        } catch (const std::exception& e) {
          c.final_save_error = e.what();
        }
      };
      segments.stop = [] { return signals::interrupted() != 0; };
      signals::defer_interrupt(true);
    }
    c.run = run_segments(job, options, segments, resume ? std::optional<Tally>(std::move(resume->tally)) : std::nullopt);
    signals::defer_interrupt(false);
  }
  progress.clear();
  c.serial_repeats = finished_serial_repeats(team, plan, c.run.tally.trials == job.trials);
  if (!team.root()) {  // rank 0 reports for every rank
    c.exit = 0;
    return c;
  }
  c.run.ranks = team.size();
  if (c.run.tally.trials < job.trials) {
    const int sig = signals::interrupted() ? signals::interrupted() : SIGTERM;
    // mpirun hands a Ctrl-C on to the ranks as SIGTERM: say so, since the
    // user pressed Ctrl-C and mpirun itself then exits 1.
    std::cerr << "melange: stopped by " << (sig == SIGINT ? "SIGINT" : "SIGTERM")
              << (team.many() && sig == SIGTERM ? " (mpirun passes Ctrl-C on as SIGTERM)" : "") << " after "
              << grouped(c.run.tally.trials) << " of " << grouped(job.trials) << " trials; '" << checkpoint
              << "' holds them: run the same command with --resume " << checkpoint << " to go on\n";
    c.exit = 128 + sig;
  }
  return c;
}

// A word for the shell: as it is where it holds only what no shell reads,
// else in single quotes.
std::string shell_word(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789-_./,=:+@%") == std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The command that reads the same records the same way and grades them
// alike: every option that changed the result, spelled out (the report's
// "reproduce with" line, its JSON and its page).
std::string records_command(const AuditArgs& a, const Job& job, const std::vector<std::string>& files, int looks) {
  std::string c = "melange audit";
  for (const std::string& f : files) c += " " + shell_word(f);
  c += " --n " + std::to_string(job.n);
  if (is_deal(job)) c += " --k " + std::to_string(shape_of(job).k);
  c += " --format " + std::string(record_format_name(input_format(a)));
  if (a.base != 0) c += " --base " + std::to_string(a.base);
  if (!a.labels_arg.empty()) c += " --labels " + shell_word(a.labels_arg);
  if (!a.skip_invalid.empty()) c += a.skip_invalid == "all" ? " --skip-invalid=all" : " --skip-invalid";
  if (a.no_stream_tests) {
    c += " --no-stream-tests";
  } else if (a.lags != std::vector<int>{1}) {
    c += " --lag ";
    for (std::size_t i = 0; i < a.lags.size(); ++i) c += (i ? "," : "") + std::to_string(a.lags[i]);
  }
  if (a.hands) c += " --hands";
  if (a.position) c += " --position";
  if (a.no_rank) c += " --no-rank";
  if (!a.model.empty())
    c += (a.model == "exact" ? " --algo " + std::string(algorithm_name(job.algorithm)) + card_flags(job) : "") +
         " --model " + shell_word(a.model);
  if (a.weak != kDefaultWeak) c += " --weak " + general(a.weak, 17);
  if (a.fail != kDefaultFail) c += " --fail " + general(a.fail, 17);
  if (a.alpha != kDefaultAlpha) c += " --alpha " + general(a.alpha, 17);
  // The looks spend part of each level, and --stop-on-fail ends the read.
  if (looks > 0 || a.progressive) c += " --progressive";
  if (a.stop_on_fail) c += " --stop-on-fail";
  if (!a.predict_seconds.empty()) c += " --predict-seconds " + shell_word(a.predict_seconds);
  return c;
}

// What the records say of their shape where the flags did not, into the
// audit's arguments.
void infer_shape(AuditArgs& a, InputFile& input) {
  RecordShape s{a.job.n, a.job.k, a.n_given, !a.format.empty(), a.base, a.base_given, a.header, a.labels, a.inferred};
  infer_record_shape(s, input, input_format(a));
  a.job.n = s.n;
  a.job.k = s.k;
  a.base = s.base;
  a.header = s.header;
  a.labels = std::move(s.labels);
  a.inferred = spell_tokens(s.inferred, [](Param p) { return flag_for("audit", p); });
}

// The records' files with the options each is read with: the first as
// inferred; each later one must hold records of the same n, k and format
// (its header line, if any, its own).
std::vector<RecordFile> files_to_read(const AuditArgs& a, const Job& job, InputFile& first,
                                      const std::vector<std::unique_ptr<InputFile>>& more) {
  std::vector<RecordFile> files{{a.input, &first, record_options(a, job)}};
  for (std::size_t i = 0; i < more.size(); ++i) {
    AuditArgs b = a;
    b.input = a.more_inputs[i];
    b.n_given = b.base_given = true;
    b.header = false;
    if (input_format(b) == input_format(a)) infer_shape(b, *more[i]);
    if (b.job.n != a.job.n || b.job.k != a.job.k || input_format(b) != input_format(a))
      throw UsageError("'" + b.input + "' holds other records than '" + a.input + "' (" +
                       std::string(record_format_name(input_format(b))) + ", n " + std::to_string(b.job.n) +
                       (b.job.k ? ", k " + std::to_string(b.job.k) : "") + "): audit files of one kind together");
    files.push_back({b.input, more[i].get(), record_options(b, job)});
  }
  return files;
}

// The flags' own checks, before any file is opened: what goes with
// --input, the thresholds. Moves a positional FILE into --input.
void check_audit_args(AuditArgs& a, const Team& team) {
  if (!a.predict_seconds.empty()) {
    char* end = nullptr;
    const double s = std::strtod(a.predict_seconds.c_str(), &end);
    if (*end != '\0' || !(s >= 0) || !std::isfinite(s))
      throw UsageError("--predict-seconds takes a number of seconds, 0 or more (0: no search), got '" +
                       a.predict_seconds + "'");
    a.predict_more = s;
  }
  if (a.files.empty() && a.input.empty() && (!a.format.empty() || a.base != 0 || !a.skip_invalid.empty() || !a.labels_arg.empty() || a.progressive || a.stop_on_fail ||
                      a.no_stream_tests || a.lags != std::vector<int>{1} || !a.predict_seconds.empty()))
    throw UsageError("--format, --base, --skip-invalid, --labels, --lag, --no-stream-tests, --predict-seconds, --progressive and --stop-on-fail are for "
                     "--input records; "
                     "add --input FILE or drop them");
  if (!a.files.empty()) {
    if (!a.input.empty()) throw UsageError("give the records once: 'melange audit FILE' or --input FILE, not both");
    a.input = a.files.front();
    a.more_inputs.assign(a.files.begin() + 1, a.files.end());
    if (!a.more_inputs.empty() && std::find(a.files.begin(), a.files.end(), "-") != a.files.end())
      throw UsageError("standard input ('-') is one stream of records on its own: give it alone, or files only");
  }
  const bool from_input = !a.input.empty();
  if (a.stop_on_fail && !a.progressive)
    throw UsageError("--stop-on-fail stops at the first FAIL of the progressive lines: add --progressive, or drop it");
  if (from_input && team.many() && (a.input == "-" || !a.more_inputs.empty()))
    throw UsageError("mpirun splits one file of records over the ranks: give one file (pieces of a log go one "
                     "process each, with --checkpoint, and 'melange merge' joins them)");
  if (from_input && team.many() && (a.progressive || !a.checkpoint.empty() || !a.resume.empty()))
    throw UsageError("--progressive, --checkpoint and --resume read records in one process: run without mpirun");
  if (a.input == "-" && (!a.checkpoint.empty() || !a.resume.empty()))
    throw UsageError("--checkpoint and --resume go on from records read before, which standard input cannot give "
                     "twice: save the records to a file and audit the file");
  if (from_input && !a.job_flags_given.empty())
    throw UsageError(a.job_flags_given.front() + " describes a job melange runs; with --input the records are the "
                     "trials: drop it");
  if (!(a.fail > 0 && a.fail <= a.weak && a.weak < 0.5))
    throw UsageError("thresholds need 0 < --fail <= --weak < 0.5");
  if (!(a.alpha > 0 && a.alpha < 1))
    throw UsageError("--alpha must lie strictly between 0 and 1, such as 0.05");
}

int run_audit(AuditArgs a, Team& team) {
  // Every check comes before any work: the job, the thresholds, the model
  // file, the memory plan and every output.
  check_audit_args(a, team);
  const bool from_input = !a.input.empty();
  const std::unique_ptr<InputFile> input_file = from_input ? std::make_unique<InputFile>(a.input) : nullptr;
  std::vector<std::unique_ptr<InputFile>> more_files;  // opened now: a missing one is refused before any work
  for (const std::string& path : a.more_inputs) more_files.push_back(std::make_unique<InputFile>(path));
  // A list of labels is a few bytes an item: a file larger than that, or
  // than the memory cap, is refused before it is read.
  constexpr std::uint64_t kBytesALabel = 64;
  if (!a.labels_arg.empty())
    a.labels = parse_labels(a.labels_arg, std::min<std::uint64_t>(parse_bytes(a.memory_cap, "--memory-cap"),
                                                                  std::uint64_t{kMaxSampleItems} * kBytesALabel));
  if (from_input) infer_shape(a, *input_file);
  if (!a.labels.empty() && static_cast<int>(a.labels.size()) != a.job.n)
    throw UsageError("--labels names " + std::to_string(a.labels.size()) + " items; the records have n " +
                     std::to_string(a.job.n));
  AuditRequest request = audit_request(a, from_input, team);
  if (request.law == ReferenceLaw::given) request.given = read_model(a.model, request.memory_cap);
  const AuditPlan plan = plan_audit(request);
  const Job& job = plan.job;
  const std::uint64_t cap = request.memory_cap;

  // Rank 0 alone reads the checkpoint and writes files: the other ranks
  // may be on machines that do not see its folders.
  const std::string checkpoint = !a.checkpoint.empty() ? a.checkpoint : a.resume;
  Outputs outputs;
  DeclaredAuditFiles files;
  check_checkpoint_args(a, checkpoint);
  std::optional<Checkpoint> resume;
  std::optional<RecordCheckpoint> record_resume;
  CheckpointLock lock;
  if (team.root()) {
    files = declare_audit_files(outputs, AuditFiles{a.job.json, a.svg, a.csv, a.report_dir}, job);
    outputs.declare("--checkpoint", checkpoint);
    if (from_input && a.input != "-") outputs.refuse_reading("--input", a.input);
    for (const std::string& path : a.more_inputs) outputs.refuse_reading("--input", path);
    if (request.law == ReferenceLaw::given) outputs.refuse_reading("--model", a.model);
    if (!checkpoint.empty()) lock = CheckpointLock(checkpoint);
    if (!a.resume.empty() && !from_input) resume = read_resume(a.resume, job, cap);
    if (!a.resume.empty() && from_input) record_resume = read_record_resume(a.resume, cap);
  }
  const std::vector<RecordFile> record_files =
      from_input ? files_to_read(a, job, *input_file, more_files) : std::vector<RecordFile>{};

  const std::shared_ptr<const ExactDistribution> model =
      reference_law(request, plan, draw_kind(job.algorithm) == DrawKind::keys ? weight_rationals(a.job)
                                                                              : std::vector<Rational>{});
  const std::optional<StatisticLaw> statistic_law = statistic_model(request, plan);
  AuditOptions audit = planned_options(plan, model.get(), statistic_law);
  audit.thresholds = Thresholds{a.weak, a.fail};
  audit.alpha = a.alpha;

  const Counted counted = !from_input   ? run_trials(a, team, plan, checkpoint, resume)
                          : team.many() ? count_records_on_ranks(a, plan, audit, record_files.front(), team)
                                        : count_records(a, plan, audit, record_files, checkpoint, record_resume);
  if (counted.exit) return *counted.exit;
  const InputInfo* source = from_input ? &counted.input : nullptr;
  const Job& done = counted.job;
  const RunResult& run = counted.run;
  audit.stream = counted.stream.get();
  audit.serial_repeats = counted.serial_repeats ? &*counted.serial_repeats : nullptr;
  audit.records = from_input;
  if (counted.looks > 0) audit.thresholds = final_thresholds(audit.thresholds, counted.looks);
  AuditReport report = planned_report(plan, done, run.tally, audit, a.model);
  if (from_input) {
    std::vector<std::string> inputs{a.input};
    inputs.insert(inputs.end(), a.more_inputs.begin(), a.more_inputs.end());
    report.reproduce = records_command(a, done, inputs, counted.looks);
  }
  if (counted.looks > 0)
    report.notes.push_back("graded at WEAK below " + general(audit.thresholds.weak, 3) + ", FAIL below " +
                           general(audit.thresholds.fail, 3) + ": the " + std::to_string(counted.looks) +
                           " progressive looks spent the rest of each level, so that the looks and this verdict "
                           "spend it once");
  if (from_input) predictability_pass(a, done, counted.head, report);

  const AuditView view{done, run, report, model.get(), a.model, source, audit.statistic_model};
  write_audit_files(outputs, files, view);
  if (a.job.json != "-")
    std::cout << (a.brief ? audit_brief_text(done, run, report, source) : audit_text(done, run, report, model.get(), source));
  if (!counted.final_save_error.empty()) {
    std::string outputs_error;
    try {
      outputs.commit();
    } catch (const Error& e) {
      outputs_error = e.what();
    }
    throw Error(outputs_error.empty()
                    ? "the run finished and its results were written (" + written_files(a) +
                          "), but the last checkpoint could not be saved to '" + checkpoint +
                          "': " + counted.final_save_error
                    : outputs_error + "; the last checkpoint could not be saved either: " + counted.final_save_error);
  }
  outputs.commit();
  if (a.fail_on_bias && report.verdict == Verdict::fail) return kExitBiased;
  return counted.interrupted ? 128 + counted.interrupted : 0;
}

}  // namespace

void add_audit_command(CLI::App& app, Action& action, Team& team) {
  auto a = std::make_shared<AuditArgs>();
  auto* cmd = app.add_subcommand(
      "audit", "Run a shuffle many times, tally the orders, and test them for bias");
  add_job_options(cmd, a->job);
  cmd->add_flag("--position", a->position, "also tally the item x position matrix (any n <= " + std::to_string(kMaxPositionItems) + ")");
  cmd->add_flag("--no-rank", a->no_rank, "skip the n! rank histogram (with --position)");
  cmd->add_option("--model", a->model,
                  "test against 'exact' (the algorithm's exact distribution), 'plackett-luce' (the weighted "
                  "orders' law, given --weights) or a FILE written by 'melange exact --json', instead of uniform");
  cmd->add_option("--memory-cap", a->memory_cap,
                  "bytes the whole run may hold (2G, 512M: K, M, G, T are powers of 1024): the program itself, "
                  "every thread's tallies, the model and the outputs (fewer threads run when theirs would not fit)")
      ->type_name("BYTES")
      ->capture_default_str();
  cmd->add_option("--weak", a->weak, "p below this (or above 1 - it) is WEAK")->capture_default_str();
  cmd->add_option("--fail", a->fail, "p below this (or above 1 - it) is FAIL")->capture_default_str();
  cmd->add_option("--alpha", a->alpha, "level of the printed critical values")->capture_default_str();
  cmd->add_option("--json", a->job.json, "write the result as JSON to FILE ('-': JSON on stdout only)");
  cmd->add_option("--svg", a->svg, "write the charts to FILE: orders against the expected line and "
                                   "its 3-sigma band, and the position heatmap");
  cmd->add_option("--csv", a->csv, "write the orders to FILE (rank,label,count,expected,residual), the matrix to "
                                   "FILE-position.csv (item,label,position,count,expected,residual; a deal's slot is its "
                                   "position) and poker categories to FILE-categories.csv (category,count,expected,ratio,z)");
  cmd->add_option("--report", a->report_dir, "write a self-contained HTML report to DIR/index.html");
  cmd->add_flag("--fail-on-bias", a->fail_on_bias, "exit with status 3 when a test FAILs after Holm");
  cmd->add_flag("--quiet", a->quiet, "no progress line on the terminal");
  cmd->add_option("file", a->files,
                  "records to audit, from FILE or '-' (standard input): the same as --input FILE; several FILEs "
                  "are read as one stream, in the order given (a day's log a file)")
      ->type_name("FILE ...");
  cmd->add_option("--input", a->input,
                  "audit records another program wrote, from FILE or '-' (standard input): one permutation "
                  "of 0..n-1 a record; --algo then only names the --model exact to test against");
  cmd->add_option("--format", a->format, "text | u8 | u16 | npy (default: from the file name, else text)");
  cmd->add_option("--base", a->base, "text records count items from 0 or 1")->capture_default_str();
  cmd->add_option("--labels", a->labels_arg,
                  "records: the items' names, item 0's first: 'cards' (2c 3c .. Ac 2d .. As), a list 'Kh,2c,..' or a "
                  "FILE of them; text records are read in them, and the output names items by them");
  cmd->add_flag("--skip-invalid{true}", a->skip_invalid,
                "count and skip wrong records instead of stopping, up to 1% of them (more is an error: the input or "
                "the flags are wrong); --skip-invalid=all skips any number")
      ->check(CLI::IsMember({"true", "all"}));
  cmd->add_flag("--hands", a->hands,
                "deals: also tally the hands (the set of k items, C(n, k) bins) and test them; deals of 5 of 52 "
                "always get the ten poker categories");
  cmd->add_option("--lag", a->lags,
                  "records: the lags L of the relabeled-record tests (record t read against record t - L), "
                  "comma-separated, 1.." + std::to_string(kMaxLag) + " (default: 1)")
      ->delimiter(',');
  cmd->add_flag("--serial", a->serial,
                "audit the trials as a stream: trial t against trial t - 1 (relabeled transition matrix, fixed "
                "points, rising sequences, serial pairs for n <= 5), on the reference path");
  cmd->add_option("--predict-seconds", a->predict_seconds,
                  "S: records are also searched for a library dealer's seed (melange predict): by default the day "
                  "before the file's time in seconds for each family and ASF's day; S more seconds for the day in "
                  "milliseconds and whole 32-bit spaces; 0: not searched");
  cmd->add_flag("--no-stream-tests", a->no_stream_tests,
                "records: judge each record alone (no repeats, lags, serial pairs or rising sequences)");
  cmd->add_flag("--progressive", a->progressive,
                "a line per test after 2^10, 2^11, ... records, for a stream read as it is dealt");
  cmd->add_flag("--brief", a->brief,
                "the verdict, the tests that did not PASS and the plain words, in about 15 lines (the full tables "
                "without it)");
  cmd->add_flag("--stop-on-fail", a->stop_on_fail, "with progressive lines: stop reading at the first FAIL");
  cmd->add_option("--checkpoint", a->checkpoint,
                  "save the trials done and their tallies to FILE as the run goes, on SIGINT or SIGTERM "
                  "(then exit 130 or 143) and at the end");
  cmd->add_option("--checkpoint-every", a->checkpoint_every, "seconds between checkpoints")->capture_default_str();
  cmd->add_option("--resume", a->resume,
                  "go on from the checkpoint FILE of the same job (and keep saving to it, unless --checkpoint "
                  "names another file); the result equals an uninterrupted run");
  cmd->footer("Exit status: 0 ran (PASS/WEAK, or no verdict); 3 with --fail-on-bias when a test "
              "FAILed; 2 usage error; 1 runtime error; 130/143 stopped by SIGINT/SIGTERM after a checkpoint.\n"
              "Under 'mpirun -np K' the trials are split over K ranks and rank 0 reports; the result is "
              "the same as one process's.");
  cmd->callback([a, cmd, &action, &team] {
    for (const char* flag : kJobOnlyFlags)
      if (cmd->count(flag)) a->job_flags_given.emplace_back(flag);
    a->checkpoint_every_given = cmd->count("--checkpoint-every") > 0;
    a->n_given = cmd->count("--n") > 0;
    a->base_given = cmd->count("--base") > 0;
    action = [a, &team] { return run_audit(*a, team); };
  });
}

}  // namespace melange::cli
