// `melange bench`: shuffles per second for every combination of algorithm,
// n, backend and thread count asked for, each row beside the same job done
// by two peers (bench_peer.hpp: std::shuffle, and the fastest scalar
// shuffle known) and, where a trial is one Philox block, beside the
// machine's Philox limit, so that no rate is shown without its references.
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
#include "bench_predict.hpp"
#include "bench_peer.hpp"
#include "command.hpp"
#include "melange/report/bench.hpp"
#include "melange/report/format.hpp"
#include "job_args.hpp"
#include "list_args.hpp"
#include "melange/backend_table.hpp"
#include "melange/decision_table.hpp"
#include "melange/engine.hpp"
#include "melange/serve.hpp"
#include "melange/version.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "progress.hpp"

namespace melange::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Tally kinds a bench row keeps: the rank histogram while n! bins stay small
// (n <= 10: 29 MB), the item x position matrix above.
inline constexpr int kBenchRankItems = 10;
// A measurement's repeats after its warm-up; the median is reported.
inline constexpr int kRepeats = 5;
// Words of a Philox4x32 block: a trial that reads no more (n <= 8 with
// batched draws, several indices to a word) is bounded by the block rate.
inline constexpr double kWordsPerBlock = 4;
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
  std::string families;  // predict mode
  bool quiet = false;
  JobArgs cards;  // --riffles, --shelves, --passes: for the card shuffles in --algo
};

// Sample mode: the most trials a run makes, their rows filling kSampleBytes.
std::uint64_t sample_trials(int n) { return std::max<std::uint64_t>(1, kSampleBytes / (2 * static_cast<std::uint64_t>(n))); }

// The items of a comma-separated list (list_args.hpp); `example` shows a
// good one.
std::vector<std::string> comma_list(const std::string& text, const std::string& flag, const std::string& example) {
  constexpr std::size_t kMostItems = 1000;
  const std::vector<std::string> out = split_list(text, flag, kMostItems, true);
  if (out.empty() || text.back() == ',')
    throw UsageError(flag + " needs values separated by commas, such as " + flag + " " + example + "; got '" + text + "'");
  return out;
}

