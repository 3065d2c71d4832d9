#include "melange/report/bench.hpp"

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>

#include "melange/report/format.hpp"
#include "melange/report/json.hpp"
#include "melange/version.hpp"

namespace melange::report {
namespace {

std::string rate_text(double v) { return general(v, 3); }
std::string or_none(const std::string& s) { return s.empty() ? std::string("none") : s; }
Json or_null(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }
double spread(const BenchRow& r) { return r.median > 0 ? (r.high - r.low) / r.median * 100 : 0.0; }
double bytes_per_second(const BenchRow& r) { return r.median * 2 * r.n; }

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

// The likely cause of noisy runs: other work where the load average
// before the bench reached half the hardware threads; else a hypervisor
// that gave more than 2% of the CPUs' time to other machines; else the
// CPU's clock changing speed.
std::string noise_cause(const BenchDocument& doc) {
  const std::string load = doc.load_before < 0 ? std::string("load average unknown")
                                               : "load average " + fixed(doc.load_before, 1) + " on " +
                                                     std::to_string(doc.machine.hardware_threads) +
                                                     " hardware threads before the bench";
  const std::string steal =
      doc.steal_share < 0 ? std::string() : ", " + fixed(100 * doc.steal_share, 1) + "% of CPU time stolen while it ran";
  if (doc.load_before >= 0.5 * doc.machine.hardware_threads)
    return "likely other work on the machine (" + load + steal + ")";
  if (doc.steal_share > 0.02)
    return "likely a shared host: the hypervisor ran other machines on these CPUs (" + load + steal + ")";
  return "likely the CPU's clock changing speed (frequency scaling, turbo; " + load + steal + ")";
}

}  // namespace

bool noisy(const BenchRow& r) { return spread(r) > kNoisySpread * 100; }
bool above_limit(const BenchRow& r) { return r.limit > 0 && r.median > r.limit; }

CpuTimes cpu_times() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  CpuTimes t;
  if (!(in >> cpu) || cpu != "cpu") return t;
  double field = 0;
  for (int i = 0; i < 8 && in >> field; ++i) {  // user nice system idle iowait irq softirq steal
    t.total += field;
    if (i == 7) t.steal = field;
  }
  return t;
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  if (!(in >> load)) return -1;
  return load;
}

BenchMachine probe_machine() {
  BenchMachine m;
  m.cpu = cpu_model();
  m.compiler = compiler();
  return m;
}

std::string bench_header_text(const BenchDocument& doc) {
  std::ostringstream o;
  o << "melange bench: " << doc.mode << " mode, method " << doc.method << ", " << general(doc.seconds, 3)
    << " s shared among the runs (each run at least long enough to time; the time taken is shown as it goes and at "
       "the end)\n  machine: " << doc.machine.cpu << ", " << doc.machine.hardware_threads << " hardware threads, SIMD "
    << or_none(doc.machine.simd_arch) << ", GPU " << or_none(doc.machine.gpu) << "\n  melange " << kVersion << ", "
    << doc.machine.compiler << "\n";
  return o.str();
}

std::string bench_table_text(const BenchDocument& doc) {
  const bool sample = doc.sample_mode();
  std::ostringstream o;
  o << "\n  " << pad("algorithm", 22) << pad("n", 6, true) << "  " << pad("backend", 18) << pad("threads", 8, true)
    << pad("shuffles/s ", 13, true) << pad("spread", 10, true) << pad("words/trial", 12, true)
    << (sample ? pad("bytes/s", 11, true) : "") << pad("std::shuffle/s", 15, true) << pad("ratio", 7, true)
    << pad("batched/s", 11, true) << pad("ratio", 7, true) << pad("limit/s", 10, true) << pad("of limit", 9, true)
    << "\n";
  for (const BenchRow& r : doc.rows) {
    // Above the limit: a measurement error, its rate marked and no ratio drawn from it.
    const bool error = above_limit(r);
    const auto ratio = [&](double peer) { return error ? std::string("-") : fixed(r.median / peer, 2); };
    o << "  " << pad(r.algorithm, 22) << pad(std::to_string(r.n), 6, true) << "  " << pad(r.ran_on, 18)
      << pad(std::to_string(r.threads), 8, true)
      << pad(rate_text(r.median) + (error ? "!" : r.steady ? " " : "*"), 13, true)
      << pad("±" + fixed(spread(r) / 2, 1) + "%" + (noisy(r) ? "?" : ""), 11, true)  // 11 bytes: "±" is two
      << pad(fixed(r.words_per_trial, 3), 12, true)
      << (sample ? pad(rate_text(bytes_per_second(r)), 11, true) : "") << pad(rate_text(r.peer), 15, true)
      << pad(ratio(r.peer), 7, true) << pad(rate_text(r.batched_peer), 11, true) << pad(ratio(r.batched_peer), 7, true)
      << pad(r.limit > 0 ? rate_text(r.limit) : "-", 10, true)
      << pad(error ? std::string("> 1!") : r.limit > 0 ? fixed(r.median / r.limit, 2) : "-", 9, true) << "\n";
  }
  o << "  shuffles/s: median of " << doc.repeats << " timed runs after a warm-up, each followed by a run of each "
    << "peer; spread: half the range of the " << doc.repeats
    << "; ratio: melange over the peer on as many threads, same tallies. std::shuffle: std::shuffle + "
       "std::mt19937_64; batched: Fisher-Yates by batched ranged integers (Brackett-Rozinsky and Lemire 2024) "
       "over lehmer64, the fastest scalar shuffle known; limit: Philox4x32-10 blocks/s on as many threads "
       "(widest SIMD, or the architecture a row is pinned to; made and never stored), the most trials/s where a trial is one block (n <= 8)\n";
  if (std::any_of(doc.rows.begin(), doc.rows.end(), [](const BenchRow& r) { return !r.steady; }))
    o << "  *: these runs (or a peer's or the limit's) stayed short enough that set-up (first touch of the "
      << (sample ? "buffer" : "tallies") << ", tables, threads) still weighs; more --seconds gives longer runs"
      << (sample ? " up to " + std::to_string(doc.sample_bytes >> 20) + " MiB of rows" : "") << "\n";
  const auto count = [&](bool (*is)(const BenchRow&)) { return std::count_if(doc.rows.begin(), doc.rows.end(), is); };
  if (const auto errors = count(above_limit))
    o << "  !: " << errors << (errors == 1 ? " row" : " rows")
      << " measured above the Philox limit, which no trial rate can pass: a measurement error (its runs and the "
         "limit's saw the machine at different speeds), not a result; rerun it on an idle machine\n";
  if (const auto noisy_rows = count(noisy))
    o << "  ?: " << noisy_rows << (noisy_rows == 1 ? " row's" : " rows'") << " runs spread over more than "
      << fixed(kNoisySpread * 100, 0) << "% of their median: " << noise_cause(doc)
      << "; its rates are less sure than the others' (rerun idle, or with more --seconds)\n";
  o << "  measured in " << fixed(doc.elapsed_seconds, 0) << " s (--seconds " << general(doc.seconds, 3) << ")\n";
  return o.str();
}

