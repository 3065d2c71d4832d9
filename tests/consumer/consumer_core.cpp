// melange::core alone: a stream's first word, one shuffle by the trial body,
// and an exact distribution's size.
#include <melange/exact.hpp>
#include <melange/stream.hpp>
#include <melange/trial.hpp>
#include <melange/version.hpp>

#include <cstdio>
#include <string>

int main() {
  // The version macros spell the version string.
  const std::string macros = std::to_string(MELANGE_VERSION_MAJOR) + "." + std::to_string(MELANGE_VERSION_MINOR) +
                             "." + std::to_string(MELANGE_VERSION_PATCH);
  if (macros != melange::kVersion) {
    std::printf("MELANGE_VERSION_* say %s, kVersion %s\n", macros.c_str(), melange::kVersion);
    return 1;
  }
  melange::PhiloxStream s(0, 0);
  melange::Job job;
  job.n = 4;
  job.trials = 1000;
  melange::Tally tally = melange::Tally::for_job(job);
  melange::tally_trials(job, 0, job.trials, tally);
  const melange::ExactDistribution d = melange::exact_distribution(melange::Algorithm::naive_swap, 3);
  std::printf("%08x %llu %llu\n", s.next(), static_cast<unsigned long long>(tally[melange::TallyKind::ranks].total()),
              static_cast<unsigned long long>(d.paths));
  return 0;
}
