#include "svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace melange::cli {
namespace {

constexpr double kWidth = 960, kHeight = 460;
constexpr double kLeft = 80, kRight = 30, kTop = 70, kBottom = 80;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string tick_text(double v) {
  char buf[32];
  if (v != 0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e6))
    std::snprintf(buf, sizeof buf, "%.2g", v);
  else
    std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A "nice" step for about `count` ticks over [0, top].
double nice_step(double top, int count) {
  const double raw = top / count;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

void header(std::ostringstream& o, double w, double h, const std::string& title,
            const std::string& subtitle) {
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(w) << "\" height=\"" << num(h)
    << "\" viewBox=\"0 0 " << num(w) << " " << num(h) << "\" font-family=\"sans-serif\">\n"
    << "<title>" << xml_escape(title) << "</title>\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << num(w / 2) << "\" y=\"26\" text-anchor=\"middle\" font-size=\"17\" "
       "font-weight=\"bold\">"
    << xml_escape(title) << "</text>\n"
    << "<text x=\"" << num(w / 2) << "\" y=\"48\" text-anchor=\"middle\" font-size=\"13\" "
       "fill=\"#444\">"
    << xml_escape(subtitle) << "</text>\n";
}

// White at zero, shading to red for positive and blue for negative; z in [-1, 1].
std::string diverging(double z) {
  z = std::clamp(z, -1.0, 1.0);
  const int red[3] = {0xd7, 0x30, 0x27}, blue[3] = {0x45, 0x75, 0xb4};
  const int* target = z >= 0 ? red : blue;
  const double t = std::fabs(z);
  int rgb[3];
  for (int k = 0; k < 3; ++k) rgb[k] = static_cast<int>(std::lround(255 + t * (target[k] - 255)));
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

// A rank chart's frame: the plot's size, the value axis's top and step,
// and where a value and a slot fall.
struct RankFrame {
  const RankChart& c;
  double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  double top = 0, step = 1, bar_w = 1;
  std::size_t points = 0;

  explicit RankFrame(const RankChart& chart) : c(chart), points(chart.values.size()) {
    for (std::size_t i = 0; i < points; ++i) {
      top = std::max(top, c.values[i]);
      const double s = c.sigma.empty() ? 0 : c.sigma[i];
      top = std::max(top, c.expected[i] + 3 * s);
    }
    if (top <= 0) top = 1;
    step = nice_step(top * 1.05, 5);
    top = std::ceil(top * 1.05 / step) * step;
    bar_w = plot_w / static_cast<double>(std::max<std::uint64_t>(c.bins, 1));
  }
  double y(double v) const { return kTop + plot_h * (1 - v / top); }
  double x(double slot) const { return kLeft + bar_w * slot; }
};

void rank_axes(std::ostream& o, const RankFrame& f) {
  const RankChart& c = f.c;
  const double plot_w = f.plot_w, plot_h = f.plot_h, top = f.top, step = f.step;
  const auto y = [&](double v) { return f.y(v); };
  for (double v = 0; v <= top + step / 2; v += step)
    o << "<line x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_w) << "\" y1=\"" << num(y(v))
      << "\" y2=\"" << num(y(v)) << "\" stroke=\"#e5e5e5\"/>\n<text x=\"" << num(kLeft - 6)
      << "\" y=\"" << num(y(v) + 4) << "\" text-anchor=\"end\" font-size=\"11\">" << tick_text(v)
      << "</text>\n";
  o << "<text x=\"18\" y=\"" << num(kTop + plot_h / 2) << "\" font-size=\"12\" text-anchor=\"middle\" "
    << "transform=\"rotate(-90 18 " << num(kTop + plot_h / 2) << ")\">" << xml_escape(c.y_label)
    << "</text>\n";

}

// The sorted curve: the band as one polygon and the lines as polylines.
void rank_curve(std::ostream& o, const RankFrame& f) {
  const RankChart& c = f.c;
  const std::size_t points = f.points;
  const auto y = [&](double v) { return f.y(v); };
  const auto x = [&](double slot) { return f.x(slot); };
  auto line = [&](const char* attrs, auto value) {
    o << "<polyline fill=\"none\" " << attrs << " points=\"";
    for (std::size_t i = 0; i < points; ++i)
      o << num(x(c.at[i] + 0.5)) << "," << num(y(value(i))) << " ";
    o << "\"/>\n";
  };
  if (!c.sigma.empty()) {
    o << "<polygon fill=\"#9ecae1\" fill-opacity=\"0.45\" points=\"";
    for (std::size_t i = 0; i < points; ++i)
      o << num(x(c.at[i] + 0.5)) << "," << num(y(c.expected[i] + 3 * c.sigma[i])) << " ";
    for (std::size_t i = points; i-- > 0;)
      o << num(x(c.at[i] + 0.5)) << "," << num(y(std::max(0.0, c.expected[i] - 3 * c.sigma[i]))) << " ";
    o << "\"/>\n";
  }
  // Observed last, on top of the reference it is read against.
  line("stroke=\"#d62728\" stroke-width=\"2\"", [&](std::size_t i) { return c.expected[i]; });
  line("stroke=\"#08519c\" stroke-width=\"1.5\"", [&](std::size_t i) { return c.values[i]; });
}

// Bars by rank: the +-3 sigma band and the expected line per bin (they
// follow the model), the observed bars between.
void rank_bars(std::ostream& o, const RankFrame& f) {
  const RankChart& c = f.c;
  const std::size_t points = f.points;
  const double bar_w = f.bar_w;
  const auto y = [&](double v) { return f.y(v); };
  const auto x = [&](double slot) { return f.x(slot); };
  if (!c.sigma.empty()) {
    o << "<g fill=\"#9ecae1\" fill-opacity=\"0.45\">\n";
    for (std::size_t i = 0; i < points; ++i) {
      const double lo = std::max(0.0, c.expected[i] - 3 * c.sigma[i]), hi = c.expected[i] + 3 * c.sigma[i];
      o << "<rect x=\"" << num(x(c.at[i])) << "\" y=\"" << num(y(hi)) << "\" width=\"" << num(bar_w)
        << "\" height=\"" << num(std::max(0.5, y(lo) - y(hi))) << "\"/>\n";
    }
    o << "</g>\n";
  }
  o << "<g fill=\"#3182bd\">\n";
  for (std::size_t i = 0; i < points; ++i)
    o << "<rect x=\"" << num(x(c.at[i]) + bar_w * 0.1) << "\" y=\"" << num(y(c.values[i]))
      << "\" width=\"" << num(bar_w * 0.8) << "\" height=\"" << num(y(0) - y(c.values[i]))
      << "\"><title>" << xml_escape(c.labels.empty() ? std::to_string(i) : c.labels[i]) << ": "
      << tick_text(c.values[i]) << "</title></rect>\n";
  o << "</g>\n<g stroke=\"#d62728\" stroke-width=\"2\">\n";
  for (std::size_t i = 0; i < points; ++i)
    o << "<line x1=\"" << num(x(c.at[i])) << "\" x2=\"" << num(x(c.at[i]) + bar_w) << "\" y1=\""
      << num(y(c.expected[i])) << "\" y2=\"" << num(y(c.expected[i])) << "\"/>\n";
  o << "</g>\n";
}

// The zero line, and labels under the bars where they fit, else what the
// x axis is.
void rank_x_axis(std::ostream& o, const RankFrame& f) {
  const RankChart& c = f.c;
  const std::size_t points = f.points;
  const double plot_w = f.plot_w, bar_w = f.bar_w;
  const auto y = [&](double v) { return f.y(v); };
  const auto x = [&](double slot) { return f.x(slot); };
  o << "<line x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_w) << "\" y1=\"" << num(y(0))
    << "\" y2=\"" << num(y(0)) << "\" stroke=\"black\"/>\n";

  // Labels under the bars when they fit; otherwise say what the x axis is.
  if (!c.sorted_curve && !c.labels.empty() && points <= 120) {
    const double font = points <= 30 ? 11 : 8;
    for (std::size_t i = 0; i < points; ++i) {
      const double cx = x(c.at[i]) + bar_w / 2, cy = y(0) + 8;
      o << "<text x=\"" << num(cx) << "\" y=\"" << num(cy) << "\" font-size=\"" << num(font)
        << "\" font-family=\"monospace\" text-anchor=\"end\" transform=\"rotate(-90 " << num(cx)
        << " " << num(cy) << ")\">" << xml_escape(c.labels[i]) << "</text>\n";
    }
  } else {
    o << "<text x=\"" << num(kLeft + plot_w / 2) << "\" y=\"" << num(kHeight - 40)
      << "\" text-anchor=\"middle\" font-size=\"12\">"
      << (c.sorted_curve ? "orders, most to least frequent" : "orders by Lehmer rank")
      << (c.note.empty() ? "" : " (" + xml_escape(c.note) + ")") << "</text>\n";
  }
}

void rank_legend(std::ostream& o, const RankChart& c) {
  const double ly = kHeight - 18;
  o << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(ly - 9) << "\" width=\"14\" height=\"10\" fill=\""
    << (c.sorted_curve ? "#08519c" : "#3182bd") << "\"/><text x=\"" << num(kLeft + 20) << "\" y=\""
    << num(ly) << "\" font-size=\"12\">observed</text>\n"
    << "<line x1=\"" << num(kLeft + 110) << "\" x2=\"" << num(kLeft + 130) << "\" y1=\"" << num(ly - 4)
    << "\" y2=\"" << num(ly - 4) << "\" stroke=\"#d62728\" stroke-width=\"2\"/><text x=\""
    << num(kLeft + 136) << "\" y=\"" << num(ly) << "\" font-size=\"12\">expected</text>\n";
  if (!c.sigma.empty())
    o << "<rect x=\"" << num(kLeft + 220) << "\" y=\"" << num(ly - 9)
      << "\" width=\"14\" height=\"10\" fill=\"#9ecae1\"/><text x=\"" << num(kLeft + 240) << "\" y=\""
      << num(ly) << "\" font-size=\"12\">expected \u00b1 3\u03c3</text>\n";
}

}  // namespace

std::string rank_chart_svg(const RankChart& c) {
  std::ostringstream o;
  header(o, kWidth, kHeight, c.title, c.subtitle);
  const RankFrame frame(c);
  rank_axes(o, frame);
  if (c.sorted_curve)
    rank_curve(o, frame);
  else
    rank_bars(o, frame);
  rank_x_axis(o, frame);
  rank_legend(o, c);
  o << "</svg>\n";
  return o.str();
}

std::string heatmap_svg(const Heatmap& m) {
  const int n = m.n, columns = m.columns > 0 ? m.columns : m.n;
  // At most kHeatmapCells cells a side, each a block of the matrix: row_block
  // items by column_block positions (square blocks for a square matrix).
  const int longer = std::max(n, columns);
  const int block = (longer + kHeatmapCells - 1) / kHeatmapCells;
  const int row_block = block, column_block = columns == n ? block : (columns + kHeatmapCells - 1) / kHeatmapCells;
  const int rows = (n + row_block - 1) / row_block, cols = (columns + column_block - 1) / column_block;
  const double cell = std::clamp(560.0 / std::max(rows, cols), 6.0, 48.0);
  const double grid_w = cell * cols, grid_h = cell * rows, left = 90, top = 80;
  const bool blocked = row_block > 1 || column_block > 1;
  const double w = std::max(kWidth, left + grid_w + 140), h = top + grid_h + 70 + (blocked ? 16 : 0);
  std::ostringstream o;
  header(o, w, h, m.title, m.subtitle);
  double zmax = 3;
  for (double z : m.residuals)
    if (std::isfinite(z)) zmax = std::max(zmax, std::fabs(z));
  auto range = [](int k, int size, int limit) {
    const int lo = k * size, hi = std::min(limit, lo + size) - 1;
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  };
  for (int bi = 0; bi < rows; ++bi)
    for (int bp = 0; bp < cols; ++bp) {
      // The block's residual of largest magnitude: a bias in one cell shows.
      double z = 0;
      for (int item = bi * row_block; item < std::min(n, (bi + 1) * row_block); ++item)
        for (int pos = bp * column_block; pos < std::min(columns, (bp + 1) * column_block); ++pos) {
          const double v = m.residuals[static_cast<std::size_t>(item) * columns + pos];
          if (!(std::fabs(v) <= std::fabs(z))) z = v;
        }
      o << "<rect x=\"" << num(left + bp * cell) << "\" y=\"" << num(top + bi * cell)
        << "\" width=\"" << num(cell) << "\" height=\"" << num(cell) << "\" fill=\""
        << diverging(std::isfinite(z) ? z / zmax : (z > 0 ? 1 : -1)) << "\"><title>"
        << (!blocked ? "item " + xml_escape(m.item_labels[bi]) + " at " + m.column_name + " " + std::to_string(bp) +
                           ": z = "
                     : "items " + range(bi, row_block, n) + " at " + m.column_name + "s " +
                           range(bp, column_block, columns) + ": largest |z| at z = ")
        << num(z) << "</title></rect>\n";
    }
  o << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(grid_w)
    << "\" height=\"" << num(grid_h) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  const double font = std::min(12.0, std::max(8.0, cell * 0.8));
  const int row_every = rows <= 26 ? 1 : (rows + 12) / 13, col_every = cols <= 26 ? 1 : (cols + 12) / 13;
  for (int k = 0; k < rows; k += row_every)
    o << "<text x=\"" << num(left - 6) << "\" y=\"" << num(top + (k + 0.5) * cell + font / 3)
      << "\" text-anchor=\"end\" font-size=\"" << num(font) << "\">"
      << xml_escape(row_block == 1 ? m.item_labels[k] : std::to_string(k * row_block)) << "</text>\n";
  for (int k = 0; k < cols; k += col_every)
    o << "<text x=\"" << num(left + (k + 0.5) * cell) << "\" y=\"" << num(top - 6)
      << "\" text-anchor=\"middle\" font-size=\"" << num(font) << "\">" << k * column_block << "</text>\n";
  o << "<text x=\"" << num(left + grid_w / 2) << "\" y=\"" << num(top + grid_h + 24)
    << "\" text-anchor=\"middle\" font-size=\"12\">" << m.column_name << "</text>\n<text x=\"20\" y=\""
    << num(top + grid_h / 2) << "\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 20 "
    << num(top + grid_h / 2) << ")\">item</text>\n";
  if (blocked)
    o << "<text x=\"" << num(left + grid_w / 2) << "\" y=\"" << num(top + grid_h + 42)
      << "\" text-anchor=\"middle\" font-size=\"12\">each cell is a " << row_block << " x " << column_block
      << " block of the " << n << " x " << columns << " matrix, coloured by its residual of largest |z|</text>\n";
  const double grid = grid_w;
  // Colour scale legend.
  const double lx = left + grid + 40, lh = std::min(std::max(grid_h, 120.0), 240.0);
  const int steps = 40;
  for (int s = 0; s < steps; ++s) {
    const double z = 1 - 2.0 * s / (steps - 1);
    o << "<rect x=\"" << num(lx) << "\" y=\"" << num(top + lh * s / steps) << "\" width=\"18\" height=\""
      << num(lh / steps + 0.5) << "\" fill=\"" << diverging(z) << "\"/>\n";
  }
  o << "<rect x=\"" << num(lx) << "\" y=\"" << num(top) << "\" width=\"18\" height=\"" << num(lh)
    << "\" fill=\"none\" stroke=\"#333\"/>\n";
  for (double f : {1.0, 0.5, 0.0, -0.5, -1.0})
    o << "<text x=\"" << num(lx + 24) << "\" y=\"" << num(top + lh * (1 - f) / 2 + 4)
      << "\" font-size=\"11\">" << num(f * zmax) << "</text>\n";
  o << "<text x=\"" << num(lx) << "\" y=\"" << num(top + lh + 20)
    << "\" font-size=\"11\">standardized</text><text x=\"" << num(lx) << "\" y=\"" << num(top + lh + 34)
    << "\" font-size=\"11\">residual z</text>\n</svg>\n";
  return o.str();
}

std::string category_chart_svg(const CategoryChart& c) {
  const std::size_t bars = c.names.size();
  std::ostringstream o;
  header(o, kWidth, kHeight, c.title, c.subtitle);
  // A log10 axis from below the smallest expectation or count to above the largest.
  double lo = 1e300, hi = 1;
  for (std::size_t i = 0; i < bars; ++i) {
    const double other = c.other.empty() ? 0 : c.other[i];
    for (double v : {c.observed[i], c.expected[i], c.expected[i] - 3 * c.sigma[i], other})
      if (v > c.floor && v > 0) lo = std::min(lo, v);
    hi = std::max({hi, c.observed[i], c.expected[i] + 3 * c.sigma[i], other});
  }
  const double y0 = std::floor(std::log10(std::min(lo, hi)) - 0.3), y1 = std::ceil(std::log10(hi) + 0.1);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto y_of = [&](double v) {
    const double l = v > 0 ? std::log10(v) : y0;
    return kTop + plot_h * (1 - (std::clamp(l, y0, y1) - y0) / (y1 - y0));
  };
  for (double e = y0; e <= y1; e += 1) {
    o << "<line x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_w) << "\" y1=\"" << num(y_of(std::pow(10, e)))
      << "\" y2=\"" << num(y_of(std::pow(10, e))) << "\" stroke=\"#eee\"/>\n<text x=\"" << num(kLeft - 8) << "\" y=\""
      << num(y_of(std::pow(10, e)) + 4) << "\" text-anchor=\"end\" font-size=\"11\">" << tick_text(std::pow(10, e))
      << "</text>\n";
  }
  const double slot = plot_w / static_cast<double>(std::max<std::size_t>(bars, 1)), bar = slot * 0.5;
  for (std::size_t i = 0; i < bars; ++i) {
    const double x = kLeft + slot * static_cast<double>(i) + (slot - bar) / 2;
    const double band_lo = std::max(c.expected[i] - 3 * c.sigma[i], 0.0), band_hi = c.expected[i] + 3 * c.sigma[i];
    o << "<rect x=\"" << num(x - bar * 0.15) << "\" y=\"" << num(y_of(band_hi)) << "\" width=\"" << num(bar * 1.3)
      << "\" height=\"" << num(std::max(1.0, y_of(band_lo) - y_of(band_hi))) << "\" fill=\"#fde2b8\"><title>"
      << xml_escape(c.names[i]) << ": expected " << tick_text(c.expected[i]) << " +- 3 sigma</title></rect>\n";
    o << "<rect x=\"" << num(x) << "\" y=\"" << num(y_of(c.observed[i])) << "\" width=\"" << num(bar)
      << "\" height=\"" << num(kTop + plot_h - y_of(c.observed[i])) << "\" fill=\"#4575b4\" fill-opacity=\"0.8\"><title>"
      << xml_escape(c.names[i]) << ": observed " << tick_text(c.observed[i]) << "</title></rect>\n";
    o << "<line x1=\"" << num(x - bar * 0.15) << "\" x2=\"" << num(x + bar * 1.15) << "\" y1=\"" << num(y_of(c.expected[i]))
      << "\" y2=\"" << num(y_of(c.expected[i])) << "\" stroke=\"#d73027\" stroke-width=\"2\"/>\n";
    if (!c.other.empty() && c.other[i] > 0)
      o << "<line x1=\"" << num(x - bar * 0.15) << "\" x2=\"" << num(x + bar * 1.15) << "\" y1=\"" << num(y_of(c.other[i]))
        << "\" y2=\"" << num(y_of(c.other[i])) << "\" stroke=\"#777\" stroke-width=\"2\" stroke-dasharray=\"3 2\"><title>"
        << xml_escape(c.names[i]) << ": " << xml_escape(c.other_name) << " " << tick_text(c.other[i]) << "</title></line>\n";
    o << "<text x=\"" << num(x + bar / 2) << "\" y=\"" << num(kTop + plot_h + 16) << "\" text-anchor=\"middle\" "
      << "font-size=\"11\">" << xml_escape(c.names[i]) << "</text>\n";
  }
  o << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(kTop) << "\" width=\"" << num(plot_w) << "\" height=\"" << num(plot_h)
    << "\" fill=\"none\" stroke=\"#333\"/>\n";
  o << "<text x=\"" << num(kLeft + plot_w / 2) << "\" y=\"" << num(kHeight - 30) << "\" text-anchor=\"middle\" "
    << "font-size=\"12\">bars: observed (log scale); red line: " << xml_escape(c.expected_name)
    << (c.other.empty() ? std::string() : "; grey dashes: " + xml_escape(c.other_name))
    << "; band: expected +- 3 sigma</text>\n<text x=\"20\" y=\"" << num(kTop + plot_h / 2)
    << "\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 20 " << num(kTop + plot_h / 2) << ")\">"
    << xml_escape(c.count_name) << "</text>\n</svg>\n";
  return o.str();
}

std::string stack_svg(const std::vector<std::string>& charts) {
  if (charts.size() == 1) return charts[0];
  // Nest each chart as an <svg> element at its own offset.
  double y = 0, w = 0;
  std::ostringstream body;
  for (const std::string& c : charts) {
    double cw = 0, ch = 0;
    std::sscanf(c.c_str(), "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%lf\" height=\"%lf\"", &cw, &ch);
    body << "<svg x=\"0\" y=\"" << num(y) << "\"" << c.substr(c.find(" width="));
    y += ch;
    w = std::max(w, cw);
  }
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(w) << "\" height=\"" << num(y)
    << "\" viewBox=\"0 0 " << num(w) << " " << num(y) << "\">\n" << body.str() << "</svg>\n";
  return o.str();
}

}  // namespace melange::cli
