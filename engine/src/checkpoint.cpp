#include "melange/checkpoint.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdio>
#include <exception>
#include <istream>
#include <numeric>
#include <optional>
#include <ostream>
#include <sstream>
#include <vector>

#include "melange/error.hpp"
#include "melange/stream.hpp"
#include "tally_workers.hpp"

namespace melange {
namespace {

static_assert(std::endian::native == std::endian::little, "checkpoints are written little-endian");

constexpr const char* kMagic = "melange checkpoint 1";

// The tally's count arrays, in file order.
template <class T>
auto count_arrays(T& t) {
  return std::array{&t.ranks.counts(), &t.positions.counts(), &t.hands, &t.categories};
}

// A weight as a hex float: exact, whatever the double.
std::string hex_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string job_weights(const Job& job) {
  std::string s;
  for (double w : job.weights) {
    if (!s.empty()) s += ' ';
    s += hex_double(w);
  }
  return s;
}

std::string tallies_of(const Job& job) {
  std::string s;
  if (job.rank_histogram) s += " ranks";
  if (job.position_matrix) s += " positions";
  if (job.hand_histogram) s += " hands";
  if (job.poker_categories) s += " categories";
  return s.empty() ? "none" : s.substr(1);
}

}  // namespace

void write_checkpoint(std::ostream& out, const Job& job, const Tally& done) {
  out << kMagic << "\n"
      << "stream_version " << kStreamVersion << "\n"
      << "seed " << job.seed << "\n"
      << "algorithm " << algorithm_name(job.algorithm) << "\n"
      << "n " << job.n << "\n"
      << "k " << shape_of(job).k << "\n"
      << "weights " << (job.weights.empty() ? "none" : job_weights(job)) << "\n"
      << "method " << method_name(job.spec.method) << "\n"
      << "bits " << job.spec.bits << "\n"
      << "first " << job.first << "\n"
      << "trials " << job.trials << "\n"
      << "tallies " << tallies_of(job) << "\n"
      << "done " << done.trials << "\n"
      << "words " << done.words << "\n"
      << "draws " << done.draws << "\n"
      << "counts\n";
  for (const std::vector<std::uint64_t>* a : count_arrays(done))
    out.write(reinterpret_cast<const char*>(a->data()), static_cast<std::streamsize>(a->size() * 8));
}

Checkpoint read_checkpoint(std::istream& in, const std::string& name) {
  const auto bad = [&](const std::string& why) {
    return UsageError("'" + name + "' is not a checkpoint melange can resume: " + why);
  };
  std::string line;
  if (!std::getline(in, line) || line != kMagic) throw bad("it does not start with '" + std::string(kMagic) + "'");
  Checkpoint c;
  Job& job = c.job;
  std::uint64_t done = 0;
  std::string tallies;
  for (const char* key : {"stream_version", "seed", "algorithm", "n", "k", "weights", "method", "bits", "first",
                          "trials", "tallies", "done", "words", "draws"}) {
    if (!std::getline(in, line)) throw bad("it ends before '" + std::string(key) + "'");
    const std::string head = std::string(key) + " ";
    if (line.rfind(head, 0) != 0) throw bad("'" + std::string(key) + "' is missing");
    std::istringstream value(line.substr(head.size()));
    const std::string k = key;
    bool ok = true;
    if (k == "stream_version") {
      int v = 0;
      ok = static_cast<bool>(value >> v);
      if (ok && v != kStreamVersion)
        throw bad("it was made with stream version " + std::to_string(v) + ", and this melange draws version " +
                  std::to_string(kStreamVersion));
    } else if (k == "seed") ok = static_cast<bool>(value >> job.seed);
    else if (k == "algorithm") {
      std::string a;
      value >> a;
      const auto parsed = parse_algorithm(a);
      ok = parsed.has_value();
      if (ok) job.algorithm = *parsed;
    } else if (k == "n") ok = static_cast<bool>(value >> job.n);
    else if (k == "k") ok = static_cast<bool>(value >> job.k);
    else if (k == "weights") {
      if (value.str() != "none")
        for (std::string w; value >> w;) job.weights.push_back(std::strtod(w.c_str(), nullptr));
    } else if (k == "method") {
      std::string m;
      value >> m;
      const auto parsed = parse_method(m);
      ok = parsed.has_value();
      if (ok) job.spec.method = *parsed;
    } else if (k == "bits") ok = static_cast<bool>(value >> job.spec.bits);
    else if (k == "first") ok = static_cast<bool>(value >> job.first);
    else if (k == "trials") ok = static_cast<bool>(value >> job.trials);
    else if (k == "tallies") tallies = value.str();
    else if (k == "done") ok = static_cast<bool>(value >> done);
    else if (k == "words") ok = static_cast<bool>(value >> c.tally.words);
    else if (k == "draws") ok = static_cast<bool>(value >> c.tally.draws);
    if (!ok) throw bad("its '" + k + "' line cannot be read");
  }
  job.rank_histogram = tallies.find("ranks") != std::string::npos;
  job.position_matrix = tallies.find("positions") != std::string::npos;
  job.hand_histogram = tallies.find("hands") != std::string::npos;
  job.poker_categories = tallies.find("categories") != std::string::npos;
  if (job.k == job.n) job.k = 0;
  try {
    validate(job);
  } catch (const UsageError& e) {
    throw bad(std::string("its job is not valid (") + e.what() + ")");
  }
  if (done > job.trials) throw bad("it counts more trials done than its job has");
  if (!std::getline(in, line) || line != "counts") throw bad("'counts' is missing");
  // Tally::for_job sizes the arrays; tally_bytes was checked by validate
  // against the rank limits, not the memory cap: the caller plans memory.
  Tally t = Tally::for_job(job);
  for (std::vector<std::uint64_t>* a : count_arrays(t)) {
    in.read(reinterpret_cast<char*>(a->data()), static_cast<std::streamsize>(a->size() * 8));
    if (static_cast<std::size_t>(in.gcount()) != a->size() * 8) throw bad("it is cut short");
  }
  if (in.peek() != std::char_traits<char>::eof()) throw bad("it has bytes after its counts");
  t.trials = done;
  t.words = c.tally.words;
  t.draws = c.tally.draws;
  // Each tally counts every trial once: a damaged file does not add up.
  const auto sum = [](const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); };
  const std::uint64_t slots = job.position_matrix ? static_cast<std::uint64_t>(shape_of(job).k) : 0;
  if ((job.rank_histogram && sum(t.ranks.counts()) != done) || (job.position_matrix && sum(t.positions.counts()) != done * slots) ||
      (job.hand_histogram && sum(t.hands) != done) || (job.poker_categories && sum(t.categories) != done))
    throw bad("its counts do not add up to the " + std::to_string(done) + " trials it says are done");
  c.tally = std::move(t);
  return c;
}

