// `melange bench`: shuffles per second for every combination of algorithm,
// n, backend and thread count asked for, each row beside the same job done
// with std::shuffle + std::mt19937_64 (bench_peer.hpp), so that no rate is
// shown without its reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <memory>
#include <sstream>

#include "bench_chart.hpp"
#include "bench_peer.hpp"
#include "command.hpp"
#include "melange/report/format.hpp"
#include "job_args.hpp"
#include "melange/backend_table.hpp"
#include "melange/engine.hpp"
#include "melange/serve.hpp"
#include "melange/version.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "progress.hpp"

namespace melange::cli {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// Tally kinds a bench row keeps: the rank histogram while n! bins stay small
// (n <= 10: 29 MB), the item x position matrix above.
inline constexpr int kBenchRankItems = 10;
// A measurement's repeats after its warm-up; the median is reported.
inline constexpr int kRepeats = 5;
// Sample mode fills one buffer of a run's permutations, reused run after run
// as a Monte Carlo code reuses its batch buffer: at most this many bytes.
inline constexpr std::uint64_t kSampleBytes = std::uint64_t{64} << 20;

struct BenchArgs {
  std::string algos = "fisher-yates,sort-binary-insertion";
  std::string ns = "4,8,13,52,1024";
  std::string backends;  // empty: every available backend
  std::string threads;   // empty: 1 and every hardware thread
  std::string method = "batched";
  std::string mode = "audit";
  double seconds = 20;
  std::string json, csv, svg;
  bool quiet = false;
};

// Sample mode: the most trials a run makes, their rows filling kSampleBytes.
std::uint64_t sample_trials(int n) { return std::max<std::uint64_t>(1, kSampleBytes / (2 * static_cast<std::uint64_t>(n))); }

// The items of a comma-separated list; `example` shows a good one.
std::vector<std::string> split_list(const std::string& text, const std::string& flag, const std::string& example) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) throw UsageError(flag + " has an empty item in '" + text + "': separate values by one comma");
    out.push_back(item);
  }
  if (out.empty() || text.back() == ',')
    throw UsageError(flag + " needs values separated by commas, such as " + flag + " " + example + "; got '" + text + "'");
  return out;
}

struct Row {
  std::string algo;
  int n = 0;
  std::string backend;  // as asked: "scalar", "simd", "avx2", "cuda"
  int threads = 1;
  Job job;
  // Measured.
  std::string ran_on;  // the backend and architecture that ran it
  double median = 0, low = 0, high = 0;  // shuffles/s
  double words_per_trial = 0;
  double peer = 0;  // std::shuffle's median shuffles/s on the same threads
  std::uint64_t trials_per_run = 0;
  bool fallback = false;  // the asked backend had no kernel; the scalar path ran it
  bool steady = false;    // its runs and its peer's passed the warm-up's steadiness test (RunSize)
};

// One side of a measurement: a job run `trials` at a time.
using Work = std::function<void(std::uint64_t trials)>;

