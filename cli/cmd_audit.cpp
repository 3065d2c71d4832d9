// `melange audit`: run a job, tally it, test it, grade it.
#include <sys/stat.h>

#include <algorithm>
#include <bit>
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

#include "audit_records.hpp"

namespace melange::cli {
namespace {

// The flags that describe a job melange runs, which an input audit has not.
const char* const kJobOnlyFlags[] = {"--trials", "--seed", "--first", "--method", "--bits", "--threads", "--backend"};

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
