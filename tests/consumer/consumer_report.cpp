// melange::report: an audit's JSON document written, then read back by
// merge_results, as a program outside melange would.
#include <melange/audit.hpp>
#include <melange/engine.hpp>
#include <melange/report/audit.hpp>
#include <melange/report/format.hpp>
#include <melange/report/merge.hpp>

#include <cstdio>
#include <fstream>

int main() {
  melange::Job job;
  job.n = 4;
  job.trials = 1000;
  const melange::RunResult r = melange::run(job);
  {
    std::ofstream out("consumer_report.json");
    melange::report::write_audit_json(out, job, r, melange::analyze(job, r.tally));
  }
  const melange::report::MergedResult m = melange::report::merge_results({"consumer_report.json"}, 1 << 20);
  std::printf("%s trials, %llu orders, merged %s\n", melange::report::grouped(r.tally.trials).c_str(),
              static_cast<unsigned long long>(r.tally[melange::TallyKind::ranks].bins()),
              melange::report::grouped(m.run.tally.trials).c_str());
  return 0;
}
