#include "artifacts.hpp"

#include <cmath>
#include <algorithm>
#include <numeric>
#include <sstream>

#include "melange/report/format.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/plain.hpp"
#include "melange/report/exact.hpp"
#include "melange/report/job_text.hpp"
#include "melange/deal.hpp"
#include "melange/rank.hpp"
#include "melange/stream.hpp"
#include "melange/version.hpp"
#include "job_args.hpp"
#include "svg.hpp"

namespace melange::cli {
namespace {

std::string verdict_text(const AuditReport& r) {
  return r.verdict ? std::string(verdict_name(*r.verdict)) : "no verdict";
}

// ", k = 5" for deals.
std::string k_text(const Job& job) { return is_deal(job) ? ", k = " + std::to_string(job.k) : ""; }

std::string subtitle(const AuditView& v) {
  if (v.input)
    return v.input->format + " records, n = " + std::to_string(v.job.n) + k_text(v.job) + ", " +
           grouped(v.job.trials) + " records, verdict " + verdict_text(v.report);
  return std::string(method_name(v.job.spec.method)) + "/" + std::to_string(v.job.spec.bits) +
         "-bit, n = " + std::to_string(v.job.n) + k_text(v.job) + ", " + grouped(v.job.trials) + " trials from " +
         std::to_string(v.job.first) + ", seed " + std::to_string(v.job.seed) + ", verdict " +
         verdict_text(v.report);
}

std::vector<std::string> rank_labels(Shape s, const InputInfo* input) {
  std::vector<std::string> labels;
  const std::uint64_t outcomes = s.whole() ? factorial(s.n) : deal_count(s.n, s.k);
  for (std::uint64_t r = 0; r < outcomes; ++r) labels.push_back(outcome_name(r, s, input));
  return labels;
}

// Few enough outcomes to draw a bar each (every order up to n = 5): n!/(n-k)!
// counts both, and is 0 where it does not fit 64 bits.
bool bars_for(Shape s) {
  const std::uint64_t outcomes = deal_count(s.n, s.k);
  return outcomes != 0 && outcomes <= 120;
}

// Records name items as they were written (item_name); a built-in audit
// by its letters up to kMaxLabelItems, else by number.
std::vector<std::string> item_labels(int n, const InputInfo* input) {
  std::vector<std::string> labels;
  for (int i = 0; i < n; ++i)
    labels.push_back(input ? item_name(i, input)
                     : n <= kMaxLabelItems ? std::string(1, static_cast<char>('A' + i)) : std::to_string(i));
  return labels;
}

std::vector<double> position_expected(const AuditView& v) {
  return v.model ? v.model->position_probabilities() : std::vector<double>{};
}

// The x slots a chart draws: every one for bars, or at most kChartPoints
// spread evenly over the sorted curve, first and last included.
std::vector<std::uint64_t> chart_slots(std::uint64_t bins, bool sorted_curve) {
  std::vector<std::uint64_t> slots;
  const std::uint64_t points = sorted_curve ? std::min<std::uint64_t>(bins, kChartPoints) : bins;
  for (std::uint64_t k = 0; k < points; ++k)
    slots.push_back(points == 1 ? 0
                                : static_cast<std::uint64_t>(std::llround(
                                      static_cast<double>(k) * static_cast<double>(bins - 1) /
                                      static_cast<double>(points - 1))));
  return slots;
}

std::string thinning_note(std::size_t drawn, std::uint64_t bins) {
  return drawn < bins ? "drawn through " + grouped(drawn) + " of the " + grouped(bins) + " orders" : "";
}

// Counts in descending order, read at ascending places `slots`, without
// sorting (or copying) the n! counts: a histogram of the count values is
// walked from the top. When the counts spread over more values than
// kCountBuckets, buckets are wider than one and a point is its bucket's middle.
std::vector<double> sorted_counts_at(const std::vector<std::uint64_t>& counts,
                                     const std::vector<std::uint64_t>& slots, std::uint64_t& width) {
  constexpr std::uint64_t kCountBuckets = std::uint64_t{1} << 22;
  const auto [lo_it, hi_it] = std::minmax_element(counts.begin(), counts.end());
  const std::uint64_t lo = *lo_it, span = *hi_it - lo + 1;
  width = span <= kCountBuckets ? 1 : (span + kCountBuckets - 1) / kCountBuckets;
  std::vector<std::uint64_t> freq(span / width + 1, 0);
  for (std::uint64_t c : counts) ++freq[(c - lo) / width];
  std::vector<double> out;
  std::uint64_t seen = 0;  // counts above the current bucket
  std::size_t next = 0;
  for (std::uint64_t b = freq.size(); b-- > 0 && next < slots.size();) {
    seen += freq[b];
    const double value = static_cast<double>(lo + b * width) + (width - 1) / 2.0;
    while (next < slots.size() && slots[next] < seen) {
      out.push_back(value);
      ++next;
    }
  }
  return out;
}

// The rank chart's points: a bar per order when `labels` names them all,
// otherwise the sorted curve at chart_slots(). `p(rank)` is the reference.
template <class Reference>
RankChart rank_chart_points(const std::vector<std::uint64_t>& counts, double trials, Reference p,
                            const std::vector<std::string>& labels, bool has_model) {
  RankChart c;
  c.bins = counts.size();
  c.sorted_curve = labels.empty();
  const std::vector<std::uint64_t> slots = chart_slots(c.bins, c.sorted_curve);
  auto add = [&](std::uint64_t slot, double value, std::uint64_t rank) {
    c.at.push_back(static_cast<double>(slot));
    c.values.push_back(value);
    c.expected.push_back(trials * p(rank));
    c.sigma.push_back(std::sqrt(trials * p(rank) * (1 - p(rank))));
  };
  if (!c.sorted_curve) {
    for (std::uint64_t r = 0; r < c.bins; ++r) add(r, static_cast<double>(counts[r]), r);
    c.labels = labels;
  } else if (has_model) {
    // A model (n <= the exact walk's limit) pairs each sorted place with its
    // order's own expectation, so the orders are sorted by count.
    std::vector<std::uint32_t> order(c.bins);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return counts[a] > counts[b]; });
    for (std::uint64_t slot : slots) add(slot, static_cast<double>(counts[order[slot]]), order[slot]);
  } else {
    // Uniform: every order expects the same, so only the sorted counts matter.
    std::uint64_t width = 1;
    const std::vector<double> values = sorted_counts_at(counts, slots, width);
    for (std::size_t k = 0; k < slots.size(); ++k) add(slots[k], values[k], 0);
    if (width > 1) c.note = "counts binned " + grouped(width) + " wide";
  }
  const std::string thin = thinning_note(slots.size(), c.bins);
  if (!thin.empty()) c.note = c.note.empty() ? thin : thin + ", " + c.note;
  return c;
}

