// Files a person opens: SVG charts, CSV tables and the HTML report of an
// audit, and the SVG of an exact distribution.
#pragma once

#include <ostream>
#include <string>

#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/job_text.hpp"

namespace melange::cli {

using namespace melange::report;

struct AuditView {
  const Job& job;
  const RunResult& run;
  const AuditReport& report;
  const ExactDistribution* model;  // null: uniform reference
  std::string model_arg;           // as given to --model ("" for uniform)
  const InputInfo* input = nullptr;  // an input audit's records; null for a built-in job
  const StatisticLaw* statistic_model = nullptr;  // a card shuffle's law of one statistic (--model exact)
};

// "melange audit ..." with every parameter spelled out, seed included.
std::string audit_command(const AuditView& v);
std::string audit_svg(const AuditView& v);
// The CSV tables, streamed: memory stays flat whatever n! is.
void audit_rank_csv(const AuditView& v, std::ostream& to);      // rank,label,count,expected,residual
void audit_position_csv(const AuditView& v, std::ostream& to);  // item,position,count,expected,residual
void audit_category_csv(const AuditView& v, std::ostream& to);  // category,count,expected,ratio,z
std::string audit_html(const AuditView& v);

std::string exact_svg(const ExactDistribution& d);

}  // namespace melange::cli
