// Self-contained SVG charts, written without external tools.
#pragma once

#include <string>
#include <vector>

namespace melange::cli {

struct RankChart {
  std::string title, subtitle;    // algorithm, method, n, trials, seed, verdict
  std::string y_label;            // "count" or "probability"
  std::vector<double> values;     // by rank
  std::vector<double> expected;   // by rank: the reference line
  std::vector<double> sigma;      // by rank: the band is expected +- 3 sigma (empty: no band)
  std::vector<std::string> labels;  // by rank; drawn under the bars when there are few
  bool sorted_curve = false;      // many orders: draw the values sorted, as a curve
};

struct Heatmap {
  std::string title, subtitle;
  int n = 0;
  std::vector<double> residuals;  // n x n, row = item, column = position
  std::vector<std::string> item_labels;
};

std::string rank_chart_svg(const RankChart& chart);
std::string heatmap_svg(const Heatmap& map);
// Several charts stacked into one SVG document.
std::string stack_svg(const std::vector<std::string>& charts);
// Text escaped for XML content and attributes.
std::string xml_escape(const std::string& s);

}  // namespace melange::cli
