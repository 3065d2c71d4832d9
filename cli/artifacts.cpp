#include "artifacts.hpp"

#include <cmath>
#include <sstream>

#include "format.hpp"
#include "melange/rank.hpp"
#include "melange/version.hpp"
#include "svg.hpp"

namespace melange::cli {
namespace {

std::string verdict_text(const AuditReport& r) {
  return r.verdict ? std::string(verdict_name(*r.verdict)) : "no verdict";
}

std::string subtitle(const AuditView& v) {
  return std::string(method_name(v.job.spec.method)) + "/" + std::to_string(v.job.spec.bits) +
         "-bit, n = " + std::to_string(v.job.n) + ", " + grouped(v.job.trials) + " trials from " +
         std::to_string(v.job.first) + ", seed " + std::to_string(v.job.seed) + ", verdict " +
         verdict_text(v.report);
}

std::vector<std::string> rank_labels(int n) {
  std::vector<std::string> labels;
  for (std::uint64_t r = 0; r < factorial(n); ++r) labels.push_back(rank_label(r, n));
  return labels;
}

std::vector<std::string> item_labels(int n) {
  std::vector<std::string> labels;
  for (int i = 0; i < n; ++i)
    labels.push_back(n <= kMaxLabelItems ? std::string(1, static_cast<char>('A' + i)) : std::to_string(i));
  return labels;
}

std::vector<double> position_expected(const AuditView& v) {
  return v.model ? v.model->position_probabilities() : std::vector<double>{};
}

std::string fit_row(const std::string& name, const TestResult& t) {
  std::ostringstream o;
  o << "<tr><td>" << name << "</td><td>" << fixed(t.fit.statistic, 2) << "</td><td>"
    << fixed(t.fit.df, 0) << "</td><td>" << p_text(t.fit.p_value, t.fit.log10_p) << "</td><td>"
    << fixed(t.fit.log10_p, 2) << "</td><td>" << fixed(t.fit.critical, 2) << "</td><td>"
    << fixed(t.fit.g_statistic, 2) << "</td><td>" << p_text(t.p_holm, t.log10_p_holm)
    << "</td><td class=\"v" << verdict_name(t.verdict) << "\">" << verdict_name(t.verdict)
    << "</td></tr>\n";
  return o.str();
}

}  // namespace

std::string audit_command(const AuditView& v) {
  std::ostringstream o;
  o << "melange audit --algo " << algorithm_name(v.job.algorithm) << " --n " << v.job.n
    << " --trials " << v.job.trials << " --seed " << v.job.seed << " --first " << v.job.first
    << " --method " << method_name(v.job.spec.method) << " --bits " << v.job.spec.bits;
  if (v.job.position_matrix) o << " --position";
  if (!v.job.rank_histogram) o << " --no-rank";
  if (!v.model_arg.empty()) o << " --model " << v.model_arg;
  return o.str();
}

std::string audit_svg(const AuditView& v) {
  std::vector<std::string> charts;
  const auto& h = v.run.tally.ranks;
  const std::string title = std::string(algorithm_name(v.job.algorithm)) + ": orders";
  if (!h.empty()) {
    RankChart c;
    c.title = title + " (" + v.report.reference + " reference)";
    c.subtitle = subtitle(v);
    c.y_label = "count";
    const std::vector<double> ref = reference_probabilities(v.job.n, v.model);
    const double trials = static_cast<double>(v.job.trials);
    for (std::uint64_t r = 0; r < h.bins(); ++r) {
      c.values.push_back(static_cast<double>(h.counts()[r]));
      c.expected.push_back(trials * ref[r]);
      c.sigma.push_back(std::sqrt(trials * ref[r] * (1 - ref[r])));
    }
    c.sorted_curve = v.job.n > 5;
    if (!c.sorted_curve) c.labels = rank_labels(v.job.n);
    charts.push_back(rank_chart_svg(c));
  }
  if (!v.run.tally.positions.empty()) {
    Heatmap m;
    m.title = std::string(algorithm_name(v.job.algorithm)) + ": item x position residuals";
    m.subtitle = subtitle(v);
    m.n = v.job.n;
    m.residuals = position_residuals(v.run.tally.positions, position_expected(v));
    m.item_labels = item_labels(v.job.n);
    charts.push_back(heatmap_svg(m));
  }
  return stack_svg(charts);
}

std::string audit_rank_csv(const AuditView& v) {
  std::ostringstream o;
  o << "rank,label,count,expected,residual\n";
  const auto& h = v.run.tally.ranks;
  const std::vector<double> ref = reference_probabilities(v.job.n, v.model);
  for (std::uint64_t r = 0; r < h.bins(); ++r) {
    const double e = static_cast<double>(v.job.trials) * ref[r];
    const double c = static_cast<double>(h.counts()[r]);
    o << r << "," << rank_label(r, v.job.n) << "," << h.counts()[r] << "," << general(e, 10) << ","
      << (e > 0 ? general((c - e) / std::sqrt(e), 8) : std::string(c > 0 ? "inf" : "0")) << "\n";
  }
  return o.str();
}

std::string audit_position_csv(const AuditView& v) {
  std::ostringstream o;
  o << "item,position,count,expected,residual\n";
  const auto& m = v.run.tally.positions;
  const std::vector<double> expected = position_expected(v);
  const std::vector<double> z = position_residuals(m, expected);
  const double trials = static_cast<double>(m.trials());
  const int n = m.n();
  for (int item = 0; item < n; ++item)
    for (int pos = 0; pos < n; ++pos) {
      const std::size_t i = static_cast<std::size_t>(item) * n + pos;
      const double p = expected.empty() ? 1.0 / n : expected[i];
      o << item << "," << pos << "," << m.counts()[i] << "," << general(trials * p, 10) << ","
        << general(z[i], 8) << "\n";
    }
  return o.str();
}

std::string audit_html(const AuditView& v) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>melange audit: "
    << xml_escape(std::string(algorithm_name(v.job.algorithm))) << ", n " << v.job.n
    << "</title>\n<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
       "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
       "text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
       "code{background:#f5f5f5;padding:2px 4px}.vPASS{color:#1a7f37;font-weight:bold}"
       ".vWEAK{color:#9a6700;font-weight:bold}.vFAIL{color:#cf222e;font-weight:bold}</style>\n"
       "</head><body>\n<h1>melange audit: "
    << xml_escape(std::string(algorithm_name(v.job.algorithm))) << "</h1>\n<p>Verdict: <span class=\"v"
    << verdict_text(v.report) << "\">" << verdict_text(v.report) << "</span> (reference: "
    << xml_escape(v.report.reference) << ")</p>\n<h2>Parameters</h2>\n<table>\n";
  auto param = [&](const std::string& k, const std::string& val) {
    o << "<tr><td>" << k << "</td><td>" << xml_escape(val) << "</td></tr>\n";
  };
  param("algorithm", std::string(algorithm_name(v.job.algorithm)));
  param("items n", std::to_string(v.job.n));
  param("trials", grouped(v.job.trials));
  param("first trial", std::to_string(v.job.first));
  param("seed", std::to_string(v.job.seed));
  param("bounded method", std::string(method_name(v.job.spec.method)) + ", " +
                              std::to_string(v.job.spec.bits) + "-bit source");
  param("backend", std::string(backend_name(v.run.backend)) + ", " + std::to_string(v.run.threads) + " threads");
  param("stream", "Philox4x32-10, stream version " + std::to_string(kStreamVersion) + ", melange " + kVersion);
  param(uses_coins(v.job.algorithm) ? "comparator calls per trial" : "stream words per trial",
        fixed(v.report.mean_words, 4));
  if (v.report.summary) {
    param("max/min ratio", fixed(v.report.summary->max_min_ratio, 4));
    param("identity count (" + rank_label(0, v.job.n) + ")", grouped(v.report.summary->identity_count));
  }
  o << "</table>\n<p>Reproduce with:</p>\n<pre><code>" << xml_escape(audit_command(v))
    << "</code></pre>\n<h2>Statistics</h2>\n<table>\n<tr><th>test</th><th>chi\u00b2</th><th>df</th>"
       "<th>p</th><th>log10 p</th><th>critical (\u03b1 " << general(v.report.alpha, 3) << ")</th><th>G</th><th>Holm p</th>"
       "<th>verdict</th></tr>\n";
  if (v.report.rank) o << fit_row("rank (" + std::to_string(v.run.tally.ranks.bins()) + " orders)", *v.report.rank);
  if (v.report.position) o << fit_row("item \u00d7 position", *v.report.position);
  o << "</table>\n";
  for (const auto& note : v.report.notes) o << "<p>Note: " << xml_escape(note) << "</p>\n";
  if (v.report.summary) {
    o << "<h2>Most and least frequent orders</h2>\n<table><tr><th>order</th><th>count</th></tr>\n";
    for (auto [r, c] : v.report.summary->most)
      o << "<tr><td><code>" << rank_label(r, v.job.n) << "</code></td><td>" << grouped(c) << "</td></tr>\n";
    for (auto [r, c] : v.report.summary->least)
      o << "<tr><td><code>" << rank_label(r, v.job.n) << "</code></td><td>" << grouped(c) << "</td></tr>\n";
    o << "</table>\n";
  }
  o << "<h2>Charts</h2>\n" << audit_svg(v) << "\n</body></html>\n";
  return o.str();
}

std::string exact_svg(const ExactDistribution& d) {
  RankChart c;
  c.title = std::string(algorithm_name(d.algorithm)) + ": exact distribution against uniform";
  c.subtitle = std::string(method_name(d.spec.method)) + "/" + std::to_string(d.spec.bits) +
               "-bit, n = " + std::to_string(d.n) + ", " + grouped(d.paths) + " paths";
  c.y_label = "probability";
  c.values = d.probabilities();
  c.expected.assign(c.values.size(), 1.0 / static_cast<double>(c.values.size()));
  c.sorted_curve = d.n > 5;
  if (!c.sorted_curve) c.labels = rank_labels(d.n);
  return rank_chart_svg(c);
}

}  // namespace melange::cli
