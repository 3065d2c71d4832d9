// `melange audit`'s records: reading them from one file or several, on
// one process or MPI ranks, with checkpoints, and the command that
// reproduces their audit (audit_records.hpp).
#include "audit_records.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <span>

#include "command.hpp"
#include "exit_codes.hpp"
#include "job_args.hpp"
#include "melange/audit.hpp"
#include "melange/audit_plan.hpp"
#include "melange/checkpoint.hpp"
#include "melange/predictability.hpp"
#include "melange/record_checkpoint.hpp"
#include "melange/job_fields.hpp"
#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/records.hpp"
#include "melange/report/format.hpp"
#include "signals.hpp"
#include "melange/trial.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "record_input.hpp"
#include "melange/report/audit.hpp"
#include "team.hpp"

namespace melange::cli {
namespace {

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

// Saves a records checkpoint as every output is written: to a temporary
// file, renamed over the last one, so that a kill at any moment leaves a
// whole checkpoint behind.
void save_checkpoint(const std::string& path, const RecordCheckpoint& c) {
  Outputs file;
  file.declare("--checkpoint", path);
  write_record_checkpoint(file.open(path), c);
  file.commit();
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

// count_records_on_ranks' pieces: where each rank's bytes start, and
// what a rank sends rank 0.
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

}  // namespace

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

RecordFormat input_format(const AuditArgs& a) {
  if (a.format.empty()) return record_format_for_path(a.input);
  if (const auto f = parse_record_format(a.format)) return *f;
  throw UsageError("unknown --format '" + a.format + "': use " + record_format_names(", "));
}

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

}  // namespace melange::cli
