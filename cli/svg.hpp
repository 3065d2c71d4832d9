// Self-contained SVG charts, written without external tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace melange::cli {

// Few orders are drawn as a bar each; many as a curve of the counts sorted
// from most to least frequent, through at most kChartPoints points, so that
// a chart stays small at any n.
inline constexpr std::size_t kChartPoints = 2000;

struct RankChart {
  std::string title, subtitle;    // algorithm, method, n, trials, seed, verdict
  std::string y_label;            // "count" or "probability"
  std::uint64_t bins = 0;         // orders along the x axis
  // The points drawn, in x order: at[i] is the slot on the x axis (a rank for
  // bars, a place in the sorted order for the curve), at most kChartPoints.
  std::vector<double> at;
  std::vector<double> values;     // observed
  std::vector<double> expected;   // the reference line
  std::vector<double> sigma;      // the band is expected +- 3 sigma (empty: no band)
  std::vector<std::string> labels;  // per point, drawn under the bars when there are few
  bool sorted_curve = false;      // many orders: the values sorted, as a curve
  std::string note;               // said under the chart, e.g. how it was thinned
};

// At most kHeatmapCells cells a side: a larger matrix is drawn in square
// blocks, each coloured by its residual of largest magnitude.
inline constexpr int kHeatmapCells = 96;

struct Heatmap {
  std::string title, subtitle;
  int n = 0;
  int columns = 0;                // n positions, or a deal's k slots (0: n)
  std::string column_name = "position";
  std::vector<double> residuals;  // n x columns, row = item
  std::vector<std::string> item_labels;
};

// Bars on a log scale, observed against expected with the expected +- 3 sigma
// band: the poker categories of a deal audit.
struct CategoryChart {
  std::string title, subtitle;
  std::vector<std::string> names;
  std::vector<double> observed, expected, sigma;
  std::string expected_name = "expected under a fair deal";
  // A second law's expectations, drawn as a grey tick (empty: none).
  std::vector<double> other;
  std::string other_name;
  std::string count_name = "deals";  // the y axis
  double floor = 0;  // the axis starts at the smallest value above this (a bar below it sits on the axis)
};
std::string category_chart_svg(const CategoryChart& chart);

std::string rank_chart_svg(const RankChart& chart);
std::string heatmap_svg(const Heatmap& map);
// Several charts stacked into one SVG document.
std::string stack_svg(const std::vector<std::string>& charts);
// Text escaped for XML content and attributes.
std::string xml_escape(const std::string& s);

}  // namespace melange::cli
