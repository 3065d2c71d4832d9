// The files an audit writes (--json, --svg, --csv and its parts, --report),
// declared before the work and written after it: `audit` and `merge` write
// the same ones from the same view.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "artifacts.hpp"
#include "output.hpp"

namespace melange::cli {

struct AuditFiles {
  std::string json, svg, csv, report_dir;
};

// The paths as declared: the CSV's parts beside FILE, the report's page.
struct DeclaredAuditFiles {
  AuditFiles given;
  std::string rank_csv, position_csv, category_csv, page;
};

// Declares every file the job's tallies call for; throws UsageError for a
// bad one, or for --csv when the job has no table.
// Bytes kept back from a --memory-cap for what is not a tally, so that the
// cap bounds the whole process: the program as it stands (its code,
// libraries and heap, resident now, read from the kernel) and the output
// buffers (charts and pages are a few MB at most, tables stream; a quarter
// of a small cap). Audit and merge plan with it; a cap the program alone
// fills is refused, naming the least that would do.
std::uint64_t program_reserve(std::uint64_t cap);

DeclaredAuditFiles declare_audit_files(Outputs& outputs, const AuditFiles& files, const Job& job);

// Writes them (standard output's text is the caller's).
void write_audit_files(Outputs& outputs, const DeclaredAuditFiles& files, const AuditView& view);

// Reads a model written by `melange exact --json`; any fault is the caller's.
std::unique_ptr<ExactDistribution> read_model(const std::string& path, std::uint64_t memory_cap);

}  // namespace melange::cli
