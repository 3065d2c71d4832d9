#include "melange/report/job_text.hpp"

#include "melange/job_fields.hpp"

namespace melange::report {

std::string describe(const Job& job) { return job_description(job); }

}  // namespace melange::report