// A test's row. The extra tests' z or count stands in the statistic's
// column, named; the columns only a chi-square has are left blank, and
// the plain-words line follows the name.
std::string fit_row(const std::string& name, const TestResult& t, const InputInfo* input) {
  const bool chi2 = t.statistic.empty() || t.statistic == "chi2";
  std::ostringstream o;
  o << "<tr><td>" << xml_escape(name);
  if (!t.plain.empty()) o << "<br><small>" << xml_escape(plain_of(t, input)) << "</small>";
  o << "</td><td>" << (chi2 ? "" : t.statistic + " ") << fixed(t.fit.statistic, 2) << "</td><td>"
    << (chi2 ? fixed(t.fit.df, 0) : "") << "</td><td>" << p_text(t.fit.p_value, t.fit.log10_p) << "</td><td>"
    << fixed(t.fit.log10_p, 2) << "</td><td>" << (chi2 ? fixed(t.fit.critical, 2) : "") << "</td><td>"
    << (chi2 && !std::isnan(t.fit.g_statistic) ? fixed(t.fit.g_statistic, 2) : "") << "</td><td>"
    << p_text(t.p_holm, t.log10_p_holm)
    << "</td><td class=\"v" << verdict_name(t.verdict) << "\">" << verdict_name(t.verdict)
    << "</td></tr>\n";
  return o.str();
}

