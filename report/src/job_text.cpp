#include "melange/report/job_text.hpp"

#include "melange/number_text.hpp"

namespace melange::report {

std::string weights_text(const std::vector<double>& weights) {
  std::string text;
  for (double w : weights) {
    if (!text.empty()) text += ',';
    text += number_text(w, std::chars_format::general, 10);
  }
  return text;
}

std::string describe(const Job& job) {
  // The weighted orders read raw words: no bounded method to name.
  const std::string draws = draw_kind(job.algorithm) == DrawKind::keys
                                ? "weights " + weights_text(job.weights)
                                : std::string(method_name(job.spec.method)) + "/" + std::to_string(job.spec.bits) + "-bit";
  return std::string(algorithm_name(job.algorithm)) + ", n " + std::to_string(job.n) +
         (is_deal(job) ? ", k " + std::to_string(job.k) : std::string()) +
         (job.riffles ? ", " + std::to_string(job.riffles) + " riffles" : std::string()) +
         (job.shelves ? ", " + std::to_string(job.shelves) + " shelves, " + std::to_string(job.passes) +
                            (job.passes == 1 ? " pass" : " passes")
                      : std::string()) +
         ", " + draws + ", seed " +
         std::to_string(job.seed);
}

}  // namespace melange::report
