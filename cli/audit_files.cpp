#include "audit_files.hpp"

#include "melange/error.hpp"
#include "melange/internal/bytes_text.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/json.hpp"
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace melange::cli {
namespace {

// FILE's name with "-" + part before the extension: "out-position.csv".
std::string csv_part_path(const std::string& csv, const std::string& part) {
  const auto dot = csv.rfind('.');
  const auto slash = csv.rfind('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return csv + "-" + part;
  return csv.substr(0, dot) + "-" + part + csv.substr(dot);
}

// Resident bytes of this process now: the second field of /proc/self/statm
// in pages. Where the kernel does not say, a figure measured on Linux (a
// melange that has loaded its libraries and read its arguments).
std::uint64_t resident_bytes() {
  constexpr std::uint64_t kMeasured = std::uint64_t{8} << 20;
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  const long page = ::sysconf(_SC_PAGESIZE);
  if (!(statm >> size >> resident) || page <= 0 || resident == 0) return kMeasured;
  return resident * static_cast<std::uint64_t>(page);
}

}  // namespace

std::uint64_t program_reserve(std::uint64_t cap) {
  // Beside what is resident now, the run's own transients (thread stacks,
  // the analysis's arrays, the output buffers): a quarter of a small cap,
  // 64 MiB of a large one, and never under 4 MiB.
  const std::uint64_t program = resident_bytes();
  const std::uint64_t outputs = std::max(std::uint64_t{4} << 20, std::min(std::uint64_t{64} << 20, cap / 4));
  const std::uint64_t least = program + outputs + (std::uint64_t{1} << 20);
  if (cap < least)
    throw UsageError(Param::memory_cap, "{memory_cap} " + internal::bytes_text(cap) + " is less than melange itself takes (" +
                                            internal::bytes_text(program) + " resident before any tally, and room for its "
                                            "outputs): give at least " +
                                            std::to_string((least + (std::uint64_t{1} << 20) - 1) >> 20) + "M");
  return program + outputs;
}

DeclaredAuditFiles declare_audit_files(Outputs& outputs, const AuditFiles& files, const Job& job) {
  DeclaredAuditFiles d;
  d.given = files;
  outputs.declare("--json", files.json);
  outputs.declare("--svg", files.svg);
  if (!files.csv.empty()) {
    if (!job.tallies.has(TallyKind::ranks) && !job.tallies.has(TallyKind::positions))
      throw UsageError("--csv writes the rank histogram or the position matrix, and this audit has neither: drop --csv");
    // Each table has its own name and columns, whatever else the audit
    // tallied: the orders in FILE, the matrix in FILE-position.csv, the
    // poker categories in FILE-categories.csv.
    if (job.tallies.has(TallyKind::ranks)) d.rank_csv = files.csv;
    if (job.tallies.has(TallyKind::positions)) d.position_csv = csv_part_path(files.csv, "position");
    if (job.tallies.has(TallyKind::poker)) d.category_csv = csv_part_path(files.csv, "categories");
  }
  outputs.declare("--csv", d.rank_csv);
  outputs.declare("--csv (position matrix)", d.position_csv);
  outputs.declare("--csv (poker categories)", d.category_csv);
  d.page = outputs.declare_report("--report", files.report_dir);
  return d;
}

void write_audit_files(Outputs& outputs, const DeclaredAuditFiles& d, const AuditView& view) {
  if (!d.given.json.empty())
    write_audit_json(outputs.open(d.given.json), view.job, view.run, view.report, view.input);
  if (!d.given.svg.empty()) outputs.write(d.given.svg, audit_svg(view));
  if (!d.rank_csv.empty()) audit_rank_csv(view, outputs.open(d.rank_csv));
  if (!d.position_csv.empty()) audit_position_csv(view, outputs.open(d.position_csv));
  if (!d.category_csv.empty()) audit_category_csv(view, outputs.open(d.category_csv));
  if (!d.page.empty()) outputs.write(d.page, audit_html(view));
}

// Reads a model written by `melange exact --json`; any fault is the caller's.
std::unique_ptr<ExactDistribution> read_model(const std::string& path, std::uint64_t memory_cap) {
  return std::make_unique<ExactDistribution>(read_exact_model(path, memory_cap));
}

}  // namespace melange::cli