double seconds_of(const Work& work, std::uint64_t trials) {
  const auto start = Clock::now();
  work(trials);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The warm-up: doubles a run's trials until one run takes `share` seconds
// and its last doubling took at least 1.8 times as long (so that a run's
// fixed set-up, such as first touching a large tally, weighs under a tenth,
// as in a long audit), or until a run takes four shares or holds max_trials.
struct RunSize {
  std::uint64_t trials = 64;
  bool steady = false;  // the last doubling took 1.8 times as long: set-up weighs little
};
RunSize size_runs(const Work& work, double share, std::uint64_t max_trials) {
  RunSize size;
  for (double before = 0, grew = 2;;) {
    const double took = seconds_of(work, size.trials);
    size.steady = before > 0 && took >= 0.9 * grew * before;
    if ((took >= share && size.steady) || took >= 4 * share || size.trials >= max_trials) break;
    before = took;
    const std::uint64_t next = std::min(size.trials * 2, max_trials);
    grew = static_cast<double>(next) / static_cast<double>(size.trials);
    size.trials = next;
  }
  return size;
}

// kRepeats runs of each side, alternating, so that a drift of the machine's
// speed (a noisy neighbour, a clock change) falls on both and the ratio of
// their medians holds. Returns each side's shuffles per second, sorted.
std::pair<std::vector<double>, std::vector<double>> time_pairs(const Work& a, std::uint64_t a_trials, const Work& b,
                                                              std::uint64_t b_trials) {
  std::vector<double> ra, rb;
  for (int r = 0; r < kRepeats; ++r) {
    ra.push_back(static_cast<double>(a_trials) / std::max(seconds_of(a, a_trials), 1e-9));
    rb.push_back(static_cast<double>(b_trials) / std::max(seconds_of(b, b_trials), 1e-9));
  }
  std::sort(ra.begin(), ra.end());
  std::sort(rb.begin(), rb.end());
  return {ra, rb};
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "g++ " __VERSION__;
#else
  return "unknown";
#endif
}

Json machine_json() {
  Json m;
  m["cpu"] = cpu_model();
  m["hardware_threads"] = thread_count(JobArgs{});
  m["simd_arch"] = nullptr;
  m["gpu"] = nullptr;
  for (const BackendInfo& b : backend_inventory()) {
    if (b.name == "simd" && !b.archs.empty()) m["simd_arch"] = b.archs.front();
    if (!b.device.empty()) m["gpu"] = b.device;
  }
  m["melange_version"] = kVersion;
  m["compiler"] = compiler();
  return m;
}

std::string rate_text(double v) { return general(v, 3); }

int run_bench(const BenchArgs& a) {
  // Everything is checked before the first measurement.
  if (!(a.seconds > 0) || !std::isfinite(a.seconds))
    throw UsageError("--seconds must be a number of seconds above 0, such as --seconds 20; got " + general(a.seconds, 3));
  if (a.mode != "audit" && a.mode != "sample") throw UsageError("--mode must be audit or sample");
  const bool sample_mode = a.mode == "sample";
  std::vector<std::string> backends;
  if (a.backends.empty()) {
    for (const BackendInfo& b : backend_inventory())
      if (b.available) backends.push_back(b.name);
  } else {
    for (const std::string& b : split_list(a.backends, "--backend", "scalar,simd")) {
      JobArgs probe;
      probe.backend = b;
      backend_arg(probe);  // an unknown name is a usage error
      for (const BackendInfo& info : backend_inventory())
        if (info.name == b && !info.available)
          throw UsageError("backend " + b + " is not available here (" + info.reason + "): leave it out of --backend");
      backends.push_back(b);
    }
  }
  std::vector<int> thread_counts;
  if (a.threads.empty()) {
    thread_counts = {1};
    const int all = thread_count(JobArgs{});  // what --threads defaults to elsewhere: every hardware thread
    if (all > 1) thread_counts.push_back(all);
  } else {
    for (const std::string& t : split_list(a.threads, "--threads", "1,2")) {
      JobArgs probe;
      probe.threads = t;
      thread_counts.push_back(thread_count(probe));
    }
  }
  std::vector<int> ns;
  for (const std::string& t : split_list(a.ns, "--n", "4,52")) {
    const std::uint64_t n = parse_count(t, "--n", kMaxPositionItems);
    if (n < 2) throw UsageError("--n values must be at least 2, got " + t);
    ns.push_back(static_cast<int>(n));
  }
  std::vector<Row> rows;
  for (const std::string& algo : split_list(a.algos, "--algo", "fisher-yates,naive-swap")) {
    const Algorithm alg = parse_algorithm_arg(algo);
    if (can_deal(alg) || draw_kind(alg) == DrawKind::keys)
      throw UsageError("--algo " + algo + " takes parameters (--k or --weights) that bench does not set: "
                       "time it with 'melange audit'");
    for (int n : ns)
      for (const std::string& backend : backends)
        for (int threads : thread_counts) {
          JobArgs ja;
          ja.algo = algo;
          ja.n = n;
          ja.method = a.method;
          Row row;
          row.algo = algo;
          row.n = n;
          row.backend = backend;
          row.threads = threads;
          row.job = make_job(ja);
          row.job.tallies.set(TallyKind::ranks, !sample_mode && n <= kBenchRankItems);
          row.job.tallies.set(TallyKind::positions, !sample_mode && n > kBenchRankItems);
          // The library's own checks, as the row will call it: the job, the
          // threads, the backend or architecture, the memory plan.
          const RunOptions options{backend, threads, kDefaultMemoryCap, {}, {}};
          try {
            if (sample_mode) {
              Job none = row.job;
              none.trials = 0;
              fill_records(none, std::span<std::uint16_t>(), options);
            } else {
              plan_workers(row.job, options);
            }
          } catch (const UsageError& e) {
            throw UsageError("--algo " + algo + " with --n " + std::to_string(n) + ": " + e.what());
          }
          rows.push_back(std::move(row));
        }
  }

  Outputs outputs;
  outputs.declare("--json", a.json);
  outputs.declare("--csv", a.csv);
  outputs.declare("--svg", a.svg);

  // The peer of each row: std::shuffle with the row's n, tallies and
  // threads. Its run size is found once, and it is timed beside every row.
  const auto peer_kind = [&](const Row& r) {
    return sample_mode ? PeerTallies::Kind::rows
                       : (r.job.tallies.has(TallyKind::ranks) ? PeerTallies::Kind::rank_histogram
                                                              : PeerTallies::Kind::position_matrix);
  };
  std::map<std::tuple<int, PeerTallies::Kind, int>, std::optional<RunSize>> peer_sizes;
  for (const Row& r : rows) peer_sizes[{r.n, peer_kind(r), r.threads}] = std::nullopt;
  // A run's share of the time left: a row is its warm-up (about three runs)
  // and kRepeats runs of it and of its peer, each run 1.5 shares on average
  // (the warm-up stops between one and two); a peer's warm-up is three more.
  const auto bench_start = Clock::now();
  std::size_t peers_left = peer_sizes.size();
  const auto share_now = [&](std::size_t rows_left) {
    const double left = a.seconds - std::chrono::duration<double>(Clock::now() - bench_start).count();
    const double runs = 1.5 * static_cast<double>(rows_left * (2 * kRepeats + 3) + peers_left * 3);
    return std::max(left / runs, 0.002);
  };
  const bool to_stdout = a.json == "-";
  std::ostream& text = to_stdout ? std::cerr : std::cout;
  const Json machine = machine_json();
  text << "melange bench: " << a.mode << " mode, method " << a.method << ", about " << general(a.seconds, 3)
       << " s\n  machine: " << machine["cpu"].get<std::string>() << ", " << machine["hardware_threads"].get<unsigned>()
       << " hardware threads, SIMD "
       << (machine["simd_arch"].is_null() ? std::string("none") : machine["simd_arch"].get<std::string>())
       << ", GPU " << (machine["gpu"].is_null() ? std::string("none") : machine["gpu"].get<std::string>())
       << "\n  melange " << kVersion << ", " << compiler() << "\n";
  text.flush();

  ProgressLine progress("bench", a.quiet || to_stdout, "rows");
  const auto threads_text = [](int t) { return std::to_string(t) + (t == 1 ? " thread" : " threads"); };

  // Sample mode: one buffer for a run's rows, made (and its pages touched)
  // before any clock starts and reused by every run, as a caller's batch
  // buffer is.
  std::vector<std::uint16_t> rows_buffer(sample_mode ? kSampleBytes / 2 : 0);
  const std::uint64_t tally_max_trials = std::uint64_t{1} << 40;
  volatile std::uint64_t sink = 0;  // keeps the peers' tallies alive
  std::map<std::pair<std::string, int>, double> words_of;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Row& r = rows[i];
    progress.update(i, rows.size(), r.algo + ", n " + std::to_string(r.n) + ", " + r.backend + ", " + threads_text(r.threads));
    // Words per trial are a property of the job, the same on every backend
    // and thread count: measured once per algorithm and n.
    double& words_per_trial = words_of[{r.algo, r.n}];
    if (words_per_trial == 0) {
      Job probe = r.job;
      probe.trials = 4096;
      probe.tallies.set(TallyKind::ranks, false);
      probe.tallies.set(TallyKind::positions, true);  // the cheapest tally; it does not change the words read
      const RunResult words = run(probe, RunOptions{"scalar", 1, kDefaultMemoryCap, {}, {}});
      words_per_trial = static_cast<double>(words.tally.words) / static_cast<double>(probe.trials);
    }
    r.words_per_trial = words_per_trial;

    const RunOptions options{r.backend, r.threads, kDefaultMemoryCap, {}, {}};
    const std::uint64_t max_trials = sample_mode ? sample_trials(r.n) : tally_max_trials;
    std::uint64_t first = 0;
    const Work ours = [&](std::uint64_t t) {
      Job job = r.job;
      job.first = first;
      job.trials = t;
      first += t;  // fresh trials every run, as a long audit reads them
      if (sample_mode) {
        const ServeInfo s = fill_records(
            job, std::span<std::uint16_t>(rows_buffer.data(), t * static_cast<std::uint64_t>(r.n)), options);
        r.ran_on = backend_text(s.backend, s.arch);
      } else {
        const RunResult run_result = run(job, options);
        r.ran_on = backend_text(run_result.backend, run_result.arch);
      }
    };
    const PeerTallies peer_job{r.n, peer_kind(r), rows_buffer.data()};
    const Work peer = [&](std::uint64_t t) { sink = sink + run_std_shuffle(peer_job, t, r.threads); };
    std::optional<RunSize>& peer_size = peer_sizes[{r.n, peer_kind(r), r.threads}];
    const double share = share_now(rows.size() - i);
    if (!peer_size) {
      peer_size = size_runs(peer, share, max_trials);
      --peers_left;
    }
    const RunSize size = size_runs(ours, share, max_trials);
    const auto [rates, peer_rates] = time_pairs(ours, size.trials, peer, peer_size->trials);

    // A backend without a kernel for the job hands it to the CPU path; the
    // row says so rather than show that path's rate under the asked name.
    r.fallback = r.ran_on.rfind(r.backend, 0) != 0 && r.ran_on.find("(" + r.backend + ")") == std::string::npos;
    if (r.fallback) r.ran_on += " for " + r.backend;
    r.median = rates[rates.size() / 2];
    r.low = rates.front();
    r.high = rates.back();
    r.trials_per_run = size.trials;
    r.peer = peer_rates[peer_rates.size() / 2];
    r.steady = size.steady && peer_size->steady;
  }
  progress.clear();

  const auto spread = [](const Row& r) { return r.median > 0 ? (r.high - r.low) / r.median * 100 : 0.0; };
  const std::vector<std::string> head = {"algorithm", "n", "backend", "threads", "shuffles/s", "spread",
                                         "words/trial", "words/s", sample_mode ? "bytes/s" : "",
                                         "std::shuffle/s", "ratio"};
  text << "\n  " << pad(head[0], 22) << pad(head[1], 6, true) << "  " << pad(head[2], 18) << pad(head[3], 8, true)
       << pad(head[4] + " ", 13, true) << pad(head[5], 8, true) << pad(head[6], 12, true) << pad(head[7], 11, true)
       << (sample_mode ? pad(head[8], 11, true) : "") << pad(head[9], 15, true) << pad(head[10], 8, true) << "\n";
  for (const Row& r : rows) {
    text << "  " << pad(r.algo, 22) << pad(std::to_string(r.n), 6, true) << "  " << pad(r.ran_on, 18)
         << pad(std::to_string(r.threads), 8, true) << pad(rate_text(r.median) + (r.steady ? " " : "*"), 13, true)
         << pad("±" + fixed(spread(r) / 2, 1) + "%", 8, true) << pad(fixed(r.words_per_trial, 3), 12, true)
         << pad(rate_text(r.median * r.words_per_trial), 11, true)
         << (sample_mode ? pad(rate_text(r.median * 2 * r.n), 11, true) : "") << pad(rate_text(r.peer), 15, true)
         << pad(fixed(r.median / r.peer, 2), 8, true) << "\n";
  }
  text << "  shuffles/s: median of " << kRepeats << " timed runs after a warm-up, each followed by a run of its "
       << "std::shuffle peer; spread: half the range of the " << kRepeats
       << "; ratio: melange over std::shuffle + std::mt19937_64 on as many threads, same tallies\n";
  if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.steady; }))
    text << "  *: these runs (or their std::shuffle's) stayed short enough that set-up (first touch of the "
         << (sample_mode ? "buffer" : "tallies") << ", tables, threads) still weighs; more --seconds gives longer runs"
         << (sample_mode ? " up to " + std::to_string(kSampleBytes >> 20) + " MiB of rows" : "") << "\n";

  if (!a.json.empty()) {
    Json doc = json_header("bench");
    doc["machine"] = machine;
    doc["mode"] = a.mode;
    doc["method"] = a.method;
    doc["seconds"] = a.seconds;
    doc["repeats"] = kRepeats;
    doc["rows"] = Json::array();
    for (const Row& r : rows) {
      Json j;
      j["algorithm"] = r.algo;
      j["n"] = r.n;
      j["backend"] = r.backend;
      j["ran_on"] = r.ran_on;
      j["threads"] = r.threads;
      j["tallies"] = sample_mode ? "none (permutations written to a reused buffer)"
                                 : (r.job.tallies.has(TallyKind::ranks) ? "rank histogram" : "position matrix");
      j["shuffles_per_second"] = {{"median", r.median}, {"min", r.low}, {"max", r.high}};
      j["trials_per_run"] = r.trials_per_run;
      j["steady"] = r.steady;
      j["words_per_trial"] = r.words_per_trial;
      j["words_per_second"] = r.median * r.words_per_trial;
      if (sample_mode) j["bytes_per_second"] = r.median * 2 * r.n;
      j["std_shuffle_per_second"] = r.peer;
      j["ratio"] = r.median / r.peer;
      doc["rows"].push_back(j);
    }
    write_json(outputs.open(a.json), doc);
  }
  if (!a.csv.empty()) {
    std::ostream& o = outputs.open(a.csv);
    o << "algorithm,n,backend,ran_on,threads,shuffles_per_s_median,shuffles_per_s_min,shuffles_per_s_max,"
         "trials_per_run,steady,words_per_trial,words_per_s,bytes_per_s,std_shuffle_per_s,ratio\n";
    for (const Row& r : rows)
      o << r.algo << "," << r.n << "," << r.backend << ",\"" << r.ran_on << "\"," << r.threads << ","
        << general(r.median, 6) << "," << general(r.low, 6) << "," << general(r.high, 6) << ","
        << r.trials_per_run << "," << (r.steady ? "true" : "false") << "," << fixed(r.words_per_trial, 4) << "," << general(r.median * r.words_per_trial, 6) << ","
        << (sample_mode ? general(r.median * 2 * r.n, 6) : std::string()) << "," << general(r.peer, 6) << ","
        << fixed(r.median / r.peer, 4) << "\n";
  }
  if (!a.svg.empty()) {
    BenchChart chart;
    chart.title = "melange bench: shuffles per second against n";
    chart.subtitle = machine["cpu"].get<std::string>() + ", " + a.mode + " mode, method " + a.method;
    for (const Row& r : rows) {
      // A line per asked backend, so that its fallback points stay on it.
      const std::string backend = r.backend == "simd" && !machine["simd_arch"].is_null()
                                      ? "simd (" + machine["simd_arch"].get<std::string>() + ")"
                                      : r.backend;
      chart.add(r.algo + ", " + backend + ", " + threads_text(r.threads), false, r.n, r.median, r.fallback);
      chart.add("std::shuffle, " + threads_text(r.threads), true, r.n, r.peer);
    }
    outputs.write(a.svg, bench_chart_svg(chart));
  }
  outputs.commit();
  return 0;
}

}  // namespace

