// A job in words, as every report starts.
#pragma once

#include <string>
#include <vector>

#include "melange/job.hpp"

namespace melange::report {

// "fisher-yates, n 4, lemire/32-bit, seed S".
std::string describe(const Job& job);
// "1,2.5,4": weights as a list.
std::string weights_text(const std::vector<double>& weights);

}  // namespace melange::report
