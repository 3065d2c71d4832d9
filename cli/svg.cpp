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

std::string rank_chart_svg(const RankChart& c) {
  std::ostringstream o;
  header(o, kWidth, kHeight, c.title, c.subtitle);
  const std::size_t points = c.values.size();
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  double top = 0;
  for (std::size_t i = 0; i < points; ++i) {
    top = std::max(top, c.values[i]);
    const double s = c.sigma.empty() ? 0 : c.sigma[i];
    top = std::max(top, c.expected[i] + 3 * s);
  }
  if (top <= 0) top = 1;
  const double step = nice_step(top * 1.05, 5);
  top = std::ceil(top * 1.05 / step) * step;
  auto y = [&](double v) { return kTop + plot_h * (1 - v / top); };
  const double bar_w = plot_w / static_cast<double>(std::max<std::uint64_t>(c.bins, 1));
  auto x = [&](double slot) { return kLeft + bar_w * slot; };

  // Axes and grid.
  for (double v = 0; v <= top + step / 2; v += step)
    o << "<line x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_w) << "\" y1=\"" << num(y(v))
      << "\" y2=\"" << num(y(v)) << "\" stroke=\"#e5e5e5\"/>\n<text x=\"" << num(kLeft - 6)
      << "\" y=\"" << num(y(v) + 4) << "\" text-anchor=\"end\" font-size=\"11\">" << tick_text(v)
      << "</text>\n";
  o << "<text x=\"18\" y=\"" << num(kTop + plot_h / 2) << "\" font-size=\"12\" text-anchor=\"middle\" "
    << "transform=\"rotate(-90 18 " << num(kTop + plot_h / 2) << ")\">" << xml_escape(c.y_label)
    << "</text>\n";

  if (c.sorted_curve) {
    // The band as one polygon and the lines as polylines through the points.
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
  } else {
    // The +-3 sigma band and the expected line, per bin (they follow the model).
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
  // Legend.
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
  o << "</svg>\n";
  return o.str();
}

std::string heatmap_svg(const Heatmap& m) {
  const int n = m.n;
  // Cells a side, each a block x block square of the matrix.
  const int block = (n + kHeatmapCells - 1) / kHeatmapCells;
  const int cells = (n + block - 1) / block;
  const double cell = std::clamp(560.0 / cells, 6.0, 48.0);
  const double grid = cell * cells, left = 90, top = 80;
  const double w = std::max(kWidth, left + grid + 140), h = top + grid + 70 + (block > 1 ? 16 : 0);
  std::ostringstream o;
  header(o, w, h, m.title, m.subtitle);
  double zmax = 3;
  for (double z : m.residuals)
    if (std::isfinite(z)) zmax = std::max(zmax, std::fabs(z));
  auto range = [&](int k) {
    const int lo = k * block, hi = std::min(n, lo + block) - 1;
    return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  };
  for (int bi = 0; bi < cells; ++bi)
    for (int bp = 0; bp < cells; ++bp) {
      // The block's residual of largest magnitude: a bias in one cell shows.
      double z = 0;
      for (int item = bi * block; item < std::min(n, (bi + 1) * block); ++item)
        for (int pos = bp * block; pos < std::min(n, (bp + 1) * block); ++pos) {
          const double v = m.residuals[static_cast<std::size_t>(item) * n + pos];
          if (!(std::fabs(v) <= std::fabs(z))) z = v;
        }
      o << "<rect x=\"" << num(left + bp * cell) << "\" y=\"" << num(top + bi * cell)
        << "\" width=\"" << num(cell) << "\" height=\"" << num(cell) << "\" fill=\""
        << diverging(std::isfinite(z) ? z / zmax : (z > 0 ? 1 : -1)) << "\"><title>"
        << (block == 1 ? "item " + xml_escape(m.item_labels[bi]) + " at position " + std::to_string(bp) +
                             ": z = "
                       : "items " + range(bi) + " at positions " + range(bp) + ": largest |z| at z = ")
        << num(z) << "</title></rect>\n";
    }
  o << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(grid)
    << "\" height=\"" << num(grid) << "\" fill=\"none\" stroke=\"#333\"/>\n";
  const int label_every = cells <= 26 ? 1 : (cells + 12) / 13;
  const double font = std::min(12.0, std::max(8.0, cell * 0.8));
  for (int k = 0; k < cells; k += label_every) {
    o << "<text x=\"" << num(left - 6) << "\" y=\"" << num(top + (k + 0.5) * cell + font / 3)
      << "\" text-anchor=\"end\" font-size=\"" << num(font) << "\">"
      << xml_escape(block == 1 ? m.item_labels[k] : std::to_string(k * block)) << "</text>\n<text x=\""
      << num(left + (k + 0.5) * cell) << "\" y=\"" << num(top - 6) << "\" text-anchor=\"middle\" font-size=\""
      << num(font) << "\">" << k * block << "</text>\n";
  }
  o << "<text x=\"" << num(left + grid / 2) << "\" y=\"" << num(top + grid + 24)
    << "\" text-anchor=\"middle\" font-size=\"12\">position</text>\n<text x=\"20\" y=\""
    << num(top + grid / 2) << "\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 20 "
    << num(top + grid / 2) << ")\">item</text>\n";
  if (block > 1)
    o << "<text x=\"" << num(left + grid / 2) << "\" y=\"" << num(top + grid + 42)
      << "\" text-anchor=\"middle\" font-size=\"12\">each cell is a " << block << " x " << block
      << " block of the " << n << " x " << n << " matrix, coloured by its residual of largest |z|</text>\n";
  // Colour scale legend.
  const double lx = left + grid + 40, lh = std::min(grid, 240.0);
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