// A row to measure: the document's row and the job it times.
struct Row {
  report::BenchRow out;
  Job job;
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
  // From kTableMinTrials: below it a table job runs on the reference loop,
  // which no long audit does.
  std::uint64_t trials = kTableMinTrials;
  bool steady = false;  // the last doubling took 1.8 times as long: set-up weighs little
};
RunSize size_runs(const Work& work, double share, std::uint64_t max_trials) {
  RunSize size;
  size.trials = std::min(size.trials, max_trials);
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

// kRepeats runs of each side in turn, so that a drift of the machine's
// speed (a noisy neighbour, a clock change) falls on all and the ratios of
// their medians hold. Returns each side's shuffles per second, sorted.
struct Side {
  Work work;
  std::uint64_t trials = 0;
};
std::vector<std::vector<double>> time_sides(const std::vector<Side>& sides) {
  std::vector<std::vector<double>> rates(sides.size());
  for (int r = 0; r < kRepeats; ++r)
    for (std::size_t i = 0; i < sides.size(); ++i)
      rates[i].push_back(static_cast<double>(sides[i].trials) /
                         std::max(seconds_of(sides[i].work, sides[i].trials), 1e-9));
  for (std::vector<double>& r : rates) std::sort(r.begin(), r.end());
  return rates;
}

// The machine as the document gives it: the CPU, the hardware threads, the
// widest SIMD architecture and the GPU the backends found.
report::BenchMachine this_machine() {
  report::BenchMachine m = report::probe_machine();
  m.hardware_threads = static_cast<unsigned>(thread_count(JobArgs{}));
  for (const BackendInfo& b : backend_inventory()) {
    if (b.name == "simd" && !b.archs.empty()) m.simd_arch = b.archs.front();
    if (!b.device.empty()) m.gpu = b.device;
  }
  return m;
}

std::string threads_text(int t) { return std::to_string(t) + (t == 1 ? " thread" : " threads"); }

// The backends to bench: those asked for, each known and available here, or
// every available one.
std::vector<std::string> bench_backends(const BenchArgs& a) {
  std::vector<std::string> backends;
  if (a.backends.empty()) {
    for (const BackendInfo& b : backend_inventory())
      if (b.available) backends.push_back(b.name);
    return backends;
  }
  for (const std::string& b : comma_list(a.backends, "--backend", "scalar,simd")) {
    JobArgs probe;
    probe.backend = b;
    backend_arg(probe);  // an unknown name is a usage error
    for (const BackendInfo& info : backend_inventory())
      if (info.name == b && !info.available)
        // Not the request's fault but the machine's: status 1, as audit
        // gives for the same backend.
        throw Error("backend " + b + " is not available here (" + info.reason + "): leave it out of --backend");
    backends.push_back(b);
  }
  return backends;
}

// The thread counts: those asked for, or 1 and every hardware thread.
std::vector<int> bench_threads(const BenchArgs& a) {
  std::vector<int> counts;
  if (a.threads.empty()) {
    counts = {1};
    const int all = thread_count(JobArgs{});  // what --threads defaults to elsewhere: every hardware thread
    if (all > 1) counts.push_back(all);
    return counts;
  }
  for (const std::string& t : comma_list(a.threads, "--threads", "1,2")) {
    JobArgs probe;
    probe.threads = t;
    counts.push_back(thread_count(probe));
  }
  return counts;
}

std::vector<int> bench_ns(const BenchArgs& a) {
  std::vector<int> ns;
  for (const std::string& t : comma_list(a.ns, "--n", "4,52")) {
    const std::uint64_t n = parse_count(t, "--n", kMaxPositionItems);
    if (n < 2) throw UsageError("--n values must be at least 2, got " + t);
    ns.push_back(static_cast<int>(n));
  }
  return ns;
}

// One row of the bench, checked as the library will run it: the job, the
// threads, the backend or architecture, the memory plan.
Row bench_row(const BenchArgs& a, const std::string& algo, int n, const std::string& backend, int threads) {
  const bool sample_mode = a.mode == "sample";
  JobArgs ja;
  ja.algo = algo;
  ja.n = n;
  ja.method = a.method;
  // Each card flag to the algorithms it sets (plan_rows checked that it has one).
  for (const auto& [param, value] : a.cards.cards)
    if (takes(parse_algorithm_arg(algo), param)) ja.cards[param] = value;
  Row row;
  row.out.n = n;
  row.out.backend = backend;
  row.out.threads = threads;
  row.job = make_job(ja);
  row.out.algorithm = algo + card_flags(row.job);  // "riffle --riffles 7"
  row.job.tallies.set(TallyKind::ranks, !sample_mode && n <= kBenchRankItems);
  row.job.tallies.set(TallyKind::positions, !sample_mode && n > kBenchRankItems);
  row.out.tallies = sample_mode ? "none (permutations written to a reused buffer)"
                                : std::string(row_of(n <= kBenchRankItems ? TallyKind::ranks : TallyKind::positions).title);
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
  return row;
}

// Every row, checked before the first measurement.
std::vector<Row> plan_rows(const BenchArgs& a) {
  if (!(a.seconds > 0) || !std::isfinite(a.seconds))
    throw UsageError("--seconds must be a number of seconds above 0, such as --seconds 20; got " + general(a.seconds, 3));
  if (a.mode != "audit" && a.mode != "sample") throw UsageError("--mode must be audit, sample or predict");
  const std::vector<std::string> backends = bench_backends(a);
  const std::vector<int> thread_counts = bench_threads(a);
  const std::vector<int> ns = bench_ns(a);
  std::vector<Row> rows;
  const std::vector<std::string> algos = comma_list(a.algos, "--algo", "fisher-yates,naive-swap");
  // A card flag must meet an algorithm it sets.
  for (const auto& [param, value] : a.cards.cards) {
    const bool taken = std::any_of(algos.begin(), algos.end(), [&](const std::string& s) {
      return takes(parse_algorithm_arg(s), param);
    });
    if (value != 0 && !taken)
      throw UsageError(flag_for("bench", param) + " is for the " + takers_of(param) + " algorithm: add it to --algo, " +
                       "or leave " + flag_for("bench", param) + " out");
  }
  for (const std::string& algo : algos) {
    const Algorithm alg = parse_algorithm_arg(algo);
    if (can_deal(alg) || draw_kind(alg) == DrawKind::keys)
      throw UsageError("--algo " + algo + " takes parameters (--k or --weights) that bench does not set: "
                       "time it with 'melange audit'");
    for (int n : ns)
      for (const std::string& backend : backends)
        for (int threads : thread_counts) rows.push_back(bench_row(a, algo, n, backend, threads));
  }
  return rows;
}

// The stream words a trial of the job reads: a property of the job, the same
// on every backend and thread count.
double words_per_trial(Job job) {
  job.trials = 4096;
  job.tallies = TallySet{TallyKind::positions};  // the cheapest tally; it does not change the words read
  const RunResult words = run(job, RunOptions{"scalar", 1, kDefaultMemoryCap, {}, {}, nullptr});
  return static_cast<double>(words.tally.words) / static_cast<double>(job.trials);
}

// Runs of a row's job (fresh trials every run, as a long audit reads them),
// recording the backend that ran them. The runs of a row share a Context,
// as one long audit holds its backend: a table is built once, in the
// warm-up, not once a run.
Work row_work(Row& r, const BenchArgs& a, std::vector<std::uint16_t>& buffer) {
  return [&r, &buffer, sample = a.mode == "sample", first = std::uint64_t{0},
          context = std::make_shared<Context>()](std::uint64_t t) mutable {
    Job job = r.job;
    job.first = first;
    job.trials = t;
    first += t;
    const RunOptions options{r.out.backend, r.out.threads, kDefaultMemoryCap, {}, {}, context.get()};
    if (sample) {
      const ServeInfo s =
          fill_records(job, std::span<std::uint16_t>(buffer.data(), t * static_cast<std::uint64_t>(r.out.n)), options);
      r.out.ran_on = backend_text(s.backend, s.arch);
    } else {
      const RunResult run_result = run(job, options);
      r.out.ran_on = backend_text(run_result.backend, run_result.arch);
    }
  };
}

// Where a row's trial reads at most one Philox block and runs on the CPU,
// so that the machine's block rate bounds it: the limit column.
bool limit_applies(const Row& r) { return r.out.words_per_trial <= kWordsPerBlock && r.out.backend != "cuda"; }
// The architecture whose Philox rate bounds the row: the one it is pinned
// to (--backend avx2), else the widest this CPU runs; "scalar" where none.
std::string limit_arch(const Row& r) {
  std::string widest = "scalar";
  for (const BackendInfo& b : backend_inventory()) {
    if (std::find(b.archs.begin(), b.archs.end(), r.out.backend) != b.archs.end()) return r.out.backend;
    if (b.name == "simd" && b.available && !b.archs.empty()) widest = b.archs.front();
  }
  return widest;
}

// The run sizes of the peers and limits, found once each (by the first row
// that needs them) and reused beside every row with the same key.
struct SharedSizes {
  std::map<std::tuple<int, PeerTallies::Kind, int, PeerTallies::Shuffler>, std::optional<RunSize>> peers;
  std::map<std::pair<int, std::string>, std::optional<RunSize>> limits;  // threads, architecture
  std::size_t left() const {
    std::size_t n = 0;
    for (const auto& [key, size] : peers) n += !size;
    for (const auto& [key, size] : limits) n += !size;
    return n;
  }
};

// A row's figures from its sides' rates (ours, the two peers, the limit
// where it ran): medians, and ours' range.
void record_rates(report::BenchRow& out, const std::vector<std::vector<double>>& rates,
                  const std::vector<RunSize>& side_sizes) {
  // A backend without a kernel for the job hands it to the CPU path; the
  // row says so rather than show that path's rate under the asked name.
  out.fallback = out.ran_on.rfind(out.backend, 0) != 0 && out.ran_on.find("(" + out.backend + ")") == std::string::npos;
  if (out.fallback) out.ran_on += " for " + out.backend;
  out.median = rates[0][rates[0].size() / 2];
  out.low = rates[0].front();
  out.high = rates[0].back();
  out.trials_per_run = side_sizes[0].trials;
  out.peer = rates[1][kRepeats / 2];
  out.batched_peer = rates[2][kRepeats / 2];
  out.limit = rates.size() > 3 ? rates[3][kRepeats / 2] : 0;
  out.steady = std::all_of(side_sizes.begin(), side_sizes.end(), [](const RunSize& z) { return z.steady; });
}

// Times every row beside its peers (and the Philox limit where it applies),
// within about a.seconds.
void measure_rows(std::vector<Row>& rows, const BenchArgs& a, bool quiet) {
  const bool sample_mode = a.mode == "sample";
  const auto peer_kind = [&](const Row& r) {
    return sample_mode ? PeerTallies::Kind::rows
                       : (r.job.tallies.has(TallyKind::ranks) ? PeerTallies::Kind::rank_histogram
                                                              : PeerTallies::Kind::position_matrix);
  };
  constexpr PeerTallies::Shuffler kShufflers[] = {PeerTallies::Shuffler::std_shuffle, PeerTallies::Shuffler::batched};
  std::map<std::pair<std::string, int>, double> words_of;
  for (Row& r : rows) {
    double& words = words_of[{r.out.algorithm, r.out.n}];
    if (words == 0) words = words_per_trial(r.job);
    r.out.words_per_trial = words;
  }
  SharedSizes sizes;
  for (const Row& r : rows) {
    for (PeerTallies::Shuffler s : kShufflers) sizes.peers[{r.out.n, peer_kind(r), r.out.threads, s}] = std::nullopt;
    if (limit_applies(r)) sizes.limits[{r.out.threads, limit_arch(r)}] = std::nullopt;
  }
  // A run's share of the time left: a row is its warm-up (about three runs)
  // and kRepeats runs of it and of each peer and limit beside it, each run
  // 1.5 shares on average (the warm-up stops between one and two); a
  // peer's or a limit's warm-up is three more.
  const auto bench_start = Clock::now();
  const auto share_now = [&](std::size_t i) {
    std::size_t runs = 3 * sizes.left();
    for (std::size_t j = i; j < rows.size(); ++j) runs += 3 + kRepeats * (3 + (limit_applies(rows[j]) ? 1 : 0));
    const double left = a.seconds - std::chrono::duration<double>(Clock::now() - bench_start).count();
    return std::max(left / (1.5 * static_cast<double>(runs)), 0.002);
  };
  ProgressLine progress("bench", quiet, "rows");
  // Sample mode: one buffer for a run's rows, made (and its pages touched)
  // before any clock starts and reused by every run, as a caller's batch
  // buffer is.
  std::vector<std::uint16_t> rows_buffer(sample_mode ? kSampleBytes / 2 : 0);
  const std::uint64_t tally_max_trials = std::uint64_t{1} << 40;
  volatile std::uint64_t sink = 0;  // keeps the peers' tallies and the limit's blocks alive
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Row& r = rows[i];
    report::BenchRow& out = r.out;
    progress.update(i, rows.size(), out.algorithm + ", n " + std::to_string(out.n) + ", " + out.backend + ", " +
                                        threads_text(out.threads));
    const std::uint64_t max_trials = sample_mode ? sample_trials(out.n) : tally_max_trials;
    const double share = share_now(i);
    const auto sized = [&](std::optional<RunSize>& size, const Work& work) {
      if (!size) size = size_runs(work, share, max_trials);
      return *size;
    };
    std::vector<Side> sides;
    std::vector<RunSize> side_sizes;
    const Work ours = row_work(r, a, rows_buffer);
    side_sizes.push_back(size_runs(ours, share, max_trials));
    sides.push_back({ours, side_sizes.back().trials});
    for (PeerTallies::Shuffler s : kShufflers) {
      const PeerTallies peer_job{out.n, peer_kind(r), rows_buffer.data(), s};
      const Work peer = [&sink, peer_job, threads = out.threads](std::uint64_t t) {
        sink = sink + run_peer(peer_job, t, threads);
      };
      side_sizes.push_back(sized(sizes.peers[{out.n, peer_kind(r), out.threads, s}], peer));
      sides.push_back({peer, side_sizes.back().trials});
    }
    if (limit_applies(r)) {
      out.limit_arch = limit_arch(r);
      const Work limit = [&sink, threads = out.threads, arch = out.limit_arch, first = std::uint64_t{0}](
                             std::uint64_t t) mutable {
        sink = sink ^ philox_limit_checksum(kDefaultSeed, first, t, threads, arch);
        first += t;
      };
      side_sizes.push_back(sized(sizes.limits[{out.threads, out.limit_arch}], limit));
      sides.push_back({limit, side_sizes.back().trials});
    }
    record_rates(out, time_sides(sides), side_sizes);
  }
  progress.clear();
}

