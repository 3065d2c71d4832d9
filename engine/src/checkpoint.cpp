#include "melange/checkpoint.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <istream>
#include <numeric>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "melange/error.hpp"
#include "melange/internal/decimal.hpp"
#include "melange/internal/fnv1a.hpp"
#include "melange/job_fields.hpp"
#include "melange/stream.hpp"
#include "tally_workers.hpp"

namespace melange {
namespace {

static_assert(std::endian::native == std::endian::little, "checkpoints are written little-endian");

// Format 2 added the checksum line; a format 1 file is refused by name.
constexpr const char* kMagic = "melange checkpoint 2";
constexpr const char* kOldMagic = "melange checkpoint 1";

// The tally's count arrays, in file order: the kinds' order (an empty
// array for a kind the job does not tally).
template <class T>
auto count_arrays(T& t) {
  std::array<decltype(&t.by_kind[0].counts()), kTallyKinds> arrays;
  for (std::size_t i = 0; i < kTallyKinds; ++i) arrays[i] = &t.by_kind[i].counts();
  return arrays;
}

// The checksum of a checkpoint: FNV-1a over the header's bytes, then the
// counts mixed in (mix_words); an edit that keeps every sum (which the sum
// checks cannot see) is caught here.
std::uint64_t checksum(const std::string& header, const Tally& t) {
  std::uint64_t h = internal::fnv1a(header);
  for (const std::vector<std::uint64_t>* a : count_arrays(t)) h = internal::mix_words(h, a->data(), a->size());
  return h;
}

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The refusal of a file named `name`, saying why.
UsageError not_a_checkpoint(const std::string& name, const std::string& why) {
  return UsageError("'" + name + "' is not a checkpoint melange can resume: " + why);
}

// One header line after the magic, "key value": the stream version, then
// the job's fields (job_fields.hpp, in its order), then the prefix done.
struct HeaderLine {
  std::string_view key;
  std::string (*write)(const Checkpoint& c);
  bool (*read)(std::string_view value, Checkpoint& c, const std::string& file);
};

bool read_count(std::string_view value, std::uint64_t& into) {
  const auto v = internal::parse_decimal(value, std::numeric_limits<std::uint64_t>::max());
  if (v) into = *v;
  return v.has_value();
}

constexpr HeaderLine kVersionLine{"stream_version", [](const Checkpoint&) { return std::to_string(kStreamVersion); },
                                  [](std::string_view value, Checkpoint&, const std::string& file) {
                                    const auto v = internal::parse_decimal(value, 1u << 30);
                                    if (!v) return false;
                                    if (*v != static_cast<std::uint64_t>(kStreamVersion))
                                      throw not_a_checkpoint(file, "it was made with stream version " +
                                                                       std::to_string(*v) +
                                                                       ", and this melange draws version " +
                                                                       std::to_string(kStreamVersion));
                                    return true;
                                  }};

constexpr HeaderLine kDoneLines[] = {
    {"done", [](const Checkpoint& c) { return std::to_string(c.tally.trials); },
     [](std::string_view v, Checkpoint& c, const std::string&) { return read_count(v, c.tally.trials); }},
    {"words", [](const Checkpoint& c) { return std::to_string(c.tally.words); },
     [](std::string_view v, Checkpoint& c, const std::string&) { return read_count(v, c.tally.words); }},
    {"draws", [](const Checkpoint& c) { return std::to_string(c.tally.draws); },
     [](std::string_view v, Checkpoint& c, const std::string&) { return read_count(v, c.tally.draws); }},
};

// Bytes left in `in` from where it stands, or -1 where it cannot tell.
std::int64_t bytes_left(std::istream& in) {
  const auto here = in.tellg();
  if (here < 0) return -1;
  in.seekg(0, std::ios::end);
  const auto end = in.tellg();
  in.seekg(here);
  return end < 0 ? -1 : static_cast<std::int64_t>(end - here);
}

}  // namespace

void write_checkpoint(std::ostream& out, const Job& job, const Tally& done) {
  // The header names the job and the prefix done; the counts follow it.
  Checkpoint c{job, Tally{}};
  c.tally.trials = done.trials;
  c.tally.words = done.words;
  c.tally.draws = done.draws;
  std::string text = std::string(kMagic) + "\n";
  const auto line = [&text](std::string_view key, const std::string& value) {
    text.append(key).append(" ").append(value).append("\n");
  };
  line(kVersionLine.key, kVersionLine.write(c));
  for (const JobField& f : job_fields())
    if (!(f.optional_line && f.omitted(job))) line(f.key, f.text(job));
  for (const HeaderLine& l : kDoneLines) line(l.key, l.write(c));
  out << text << "checksum " << hex64(checksum(text, done)) << "\n"
      << "counts\n";
  for (const std::vector<std::uint64_t>* a : count_arrays(done))
    out.write(reinterpret_cast<const char*>(a->data()), static_cast<std::streamsize>(a->size() * 8));
}

namespace {

// What read_checkpoint_job leaves for the counts: the header's text (which
// the checksum covers) and the checksum it states.
struct Header {
  Checkpoint c;  // the job; tally.trials, words and draws, no counts
  std::string text, checksum;
};

Header read_header(std::istream& in, const std::string& name) {
  const auto bad = [&](const std::string& why) { return not_a_checkpoint(name, why); };
  std::string line;
  if (!std::getline(in, line, '\n') || line.size() > 64 || (line != kMagic && line != kOldMagic))
    throw bad("it does not start with '" + std::string(kMagic) + "'");
  if (line == kOldMagic)
    throw bad("it was written by an older melange (checkpoint format 1, without a checksum): finish the run with "
              "that version, or start afresh");
  Header h;
  Job& job = h.c.job;
  h.text = line + "\n";
  bool held = false;  // `line` is already read: an optional field's key was not there
  // Reads the line for `key` into the checkpoint with `read`; an optional
  // line may be missing, its field left at 0.
  const auto take = [&](std::string_view key_view, bool optional, const auto& read,
                        std::string_view unreadable = "cannot be read") {
    const std::string key(key_view);
    // A header line is short: a file that is not a checkpoint is not read
    // whole looking for a newline.
    if (!held && (!std::getline(in, line) || line.size() > (std::size_t{1} << 20)))
      throw bad("it ends before '" + key + "'");
    const std::string head = key + " ";
    held = line.rfind(head, 0) != 0 && optional;
    if (held) return;
    h.text += line + "\n";
    if (line.rfind(head, 0) != 0) throw bad("'" + key + "' is missing");
    if (!read(std::string_view(line).substr(head.size())))
      throw bad("its '" + key + "' line " + std::string(unreadable));
  };
  take(kVersionLine.key, false, [&](std::string_view v) { return kVersionLine.read(v, h.c, name); });
  for (const JobField& f : job_fields())
    take(f.key, f.optional_line, [&](std::string_view v) { return f.read(v, job); }, f.unreadable);
  for (const HeaderLine& l : kDoneLines) take(l.key, false, [&](std::string_view v) { return l.read(v, h.c, name); });
  if (!std::getline(in, line) || line.rfind("checksum ", 0) != 0) throw bad("'checksum' is missing");
  h.checksum = line.substr(9);
  if (job.k == job.n) job.k = 0;
  try {
    validate(job);
  } catch (const UsageError& e) {
    throw bad(std::string("its job is not valid (") + e.what() + ")");
  }
  if (h.c.tally.trials > job.trials) throw bad("it counts more trials done than its job has");
  return h;
}

}  // namespace

Checkpoint read_checkpoint_job(std::istream& in, const std::string& name) { return read_header(in, name).c; }

Checkpoint read_checkpoint(std::istream& in, const std::string& name, std::uint64_t memory_cap) {
  const auto bad = [&](const std::string& why) { return not_a_checkpoint(name, why); };
  Header h = read_header(in, name);
  const Job& job = h.c.job;
  std::string line;
  if (!std::getline(in, line) || line != "counts") throw bad("'counts' is missing");
  // The file's own length and the cap are checked before the tally is
  // made: a few bytes that claim n = 12 do not take 3.7 GB first.
  const std::uint64_t bytes = tally_bytes(job);
  const std::int64_t left = bytes_left(in);
  if (left >= 0 && static_cast<std::uint64_t>(left) < bytes) throw bad("it is cut short");
  if (left >= 0 && static_cast<std::uint64_t>(left) > bytes) throw bad("it has bytes after its counts");
  if (bytes > memory_cap)
    throw UsageError(Param::memory_cap, "the checkpoint '" + name + "' holds " + internal::bytes_text(bytes) +
                                            " of tallies, more than the " +
                                            internal::bytes_text(memory_cap) +
                                            " the memory cap leaves them: raise {memory_cap}");
  Tally t = Tally::for_job(job);
  for (std::vector<std::uint64_t>* a : count_arrays(t)) {
    in.read(reinterpret_cast<char*>(a->data()), static_cast<std::streamsize>(a->size() * 8));
    if (static_cast<std::size_t>(in.gcount()) != a->size() * 8) throw bad("it is cut short");
  }
  if (in.peek() != std::char_traits<char>::eof()) throw bad("it has bytes after its counts");
  t.trials = h.c.tally.trials;
  t.words = h.c.tally.words;
  t.draws = h.c.tally.draws;
  if (h.checksum != hex64(checksum(h.text, t))) throw bad("its checksum does not match: it was changed or damaged");
  // Each tally counts every trial once: a damaged file does not add up.
  const std::string wrong = tally_inconsistency(job, t, t.trials);
  if (!wrong.empty()) throw bad(wrong);
  h.c.tally = std::move(t);
  return std::move(h.c);
}

std::string job_difference(const Job& ours, const Job& theirs, const std::string& ours_name,
                           const std::string& theirs_name) {
  return job_field_difference(ours, theirs, ours_name, theirs_name);
}

namespace {

// Trials a rank runs in the first segment; segments then double while one
// takes under kSegmentSeconds, so that stop() is answered about that often
// whatever the speed of the backend.
constexpr std::uint64_t kFirstSegmentShare = std::uint64_t{1} << 16;
constexpr double kSegmentSeconds = 0.25;

// Adds the ranks' tallies (or this process's) to `total` at rank 0.
void fold(internal::TallyWorkers& workers, Tally& total, Tally& local, Ranks* ranks) {
  if (!ranks) {
    workers.fold_into(total);
    return;
  }
  workers.fold_into(local);
  const auto ours = count_arrays(local);
  const auto sums = count_arrays(total);
  for (std::size_t i = 0; i < ours.size(); ++i) ranks->sum_to_root(*ours[i], *sums[i]);
  std::array<std::uint64_t, 3> counters{local.trials, local.words, local.draws}, totals{};
  ranks->sum_to_root(counters, totals);
  total.trials += totals[0];
  total.words += totals[1];
  total.draws += totals[2];
  for (std::vector<std::uint64_t>* a : ours) std::fill(a->begin(), a->end(), 0);
  local.trials = local.words = local.draws = 0;
}

// Under ranks, a fault on one rank must reach every rank, or the others
// would wait for it forever: each step ends with every rank saying whether
// it failed. Returns the flags every rank agreed on.
template <std::size_t N>
std::array<std::int64_t, N> agree_flags(Ranks* ranks, std::array<std::int64_t, N> flags, std::exception_ptr failure) {
  static_assert(N >= 1);  // flags[0]: this rank failed
  flags[0] = failure ? 1 : 0;
  if (!ranks) {
    if (failure) std::rethrow_exception(failure);
    return flags;
  }
  ranks->max_all(flags);
  if (flags[0]) {
    ranks->mark_broken();
    if (failure) std::rethrow_exception(failure);
    throw RanksFailed();
  }
  return flags;
}

}  // namespace

RunResult run_segments(const Job& job, const RunOptions& options, const SegmentOptions& segments,
                       std::optional<Tally> resume) {
  Ranks* const ranks = segments.ranks;
  const int size = ranks ? ranks->size() : 1, rank = ranks ? ranks->rank() : 0;
  std::optional<internal::TallyWorkers> workers;
  Tally total, local;
  std::exception_ptr failure;
  try {
    workers.emplace(job, options);
    if (resume) {
      if (resume->trials > job.trials) throw UsageError("the tally to resume from has more trials than the job");
      total = std::move(*resume);  // not copied: it may be the largest thing in memory
    } else {
      total = Tally::for_job(job);
    }
    if (ranks) local = Tally::for_job(job);
  } catch (...) {
    failure = std::current_exception();
  }
  agree_flags<1>(ranks, {}, failure);
  // Rank 0's prefix is everyone's.
  std::array<std::uint64_t, 1> start{total.trials};
  if (ranks) ranks->broadcast(start);
  std::uint64_t done = start[0];

  const bool in_segments = segments.save || segments.stop;
  std::uint64_t segment = in_segments ? kFirstSegmentShare * static_cast<std::uint64_t>(size) : job.trials;
  double since_save = 0;
  bool saved_last = false;
  while (done < job.trials) {
    const std::uint64_t length = std::min(segment, job.trials - done);
    const Share share = share_of(job.first + done, length, rank, size);
    const auto began = std::chrono::steady_clock::now();
    try {
      std::function<void(std::uint64_t, std::uint64_t)> progress;
      if (options.progress && rank == 0)
        progress = [&](std::uint64_t d, std::uint64_t) {
          // This rank's share stands for the segment's progress.
          const auto scaled = share.trials ? static_cast<unsigned __int128>(d) * length / share.trials : 0;
          options.progress(done + static_cast<std::uint64_t>(scaled), job.trials);
        };
      workers->run(share.first, share.trials, progress);
    } catch (...) {
      failure = std::current_exception();
    }
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - began).count();
    // Every rank learns whether any failed or was asked to stop, and the
    // slowest rank's time, so that all take the same next step.
    const auto flags = agree_flags<3>(
        ranks, {0, segments.stop && segments.stop() ? 1 : 0, static_cast<std::int64_t>(micros)}, failure);
    done += length;
    since_save += static_cast<double>(flags[2]) / 1e6;
    const bool stopping = flags[1] != 0;
    saved_last = false;
    if (segments.save && (stopping || since_save >= segments.every_seconds || done == job.trials)) {
      fold(*workers, total, local, ranks);
      // Rank 0 alone saves; every rank learns whether it could, or the
      // others would wait for it in the next segment forever.
      std::exception_ptr save_failure;
      if (rank == 0) try {
          segments.save(total);
        } catch (...) {
          save_failure = std::current_exception();
        }
      agree_flags<1>(ranks, {}, save_failure);
      since_save = 0;
      saved_last = true;
    }
    if (stopping) break;
    if (static_cast<double>(flags[2]) < kSegmentSeconds * 1e6 && segment < (std::uint64_t{1} << 62)) segment *= 2;
  }
  if (!saved_last) fold(*workers, total, local, ranks);
  RunResult result = std::move(*workers).result();
  result.tally = std::move(total);
  return result;
}

}  // namespace melange