// The histogram of each statistic a record audit counts (rising sequences,
// valleys, correct guesses, hand overlaps) against the law its test used;
// where that law is a model's, the uniform law beside it. Bins that neither
// the counts nor either law reach (an expectation under 0.5) are left off
// both ends.
void add_statistic_charts(const AuditView& v, std::vector<std::string>& charts) {
  const Shape shape = shape_of(v.job);
  AuditOptions reference;
  reference.model = v.model;
  reference.statistic_model = v.statistic_model;
  const double trials = static_cast<double>(v.run.tally.trials);
  for (const TallyKindRow& row : kTallyKindRows) {
    const TallyCounts& counts = v.run.tally[row.kind];
    if (!row.pooled || counts.empty() || trials == 0) continue;
    const std::vector<double> law = histogram_law(row, shape, reference);
    const std::vector<double> fair = row.fair_law ? row.fair_law(shape) : std::vector<double>{};
    const bool modelled = law != fair;
    const std::size_t bins = counts.bins();
    const auto p_of = [&](const std::vector<double>& l, std::size_t b) {
      return l.empty() ? 1.0 / static_cast<double>(bins) : l[b];
    };
    const auto reached = [&](std::size_t b) {
      return counts.counts()[b] > 0 || trials * p_of(law, b) >= 0.5 || (modelled && trials * p_of(fair, b) >= 0.5);
    };
    std::size_t first = 0, last = bins;
    while (first < bins && !reached(first)) ++first;
    while (last > first && !reached(last - 1)) --last;
    if (first == last) continue;
    CategoryChart c;
    c.title = audit_subject(v.job, v.input) + ": " + std::string(row.title);
    c.subtitle = subtitle(v);
    c.expected_name = modelled ? "expected under " + v.report.reference : "expected under a uniform shuffle";
    c.count_name = v.input ? "records" : "trials";
    c.floor = 0.1;  // expectations far below one record would stretch the axis for nothing
    if (modelled) c.other_name = "expected under a uniform shuffle";
    for (std::size_t b = first; b < last; ++b) {
      const double p = p_of(law, b);
      c.names.push_back(std::to_string(row.first_value + static_cast<long long>(b)));
      c.observed.push_back(static_cast<double>(counts.counts()[b]));
      c.expected.push_back(trials * p);
      c.sigma.push_back(std::sqrt(trials * p * (1 - p)));
      if (modelled) c.other.push_back(trials * p_of(fair, b));
    }
    charts.push_back(category_chart_svg(c));
  }
}

}  // namespace

std::string audit_command(const AuditView& v) {
  // Records' audits and merges carry their own line (records_command in
  // audit_records.cpp, cmd_merge.cpp): only a run job's is built here.
  if (!v.report.reproduce.empty()) return v.report.reproduce;
  if (v.input) throw Error("internal: an audit of records with no reproduce line");
  std::ostringstream o;
  o << "melange audit --algo " << algorithm_name(v.job.algorithm) << " --n " << v.job.n << card_flags(v.job);
  if (is_deal(v.job)) o << " --k " << v.job.k;
  o << " --trials " << v.job.trials << " --seed " << v.job.seed << " --first " << v.job.first
    << " --method " << method_name(v.job.spec.method) << " --bits " << v.job.spec.bits;
  if (v.job.tallies.has(TallyKind::hands)) o << " --hands";
  if (v.job.tallies.has(TallyKind::positions) && !is_deal(v.job)) o << " --position";
  if (!v.job.tallies.has(TallyKind::ranks)) o << " --no-rank";
  if (has_serial_kinds(v.job.tallies)) o << " --serial";
  if (!v.model_arg.empty()) o << " --model " << shell_word(v.model_arg);
  return o.str();
}

std::string audit_svg(const AuditView& v) {
  std::vector<std::string> charts;
  const auto& h = v.run.tally[TallyKind::ranks];
  const Shape shape = shape_of(v.job);
  const std::string title = audit_subject(v.job, v.input) + (shape.whole() ? ": orders" : ": ordered deals");
  if (!h.empty()) {
    RankChart c = rank_chart_points(
        h.counts(), static_cast<double>(v.job.trials),
        [&](std::uint64_t r) { return reference_probability(shape, v.model, r); },
        bars_for(shape) ? rank_labels(shape, v.input) : std::vector<std::string>{}, v.model != nullptr);
    c.title = title + " (" + v.report.reference + " reference)";
    c.subtitle = subtitle(v);
    c.y_label = "count";
    charts.push_back(rank_chart_svg(c));
  }
  if (!v.run.tally[TallyKind::positions].empty()) {
    Heatmap m;
    m.column_name = shape.whole() ? "position" : "slot";
    m.title = audit_subject(v.job, v.input) + ": item x " + m.column_name + " residuals";
    m.subtitle = subtitle(v);
    m.n = v.job.n;
    m.columns = shape.k;
    m.residuals = position_residuals(v.run.tally[TallyKind::positions], position_expected(v));
    m.item_labels = item_labels(v.job.n, v.input);
    charts.push_back(heatmap_svg(m));
  }
  if (!v.run.tally[TallyKind::poker].empty()) {
    CategoryChart c;
    c.title = audit_subject(v.job, v.input) + ": poker categories";
    c.subtitle = subtitle(v);
    for (const CategoryRow& row : category_rows(v.run.tally)) {
      c.names.push_back(row.name);
      c.observed.push_back(static_cast<double>(row.count));
      c.expected.push_back(row.expected);
      c.sigma.push_back(row.sigma);
    }
    charts.push_back(category_chart_svg(c));
  }
  add_statistic_charts(v, charts);
  return stack_svg(charts);
}

