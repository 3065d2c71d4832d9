// A job in words, as every report starts.
#pragma once

#include <string>

#include "melange/job.hpp"

namespace melange::report {

// "fisher-yates, n 4, lemire/32-bit, seed S": the job's rows' phrases
// (job_description in melange/job_fields.hpp).
std::string describe(const Job& job);

}  // namespace melange::report