void add_bench_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Measure shuffles per second, each beside std::shuffle doing the same job");
  nonempty(cmd->add_option("--algo", a->algos, "algorithms, comma-separated")->capture_default_str());
  nonempty(cmd->add_option("--n", a->ns, "item counts, comma-separated")->capture_default_str());
  nonempty(cmd->add_option("--backend", a->backends,
                           "backends or architectures, comma-separated (default: every available one)"));
  nonempty(cmd->add_option("--threads", a->threads, "thread counts, comma-separated (default: 1 and all)"));
  nonempty(cmd->add_option("--method", a->method, "bounded method")->capture_default_str());
  nonempty(cmd->add_option("--mode", a->mode,
                           "audit: tally every shuffle (rank histogram to n 10, position matrix above); "
                           "sample: fill a reused buffer with the permutations (16-bit items)")
               ->capture_default_str());
  cmd->add_option("--seconds", a->seconds, "time for the whole bench, shared by its measurements")
      ->capture_default_str();
  nonempty(cmd->add_option("--json", a->json, "write the rows as JSON to FILE ('-': JSON on stdout only)"));
  nonempty(cmd->add_option("--csv", a->csv, "write the rows as CSV to FILE"));
  nonempty(cmd->add_option("--svg", a->svg, "draw shuffles/s against n, log-log, to FILE"));
  cmd->add_flag("--quiet", a->quiet, "no progress line");
  cmd->footer(
      "Columns: shuffles/s is the median of 5 timed runs after a warm-up that doubles a run's trials until it "
      "takes its share of --seconds and doubling it nearly doubles its time (so that set-up, such as first "
      "touching the tallies, weighs little, as in a long audit); each run reads a fresh trial range, and the "
      "JSON and CSV give the trials a run; a * marks a row whose runs (or its std::shuffle's) --seconds kept too "
      "short for that. spread is half the range of the 5, as a percentage of the median. backend is what ran "
      "the job (\"scalar for simd\": simd has no kernel for it). words/trial is the Philox words a trial reads "
      "(the same on every backend); words/s is shuffles/s times it; bytes/s (sample mode) is the permutations "
      "written, 2 bytes an item. std::shuffle/s is the same job, same tallies, same thread count, done with "
      "std::shuffle + std::mt19937_64 (sample mode: the permutations written to a reused buffer as well), its "
      "runs alternating with the row's so that a drift of the machine's speed falls on both; ratio is "
      "shuffles/s over std::shuffle/s. Tallies: the rank histogram up to n 10, the item x position matrix "
      "above; none in sample mode.\n"
      "Exit status: 0 measured; 2 usage error (an unknown algorithm or backend, n past an algorithm's limit, "
      "--seconds <= 0); 1 runtime error.");
  cmd->callback([a, &action] { action = [a] { return run_bench(*a); }; });
}

}  // namespace melange::cli