// The chart: shuffles per second against n, a line per asked backend and
// thread count (so that its fallback points stay on it) and std::shuffle's.
std::string chart_svg(const report::BenchDocument& doc) {
  BenchChart chart;
  chart.title = "melange bench: shuffles per second against n";
  chart.subtitle = doc.machine.cpu + ", " + doc.mode + " mode, method " + doc.method;
  for (const report::BenchRow& r : doc.rows) {
    const std::string backend =
        r.backend == "simd" && !doc.machine.simd_arch.empty() ? "simd (" + doc.machine.simd_arch + ")" : r.backend;
    chart.add(r.algorithm + ", " + backend + ", " + threads_text(r.threads), false, r.n, r.median, r.fallback);
    chart.add("std::shuffle, " + threads_text(r.threads), true, r.n, r.peer);
    chart.add("batched Fisher-Yates + lehmer64, " + threads_text(r.threads), true, r.n, r.batched_peer);
  }
  return bench_chart_svg(chart);
}

// --mode predict: the families' seeds per second (bench_predict.hpp).
int run_bench_predict(const BenchArgs& a) {
  if (!(a.seconds > 0) || !std::isfinite(a.seconds))
    throw UsageError("--seconds must be a number of seconds above 0, such as --seconds 20; got " + general(a.seconds, 3));
  if (!a.csv.empty() || !a.svg.empty()) throw UsageError("--mode predict writes --json only, not --csv or --svg");
  PredictBenchArgs p;
  if (!a.families.empty()) p.families = comma_list(a.families, "--family", "php-mt,java");
  p.threads = bench_threads(a);
  p.seconds = a.seconds;
  p.json = a.json;
  p.quiet = a.quiet;
  return run_predict_bench(p);
}

