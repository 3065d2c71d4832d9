// `melange bench --mode predict`: seeds searched per second, for each
// predictable family (melange/predict/families.hpp), a whole deck and a
// 5-card deal, on each thread count, and what a whole space would take.
#pragma once

#include <string>
#include <vector>

namespace melange::cli {

struct PredictBenchArgs {
  std::vector<std::string> families;  // empty: every family
  std::vector<int> threads;
  double seconds = 20;  // for the whole bench
  std::string json;
  bool quiet = false;
};

int run_predict_bench(const PredictBenchArgs& a);

}  // namespace melange::cli
