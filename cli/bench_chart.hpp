// The chart of `melange bench --svg`: shuffles per second against n on
// log-log axes, one line per series (backend x threads, and std::shuffle's).
#pragma once

#include <string>
#include <vector>

namespace melange::cli {

struct BenchChart {
  struct Series {
    std::string name;
    bool peer = false;  // a peer: drawn in grey, each peer with a dash pattern of its own
    std::vector<double> n, rate;
    std::vector<bool> fallback;  // ran on the scalar path: drawn hollow
  };
  std::string title, subtitle;
  std::vector<Series> series;
  // Adds the point (n, rate) to the series `name`, once per n.
  void add(const std::string& name, bool peer, double n, double rate, bool fallback = false);
};

std::string bench_chart_svg(const BenchChart& chart);

}  // namespace melange::cli