int run_bench(const BenchArgs& a) {
  if (a.mode == "predict") return run_bench_predict(a);
  if (!a.families.empty()) throw UsageError("--family goes with --mode predict");
  std::vector<Row> rows = plan_rows(a);  // everything is checked before the first measurement
  Outputs outputs;
  outputs.declare("--json", a.json);
  outputs.declare("--csv", a.csv);
  outputs.declare("--svg", a.svg);

  report::BenchDocument doc{this_machine(), a.mode, a.method, a.seconds, kRepeats, kSampleBytes, {}};
  const bool to_stdout = a.json == "-";
  std::ostream& text = to_stdout ? std::cerr : std::cout;
  text << report::bench_header_text(doc);
  text.flush();
  doc.load_before = report::load_average();
  const report::CpuTimes cpu_before = report::cpu_times();
  const auto start = Clock::now();
  measure_rows(rows, a, a.quiet || to_stdout);
  doc.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const report::CpuTimes cpu_after = report::cpu_times();
  if (cpu_after.total > cpu_before.total)
    doc.steal_share = (cpu_after.steal - cpu_before.steal) / (cpu_after.total - cpu_before.total);
  for (const Row& r : rows) doc.rows.push_back(r.out);
  text << report::bench_table_text(doc);

  if (!a.json.empty()) report::write_bench_json(outputs.open(a.json), doc);
  if (!a.csv.empty()) report::write_bench_csv(outputs.open(a.csv), doc);
  if (!a.svg.empty()) outputs.write(a.svg, chart_svg(doc));
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
                           "sample: fill a reused buffer with the permutations (16-bit items); "
                           "predict: seeds per second of each predict family (--family, --threads, --seconds, --json)")
               ->capture_default_str());
  nonempty(cmd->add_option("--family", a->families, "predict mode: the families to time, comma-separated (default: all)"));
  cmd->add_option("--seconds", a->seconds, "time for the whole bench, shared by its measurements")
      ->capture_default_str();
  nonempty(cmd->add_option("--json", a->json, "write the rows as JSON to FILE ('-': JSON on stdout only)"));
  nonempty(cmd->add_option("--csv", a->csv, "write the rows as CSV to FILE"));
  nonempty(cmd->add_option("--svg", a->svg, "draw shuffles/s against n, log-log, to FILE"));
  cmd->add_flag("--quiet", a->quiet, "no progress line");
  add_card_options(cmd, a->cards);
  cmd->footer(
      "Columns: shuffles/s is the median of 5 timed runs after a warm-up that doubles a run's trials until it "
      "takes its share of --seconds and doubling it nearly doubles its time (so that set-up, such as first "
      "touching the tallies, weighs little, as in a long audit); each run reads a fresh trial range, and the "
      "JSON and CSV give the trials a run; a * marks a row whose runs (or a peer's or the limit's) --seconds kept too "
      "short for that. spread is half the range of the 5, as a percentage of the median. backend is what ran "
      "the job (\"scalar for simd\": simd has no kernel for it). words/trial is the Philox words a trial reads "
      "(the same on every backend), and words/s in the JSON and CSV shuffles/s times it; bytes/s (sample mode) is the permutations "
      "written, 2 bytes an item. std::shuffle/s is the same job, same tallies, same thread count, done with "
      "std::shuffle + std::mt19937_64 (sample mode: the permutations written to a reused buffer as well); "
      "batched/s the same with Fisher-Yates whose indices are drawn several to a 64-bit word by batched ranged "
      "integers (Brackett-Rozinsky and Lemire 2024) from lehmer64, the fastest scalar shuffle known; each ratio "
      "is shuffles/s over that peer's. limit/s is Philox4x32-10 blocks per second on as many threads (the "
      "widest SIMD, or the architecture a row is pinned to, made and never stored), shown where a trial reads at "
      "most one block (n <= 8 with batched draws, on the CPU): no trial rate can pass it, and 'of limit' is the row's share of it. The peers' and "
      "the limit's runs alternate with the row's so that a drift of the machine's speed falls on all. Tallies: "
      "the rank histogram up to n 10, the item x position matrix above; none in sample mode.\n"
      "Exit status: 0 measured; 2 usage error (an unknown algorithm or backend, n past an algorithm's limit, "
      "--seconds <= 0); 1 runtime error.");
  cmd->callback([a, &action] { action = [a] { return run_bench(*a); }; });
}

}  // namespace melange::cli
