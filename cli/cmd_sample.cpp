// `melange sample`: the permutations themselves, for Monte Carlo code.
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "format.hpp"
#include "job_args.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "output.hpp"
#include "parse.hpp"
#include "report.hpp"

namespace melange::cli {
namespace {

constexpr std::uint64_t kMaxSampleItemsOut = 1'000'000'000;  // items one call may print
// Permutations asked of the library at a time: memory stays at this many
// rows whatever --count is.
constexpr std::uint64_t kPieceItems = std::uint64_t{1} << 20;

int run_sample(const JobArgs& a) {
  Job job = make_job(a, "--count");
  if (job.trials == 0) throw UsageError("--count must be at least 1");
  if (job.trials - 1 > ~std::uint64_t{0} - job.first)
    throw UsageError("--first + --count - 1 is past the last trial index, 2^64 - 1");
  validate_draws(job);
  // A row: the permutation's n items, or a deal's k in slot order.
  const bool deal = is_deal(job);
  const auto n = static_cast<std::uint64_t>(shape_of(job).k);
  if (job.trials > kMaxSampleItemsOut / n)
    throw UsageError(std::string("--count x ") + (deal ? "--k" : "--n") +
                     " must stay within 1e9 items; sample in pieces with --first");
  RunOptions options;
  options.threads = thread_count(a);
  options.backend = backend_arg(a);
  Outputs outputs;
  outputs.declare("--json", a.json);

  const std::uint64_t piece = std::max<std::uint64_t>(1, kPieceItems / n);
  std::string backend = "?", note;
  // Runs the job in pieces of `piece` trials, handing each to `emit`.
  auto for_each_piece = [&](auto&& emit) {
    for (std::uint64_t done = 0; done < job.trials;) {
      Job part = job;
      part.first = job.first + done;
      part.trials = std::min(piece, job.trials - done);
      const SampleResult r = sample(part, options);
      backend = backend_text(r.backend, r.arch);
      note = r.note;
      emit(part, r.permutations);
      done += part.trials;
    }
  };

  if (!a.json.empty()) {
    Json j = json_header("sample");
    add_job_fields(j, job);
    j["count"] = job.trials;
    // The backend is known after the first piece; the header is written
    // first, so it is the one auto picks, asked now.
    const SampleResult probe = sample([&] { Job p = job; p.trials = 1; return p; }(), options);
    j["backend"] = probe.backend;
    if (!probe.arch.empty()) j["simd_arch"] = probe.arch;
    if (!probe.note.empty()) j["backend_note"] = probe.note;
    const char* rows = deal ? "deals" : "permutations";
    j[rows] = nullptr;  // streamed below
    write_json(outputs.open(a.json), j, rows, [&](std::ostream& to, const std::string& indent) {
      std::string out;
      std::uint64_t written = 0;
      for_each_piece([&](const Job& part, const std::vector<std::uint16_t>& perms) {
        for (std::uint64_t t = 0; t < part.trials; ++t, ++written) {
          out += indent + "[\n";
          for (std::uint64_t i = 0; i < n; ++i) {
            out += indent + "  " + std::to_string(perms[t * n + i]);
            out += i + 1 < n ? ",\n" : "\n";
          }
          out += indent + "]";
          if (written + 1 < job.trials) out += ",\n";
        }
        to << out;
        out.clear();
      });
    });
  }
  if (a.json != "-") {
    bool header = false;
    for_each_piece([&](const Job& part, const std::vector<std::uint16_t>& perms) {
      std::string out;
      if (!header) {
        out = "# melange sample: " + describe(job) + ", trials " + std::to_string(job.first) + ".." +
              std::to_string(job.first + (job.trials - 1)) + ", backend " + backend +
              (note.empty() ? "" : " (" + note + ")") + "\n";
        header = true;
      }
      for (std::uint64_t t = 0; t < part.trials; ++t)
        for (std::uint64_t i = 0; i < n; ++i) {
          out += std::to_string(perms[t * n + i]);
          out += i + 1 < n ? ' ' : '\n';
        }
      std::cout << out;
    });
  }
  outputs.commit();
  return 0;
}

}  // namespace

void add_sample_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<JobArgs>();
  a->trials = "10";
  auto* cmd = app.add_subcommand(
      "sample", "Print permutations of trials F..F+C-1, one per line (item at each position; "
                "partial: the k dealt items in slot order)");
  add_job_options(cmd, *a, JobOptionSet{.trials = false});
  cmd->add_option("--count", a->trials, "permutations to print (1e6 notation works)")
      ->capture_default_str();
  cmd->add_option("--json", a->json, "write the result as JSON to FILE ('-': JSON on stdout only)");
  cmd->callback([a, &action] { action = [a] { return run_sample(*a); }; });
}

}  // namespace melange::cli