// A label as one CSV field: quoted when it holds a comma or a quote.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Items as the CSV names them: as the records wrote them, else by number.
std::vector<std::string> csv_item_labels(int n, const InputInfo* input) {
  std::vector<std::string> labels;
  for (int i = 0; i < n; ++i) labels.push_back(item_name(i, input));
  return labels;
}

void audit_rank_csv(const AuditView& v, std::ostream& to) {
  to << "rank,label,count,expected,residual\n";
  const auto& h = v.run.tally[TallyKind::ranks];
  std::string out;
  const Shape shape = shape_of(v.job);
  for (std::uint64_t r = 0; r < h.bins(); ++r) {
    const double e = static_cast<double>(v.job.trials) * reference_probability(shape, v.model, r);
    const double c = static_cast<double>(h.counts()[r]);
    out += std::to_string(r) + "," + csv_field(outcome_name(r, shape, v.input)) + "," + std::to_string(h.counts()[r]) + "," +
           general(e, 10) + "," +
           (e > 0 ? general((c - e) / std::sqrt(e), 8) : std::string(c > 0 ? "inf" : "0")) + "\n";
    if (out.size() > (1u << 20)) {  // streamed: memory stays flat at any n
      to << out;
      out.clear();
    }
  }
  to << out;
}

void audit_position_csv(const AuditView& v, std::ostream& to) {
  std::ostringstream o;
  const auto& m = v.run.tally[TallyKind::positions];
  // The same columns for a deal's n x k matrix (position = slot).
  o << "item,label,position,count,expected,residual\n";
  const std::vector<double> expected = position_expected(v);
  const std::vector<double> z = position_residuals(m, expected);
  const double trials = static_cast<double>(m.trials());
  const int n = m.n(), k = m.k();
  const std::vector<std::string> item_labels = csv_item_labels(n, v.input);
  for (int item = 0; item < n; ++item) {
    for (int pos = 0; pos < k; ++pos) {
      const std::size_t i = static_cast<std::size_t>(item) * k + pos;
      const double p = expected.empty() ? 1.0 / n : expected[i];
      o << item << "," << csv_field(item_labels[static_cast<std::size_t>(item)]) << "," << pos << "," << m.counts()[i]
        << "," << general(trials * p, 10) << ","
        << general(z[i], 8) << "\n";
    }
    to << o.str();
    o.str("");
  }
}

void audit_category_csv(const AuditView& v, std::ostream& to) {
  to << "category,count,expected,ratio,z\n";
  for (const CategoryRow& c : category_rows(v.run.tally))
    to << c.name << "," << c.count << "," << general(c.expected, 10) << ","
       << general(static_cast<double>(c.count) / c.expected, 8) << ","
       << general((static_cast<double>(c.count) - c.expected) / c.sigma, 8) << "\n";
}

// The verdict in plain words, under it: what it means, the cells furthest
// from expectation, what would settle a WEAK, what each test could see.
std::string plain_html(const PlainWords& w) {
  std::ostringstream o;
  if (!w.none_reason.empty()) return "<p>" + xml_escape(w.none_reason) + "</p>\n";
  o << "<p>" << xml_escape(w.meaning) << "</p>\n";
  if (!w.fault.empty()) o << "<p>The fault the tests see: " << xml_escape(w.fault) << ".</p>\n";
  if (!w.furthest.empty()) {
    o << "<p>Furthest from expectation:</p>\n<ul>\n";
    for (const FurthestLine& f : w.furthest) o << "<li>" << xml_escape(f.words) << "</li>\n";
    o << "</ul>\n";
  }
  if (!w.settle.empty()) o << "<p>" << xml_escape(w.settle) << ".</p>\n";
  if (!w.detectable.empty()) {
    o << "<p>The smallest bias each test detects (" << xml_escape(w.detectable_level) << "):</p>\n<ul>\n";
    for (const DetectableLine& d : w.detectable)
      o << "<li>" << xml_escape(d.title) << ": " << xml_escape(d.words) << "</li>\n";
    o << "</ul>\n";
  }
  return o.str();
}

