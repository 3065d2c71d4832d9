#include "bench_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "melange/report/format.hpp"
#include "svg.hpp"

namespace melange::cli {

using namespace melange::report;
namespace {

constexpr double kWidth = 960, kHeight = 520;
constexpr double kLeft = 90, kRight = 330, kTop = 70, kBottom = 60;
// The report's palette, one colour a series in turn.
constexpr const char* kColours[] = {"#08519c", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#3182bd"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string power_text(int e) {
  if (e == 0) return "1";
  if (e == 1) return "10";
  return "1e" + std::to_string(e);
}

}  // namespace

void BenchChart::add(const std::string& name, bool peer, double n, double rate, bool fallback) {
  auto it = std::find_if(series.begin(), series.end(), [&](const Series& s) { return s.name == name; });
  if (it == series.end()) {
    series.push_back({name, peer, {}, {}, {}});
    it = series.end() - 1;
  }
  if (std::find(it->n.begin(), it->n.end(), n) != it->n.end()) return;
  it->n.push_back(n);
  it->rate.push_back(rate);
  it->fallback.push_back(fallback);
}

std::string bench_chart_svg(const BenchChart& c) {
  double n_lo = 1e300, n_hi = 0, r_lo = 1e300, r_hi = 0;
  std::vector<double> ns;  // the n measured: the x axis' ticks
  bool any_fallback = false;
  for (const auto& s : c.series)
    for (std::size_t i = 0; i < s.n.size(); ++i) {
      if (!(s.rate[i] > 0)) continue;
      n_lo = std::min(n_lo, s.n[i]);
      n_hi = std::max(n_hi, s.n[i]);
      r_lo = std::min(r_lo, s.rate[i]);
      r_hi = std::max(r_hi, s.rate[i]);
      if (std::find(ns.begin(), ns.end(), s.n[i]) == ns.end()) ns.push_back(s.n[i]);
      any_fallback = any_fallback || s.fallback[i];
    }
  if (n_hi == 0) n_lo = 1, n_hi = 10, r_lo = 1, r_hi = 10;
  // x: the measured n with a margin; y: whole decades around the points.
  const double span = std::max(std::log10(n_hi / n_lo), 1.0);
  const double x0 = std::log10(n_lo) - 0.06 * span, x1 = std::log10(n_lo) + 1.06 * span;
  const int y0 = static_cast<int>(std::floor(std::log10(r_lo))), y1 = std::max(y0 + 1, static_cast<int>(std::ceil(std::log10(r_hi))));
  const double legend_h = 17.0 * static_cast<double>(c.series.size() + (any_fallback ? 2 : 0)) + 12;
  const double height = std::max(kHeight, kTop + legend_h + kBottom);
  const double plot_w = kWidth - kLeft - kRight, plot_h = height - kTop - kBottom;
  const auto x = [&](double n) { return kLeft + (std::log10(n) - x0) / (x1 - x0) * plot_w; };
  const auto y = [&](double r) { return kTop + plot_h - (std::log10(r) - y0) / (y1 - y0) * plot_h; };

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(kWidth) << "\" height=\"" << num(height)
    << "\" viewBox=\"0 0 " << num(kWidth) << " " << num(height) << "\" font-family=\"sans-serif\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << num(kLeft + plot_w / 2) << "\" y=\"26\" text-anchor=\"middle\" font-size=\"17\" "
    << "font-weight=\"bold\">" << xml_escape(c.title) << "</text>\n"
    << "<text x=\"" << num(kLeft + plot_w / 2) << "\" y=\"48\" text-anchor=\"middle\" font-size=\"13\" fill=\"#555\">"
    << xml_escape(c.subtitle) << "</text>\n";
  for (int e = y0; e <= y1; ++e)
    o << "<line x1=\"" << num(kLeft) << "\" x2=\"" << num(kLeft + plot_w) << "\" y1=\"" << num(y(std::pow(10.0, e)))
      << "\" y2=\"" << num(y(std::pow(10.0, e))) << "\" stroke=\"#e5e5e5\"/>\n<text x=\"" << num(kLeft - 6)
      << "\" y=\"" << num(y(std::pow(10.0, e)) + 4) << "\" text-anchor=\"end\" font-size=\"11\">" << power_text(e)
      << "</text>\n";
  for (double n : ns)
    o << "<line x1=\"" << num(x(n)) << "\" x2=\"" << num(x(n)) << "\" y1=\"" << num(kTop) << "\" y2=\""
      << num(kTop + plot_h) << "\" stroke=\"#e5e5e5\"/>\n<text x=\"" << num(x(n)) << "\" y=\""
      << num(kTop + plot_h + 18) << "\" text-anchor=\"middle\" font-size=\"11\">" << general(n, 6) << "</text>\n";
  o << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(kTop) << "\" width=\"" << num(plot_w) << "\" height=\""
    << num(plot_h) << "\" fill=\"none\" stroke=\"#999\"/>\n"
    << "<text x=\"" << num(kLeft + plot_w / 2) << "\" y=\"" << num(height - 16)
    << "\" text-anchor=\"middle\" font-size=\"12\">n (items shuffled, log scale)</text>\n"
    << "<text x=\"22\" y=\"" << num(kTop + plot_h / 2) << "\" font-size=\"12\" text-anchor=\"middle\" "
    << "transform=\"rotate(-90 22 " << num(kTop + plot_h / 2) << ")\">shuffles per second (log scale)</text>\n";

  // Each peer line a style of its own (a grey and a dash pattern), ours a colour each.
  static constexpr const char* kPeerStyles[][2] = {
      {"#555555", "6 4"}, {"#999999", "2 3"}, {"#333333", "10 3 2 3"}, {"#777777", "1 3"}, {"#aaaaaa", "8 2"}};
  std::size_t colour = 0, peer = 0;
  double legend_y = kTop + 6;
  for (const auto& s : c.series) {
    std::vector<std::size_t> order(s.n.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.n[a] < s.n[b]; });
    const auto* style = s.peer ? kPeerStyles[peer++ % std::size(kPeerStyles)] : nullptr;
    const std::string stroke = s.peer ? style[0] : kColours[colour++ % std::size(kColours)];
    const std::string dash = s.peer ? " stroke-dasharray=\"" + std::string(style[1]) + "\"" : "";
    o << "<polyline fill=\"none\" stroke=\"" << stroke << "\" stroke-width=\"2\"" << dash << " points=\"";
    for (std::size_t i : order)
      if (s.rate[i] > 0) o << num(x(s.n[i])) << "," << num(y(s.rate[i])) << " ";
    o << "\"/>\n<g stroke=\"" << stroke << "\" stroke-width=\"1.5\">";
    for (std::size_t i : order)
      if (s.rate[i] > 0)
        o << "<circle cx=\"" << num(x(s.n[i])) << "\" cy=\"" << num(y(s.rate[i])) << "\" r=\"3.5\" fill=\""
          << (s.fallback[i] ? "white" : stroke) << "\"><title>" << xml_escape(s.name) << ", n " << general(s.n[i], 6)
          << ": " << general(s.rate[i], 3) << " shuffles/s" << (s.fallback[i] ? " (scalar path)" : "")
          << "</title></circle>";
    o << "</g>\n<line x1=\"" << num(kWidth - kRight + 16) << "\" x2=\"" << num(kWidth - kRight + 40) << "\" y1=\""
      << num(legend_y) << "\" y2=\"" << num(legend_y) << "\" stroke=\"" << stroke << "\" stroke-width=\"2\"" << dash
      << "/>\n<text x=\"" << num(kWidth - kRight + 46) << "\" y=\"" << num(legend_y + 4) << "\" font-size=\"11\">"
      << xml_escape(s.name) << "</text>\n";
    legend_y += 17;
  }
  if (any_fallback)
    o << "<circle cx=\"" << num(kWidth - kRight + 28) << "\" cy=\"" << num(legend_y + 10)
      << "\" r=\"3.5\" fill=\"white\" stroke=\"#555\" stroke-width=\"1.5\"/>\n<text x=\""
      << num(kWidth - kRight + 46) << "\" y=\"" << num(legend_y + 14) << "\" font-size=\"11\" fill=\"#555\">"
      << "hollow: no kernel for that job here, the scalar path ran it</text>\n";
  o << "</svg>\n";
  return o.str();
}

}  // namespace melange::cli