void write_bench_json(std::ostream& out, const BenchDocument& doc) {
  Json j = json_header("bench");
  j["machine"] = {{"cpu", doc.machine.cpu},
                  {"hardware_threads", doc.machine.hardware_threads},
                  {"simd_arch", or_null(doc.machine.simd_arch)},
                  {"gpu", or_null(doc.machine.gpu)},
                  {"melange_version", kVersion},
                  {"compiler", doc.machine.compiler}};
  j["mode"] = doc.mode;
  j["method"] = doc.method;
  j["seconds"] = doc.seconds;
  j["elapsed_seconds"] = doc.elapsed_seconds;
  j["load_before"] = doc.load_before < 0 ? Json(nullptr) : Json(doc.load_before);
  j["steal_share"] = doc.steal_share < 0 ? Json(nullptr) : Json(doc.steal_share);
  j["repeats"] = doc.repeats;
  j["rows"] = Json::array();
  for (const BenchRow& r : doc.rows) {
    Json row;
    row["algorithm"] = r.algorithm;
    row["n"] = r.n;
    row["backend"] = r.backend;
    row["ran_on"] = r.ran_on;
    row["threads"] = r.threads;
    row["tallies"] = r.tallies;
    row["shuffles_per_second"] = {{"median", r.median}, {"min", r.low}, {"max", r.high}};
    row["trials_per_run"] = r.trials_per_run;
    row["steady"] = r.steady;
    row["words_per_trial"] = r.words_per_trial;
    row["words_per_second"] = r.median * r.words_per_trial;
    if (doc.sample_mode()) row["bytes_per_second"] = bytes_per_second(r);
    row["std_shuffle_per_second"] = r.peer;
    row["ratio"] = r.median / r.peer;
    row["batched_per_second"] = r.batched_peer;
    row["batched_ratio"] = r.median / r.batched_peer;
    row["philox_limit_per_second"] = r.limit > 0 ? Json(r.limit) : Json(nullptr);
    row["limit_fraction"] = r.limit > 0 ? Json(r.median / r.limit) : Json(nullptr);
    row["philox_limit_arch"] = r.limit > 0 ? Json(r.limit_arch) : Json(nullptr);
    row["noisy"] = noisy(r);
    row["measurement_error"] = above_limit(r);
    j["rows"].push_back(row);
  }
  write_json(out, j);
}

void write_bench_csv(std::ostream& out, const BenchDocument& doc) {
  out << "algorithm,n,backend,ran_on,threads,shuffles_per_s_median,shuffles_per_s_min,shuffles_per_s_max,"
         "trials_per_run,steady,words_per_trial,words_per_s,bytes_per_s,std_shuffle_per_s,ratio,batched_per_s,"
         "batched_ratio,philox_limit_per_s,limit_fraction\n";
  for (const BenchRow& r : doc.rows)
    out << r.algorithm << "," << r.n << "," << r.backend << ",\"" << r.ran_on << "\"," << r.threads << ","
        << general(r.median, 6) << "," << general(r.low, 6) << "," << general(r.high, 6) << "," << r.trials_per_run
        << "," << (r.steady ? "true" : "false") << "," << fixed(r.words_per_trial, 4) << ","
        << general(r.median * r.words_per_trial, 6) << ","
        << (doc.sample_mode() ? general(bytes_per_second(r), 6) : std::string()) << "," << general(r.peer, 6) << ","
        << fixed(r.median / r.peer, 4) << "," << general(r.batched_peer, 6) << ","
        << fixed(r.median / r.batched_peer, 4) << "," << (r.limit > 0 ? general(r.limit, 6) : std::string()) << ","
        << (r.limit > 0 ? fixed(r.median / r.limit, 4) : std::string()) << "\n";
}

}  // namespace melange::report