// The audit's parameters as table rows: the input's, or the job's.
void html_parameters(std::ostream& o, const AuditView& v) {
  auto param = [&](const std::string& k, const std::string& val) {
    o << "<tr><td>" << k << "</td><td>" << xml_escape(val) << "</td></tr>\n";
  };
  if (v.input) {
    param("input", v.input->path == "-" ? "standard input" : v.input->path);
    param("format", v.input->format + (v.input->format == "text" ? ", " + std::to_string(v.input->base) + "-based" : ""));
    param("items n", std::to_string(v.job.n));
    if (is_deal(v.job)) param("items dealt k", std::to_string(v.job.k));
    param("records", grouped(v.job.trials));
    if (v.input->invalid) param("invalid records skipped", grouped(v.input->invalid) + "; the first: " + v.input->first_invalid);
    param("melange", kVersion);
  } else {
    param("algorithm", std::string(algorithm_name(v.job.algorithm)));
    param("items n", std::to_string(v.job.n));
    if (is_deal(v.job)) param("items dealt k", std::to_string(v.job.k));
    param("trials", grouped(v.job.trials));
    param("first trial", std::to_string(v.job.first));
    param("seed", std::to_string(v.job.seed));
    param("bounded method", std::string(method_name(v.job.spec.method)) + ", " +
                                std::to_string(v.job.spec.bits) + "-bit source");
    param("backend", backend_text(v.run.backend, v.run.arch) + ", " + std::to_string(v.run.threads) + " threads");
    if (!v.run.note.empty()) param("backend note", v.run.note);
    if (!v.run.threads_note.empty()) param("threads note", v.run.threads_note);
    param("stream", "Philox4x32-10, stream version " + std::to_string(kStreamVersion) + ", melange " + kVersion);
    for (const auto& [label, value] : usage_rows(v.job, v.report)) param(label, value);
  }
  if (v.report.summary) {
    param("max/min ratio", fixed(v.report.summary->max_min_ratio, 4));
    const Shape shape = shape_of(v.job);
    param(std::string(shape.whole() ? "identity" : "first deal") + " count (" + outcome_name(0, shape, v.input) + ")",
          grouped(v.report.summary->identity_count));
  }
}

// The poker categories' table, the notes, and the most and least frequent
// outcomes.
void html_categories_notes_extremes(std::ostream& o, const AuditView& v, const std::string& noun) {
  if (!v.run.tally[TallyKind::poker].empty()) {
    o << "<h2>Poker categories</h2>\n<table><tr><th>category</th><th>count</th><th>expected</th><th>ratio</th>"
         "<th>z</th></tr>\n";
    for (const CategoryRow& c : category_rows(v.run.tally))
      o << "<tr><td>" << c.name << "</td><td>" << grouped(c.count) << "</td><td>" << fixed(c.expected, 1)
        << "</td><td>" << (c.expected > 0 ? fixed(static_cast<double>(c.count) / c.expected, 4) : "-")
        << "</td><td>" << (c.sigma > 0 ? fixed((static_cast<double>(c.count) - c.expected) / c.sigma, 2) : "-")
        << "</td></tr>\n";
    o << "</table>\n";
  }
  for (const auto& note : v.report.notes) o << "<p>Note: " << xml_escape(note) << "</p>\n";
  if (v.report.summary) {
    const Shape shape = shape_of(v.job);
    o << "<h2>Most and least frequent " << noun << "s</h2>\n<table><tr><th>" << noun << "</th><th>count</th></tr>\n";
    for (auto [r, c] : v.report.summary->most)
      o << "<tr><td><code>" << xml_escape(outcome_name(r, shape, v.input)) << "</code></td><td>" << grouped(c) << "</td></tr>\n";
    for (auto [r, c] : v.report.summary->least)
      o << "<tr><td><code>" << xml_escape(outcome_name(r, shape, v.input)) << "</code></td><td>" << grouped(c) << "</td></tr>\n";
    o << "</table>\n";
  }
}