std::string job_difference(const Job& ours, const Job& theirs, const std::string& ours_name,
                           const std::string& theirs_name) {
  const auto differ = [&](const std::string& field, const std::string& here, const std::string& there) {
    return field + " " + here + " " + ours_name + ", " + there + " " + theirs_name;
  };
  if (ours.seed != theirs.seed) return differ("seed", std::to_string(ours.seed), std::to_string(theirs.seed));
  if (ours.algorithm != theirs.algorithm)
    return differ("algorithm", std::string(algorithm_name(ours.algorithm)), std::string(algorithm_name(theirs.algorithm)));
  if (ours.n != theirs.n) return differ("n", std::to_string(ours.n), std::to_string(theirs.n));
  if (shape_of(ours).k != shape_of(theirs).k)
    return differ("k", std::to_string(shape_of(ours).k), std::to_string(shape_of(theirs).k));
  if (ours.weights != theirs.weights) return differ("weights", job_weights(ours), job_weights(theirs));
  if (ours.spec.method != theirs.spec.method)
    return differ("method", std::string(method_name(ours.spec.method)), std::string(method_name(theirs.spec.method)));
  if (ours.spec.bits != theirs.spec.bits) return differ("bits", std::to_string(ours.spec.bits), std::to_string(theirs.spec.bits));
  if (ours.first != theirs.first) return differ("first", std::to_string(ours.first), std::to_string(theirs.first));
  if (ours.trials != theirs.trials) return differ("trials", std::to_string(ours.trials), std::to_string(theirs.trials));
  if (tallies_of(ours) != tallies_of(theirs)) return differ("tallies", tallies_of(ours), tallies_of(theirs));
  return "";
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
                       const Tally* resume) {
  Ranks* const ranks = segments.ranks;
  const int size = ranks ? ranks->size() : 1, rank = ranks ? ranks->rank() : 0;
  std::optional<internal::TallyWorkers> workers;
  Tally total, local;
  std::exception_ptr failure;
  try {
    workers.emplace(job, options);
    total = Tally::for_job(job);
    if (resume) {
      if (resume->trials > job.trials) throw UsageError("the tally to resume from has more trials than the job");
      total = *resume;
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
      if (rank == 0) segments.save(total);
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