std::string audit_html(const AuditView& v) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>melange audit: "
    << xml_escape(audit_subject(v.job, v.input)) << ", n " << v.job.n
    << "</title>\n<style>body{font-family:sans-serif;max-width:1000px;margin:2em auto;color:#222}"
       "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;"
       "text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}"
       "code{background:#f5f5f5;padding:2px 4px}.vPASS{color:#1a7f37;font-weight:bold}"
       ".vWEAK{color:#9a6700;font-weight:bold}.vFAIL{color:#cf222e;font-weight:bold}</style>\n"
       "</head><body>\n<h1>melange audit: "
    << xml_escape(audit_subject(v.job, v.input)) << "</h1>\n<p>Verdict: <span class=\"v"
    << verdict_text(v.report) << "\">" << verdict_text(v.report) << "</span> (reference: "
    << xml_escape(v.report.reference) << ")</p>\n" << plain_html(plain_words(v.job, v.report, v.input))
    << "<h2>Parameters</h2>\n<table>\n";
  html_parameters(o, v);
  o << "</table>\n<p>Reproduce with:</p>\n<pre><code>" << xml_escape(audit_command(v))
    << "</code></pre>\n<h2>Statistics</h2>\n<table>\n<tr><th>test</th><th>chi\u00b2</th><th>df</th>"
       "<th>p</th><th>log10 p</th><th>critical (\u03b1 " << general(v.report.alpha, 3) << ")</th><th>G</th><th>Holm p</th>"
       "<th>verdict</th></tr>\n";
  const std::string noun = outcome_noun(v.job);
  if (v.report.rank)
    o << fit_row(std::string(is_deal(v.job) ? "deal" : "rank") + " (" +
                     grouped(v.run.tally[TallyKind::ranks].bins()) + " " + noun +
                     "s)",
                 *v.report.rank, v.input);
  if (v.report.position)
    o << fit_row(is_deal(v.job) ? "item \u00d7 slot" : "item \u00d7 position", *v.report.position, v.input);
  for (const TallyKindRow& row : kTallyKindRows)
    if (const std::optional<TestResult>& t = v.report.test(row.kind); row.histogram_test && t)
      o << fit_row(std::string(row.test_title) + " (" + histogram_test_scope(row, v.run.tally) + ")", *t, v.input);
  for (const TestResult& t : v.report.extra_tests) o << fit_row(t.title, t, v.input);
  o << "</table>\n";
  html_categories_notes_extremes(o, v, noun);
  o << "<h2>Charts</h2>\n" << audit_svg(v) << "\n</body></html>\n";
  return o.str();
}

std::string exact_svg(const ExactDistribution& d) {
  const std::vector<double> p = d.probabilities();
  const double uniform = 1.0 / static_cast<double>(p.size());
  // The chart of probabilities is the chart of counts with one trial.
  RankChart c;
  c.bins = p.size();
  const Shape shape{d.n, d.k};
  c.sorted_curve = !bars_for(shape);
  std::vector<std::uint64_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  if (c.sorted_curve)
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return p[a] > p[b]; });
  const std::vector<std::uint64_t> slots = chart_slots(p.size(), c.sorted_curve);
  const std::vector<std::string> labels = c.sorted_curve ? std::vector<std::string>{} : rank_labels(shape, nullptr);
  for (std::uint64_t slot : slots) {
    c.at.push_back(static_cast<double>(slot));
    c.values.push_back(p[order[slot]]);
    c.expected.push_back(uniform);
    if (!labels.empty()) c.labels.push_back(labels[slot]);
  }
  c.note = thinning_note(slots.size(), p.size());
  c.title = std::string(algorithm_name(d.algorithm)) + ": exact distribution against uniform";
  c.subtitle = std::string(method_name(d.spec.method)) + "/" + std::to_string(d.spec.bits) +
               "-bit, n = " + std::to_string(d.n) + (d.k < d.n ? ", k = " + std::to_string(d.k) : std::string()) +
               ", " + grouped(d.paths) + " paths";
  c.y_label = "probability";
  return rank_chart_svg(c);
}

}  // namespace melange::cli
