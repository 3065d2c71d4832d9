#include "melange/report/audit.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/rank.hpp"
#include "melange/report/format.hpp"
#include "melange/report/job_text.hpp"
#include "melange/report/json.hpp"
#include "melange/report/plain.hpp"

namespace melange::report {
namespace {

// The kind whose counts (n! of them) are streamed into the document, never
// held as a JSON value.
constexpr TallyKind kStreamedKind = TallyKind::ranks;

// Where a test's p-values come from: chi-square's tail; the same near the
// 5-per-bin guard, where FAIL needs a margin (melange/stats.hpp); or the
// multinomial's exact tail there.
std::string tail_law(const GoodnessOfFit& g) {
  if (g.exact_upper || g.exact_lower) return "exact";
  return g.min_expected < kAsymptoticExpected ? "chi2_near_guard" : "chi2";
}

// A goodness-of-fit's statistics, as every test shows them.
void add_fit_fields(std::vector<Field>& f, const GoodnessOfFit& g) {
  f.insert(f.end(), {{"chi2", g.statistic},
                     {"df", g.df},
                     {"p_value", g.p_value},
                     {"p_lower", g.p_lower},
                     {"log10_p", g.log10_p},
                     {"critical", g.critical},
                     {"g", g.g_statistic},
                     {"g_p_value", g.g_p_value},
                     {"min_expected", g.min_expected},
                     {"impossible", g.impossible},
                     {"tail", tail_law(g)}});
}

// A test's statistics after Holm's correction, and its verdict. An extra
// test's z or count stands under its own name, with its p-values, and its
// title and plain-words line beside them.
std::vector<Field> test_result_fields(const TestResult& t, const InputInfo* input) {
  std::vector<Field> f;
  if (t.statistic == "z" || t.statistic == "repeats") {
    f.insert(f.end(), {{t.statistic, t.fit.statistic},
                       {"p_value", t.fit.p_value},
                       {"p_lower", t.fit.p_lower},
                       {"log10_p", t.fit.log10_p}});
  } else {
    add_fit_fields(f, t.fit);
  }
  if (!t.title.empty()) f.push_back({"title", t.title});
  if (!t.plain.empty()) f.push_back({"plain", plain_of(t, input)});
  f.push_back({"detectable_effect", t.detectable});
  f.insert(f.end(), {{"p_holm", t.p_holm},
                     {"log10_p_holm", t.log10_p_holm},
                     {"p_lower_holm", t.p_lower_holm},
                     {"too_uniform", t.too_uniform},
                     {"verdict", std::string(verdict_name(t.verdict))}});
  return f;
}

Json field_json(const FieldValue& v) {
  return std::visit(
      [](const auto& x) -> Json {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, double>) return json_number(x);
        else return Json(x);
      },
      v);
}

Json fields_json(const std::vector<Field>& fields) {
  Json j = Json::object();
  for (const Field& f : fields) j[f.key] = field_json(f.value);
  return j;
}

std::string line_for(const std::string& title, const TestResult& t, double alpha, const InputInfo* input) {
  const GoodnessOfFit& g = t.fit;
  const Verdict v = t.verdict;
  std::ostringstream o;
  if (t.statistic == "z") {
    o << title << ": z " << fixed(g.statistic, 2) << ", p " << p_text(g.p_value, g.log10_p);
  } else if (t.statistic == "repeats") {
    o << title << ": p " << p_text(g.p_value, g.log10_p);
  } else {
    o << title << ": chi2 " << fixed(g.statistic, 1) << ", df " << fixed(g.df, 0) << ", p "
      << p_text(g.p_value, g.log10_p) << (g.exact_upper ? " (exact)" : "");
    o << ", critical " << fixed(g.critical, 2) << " at alpha " << general(alpha, 3) << ", G "
      << (std::isnan(g.g_statistic) ? std::string("n/a") : fixed(g.g_statistic, 1));
  }
  o << ", Holm p " << p_text(t.p_holm, t.log10_p_holm) << " -> " << verdict_name(v);
  if (t.too_uniform) o << " (too uniform: Holm lower-tail p " << general(t.p_lower_holm, 3) << ")";
  if (g.impossible) o << "; " << g.impossible << " trials in orders the reference forbids";
  if (!t.plain.empty()) o << "\n    " << plain_of(t, input);
  return o.str();
}

}  // namespace

std::string histogram_test_scope(const TallyKindRow& row, const Tally& tally) {
  std::string scope = grouped(tally[row.kind].bins()) + " " + std::string(row.bins_noun);
  if (!row.model_law) scope += ", fair law";
  return scope;
}

std::string plain_of(const TestResult& t, const InputInfo* input) {
  std::string text = t.plain;
  if (const auto at = text.find("{item}"); at != std::string::npos) text.replace(at, 6, item_name(t.item, input));
  return text;
}

std::vector<TestFields> test_fields(const AuditReport& report, const InputInfo* input) {
  std::vector<TestFields> out;
  if (report.rank) out.push_back({"rank", report.rank->name, test_result_fields(*report.rank, input), &*report.rank});
  if (report.position) {
    std::vector<Field> f = test_result_fields(*report.position, input);
    f.insert(f.end(), {{"max_residual", report.position_detail->max_residual},
                       {"max_residual_item", report.position_detail->max_item},
                       {"max_residual_position", report.position_detail->max_position}});
    out.push_back({"position", report.position->name, std::move(f), &*report.position});
  }
  for (const TallyKindRow& row : kTallyKindRows)
    if (const std::optional<TestResult>& t = report.test(row.kind); row.histogram_test && t)
      out.push_back({std::string(row.test_name), t->name, test_result_fields(*t, input), &*t});
  for (const TestResult& t : report.extra_tests) out.push_back({t.key, t.name, test_result_fields(t, input), &t});
  return out;
}

std::vector<CategoryRow> labelled_rows(const Tally& tally, TallyKind kind) {
  const TallyKindRow& row = row_of(kind);
  const TallyCounts& counts = tally[kind];
  std::vector<CategoryRow> rows;
  if (counts.empty()) return rows;
  const std::vector<double> p = row.fair_law(Shape{counts.n(), counts.k()});
  const double trials = static_cast<double>(tally.trials);
  for (std::uint64_t b = 0; b < counts.bins(); ++b)
    rows.push_back(CategoryRow{std::string(row.label(b)), counts.counts()[b], trials * p[b],
                               std::sqrt(trials * p[b] * (1 - p[b]))});
  return rows;
}

std::vector<CategoryRow> category_rows(const Tally& tally) { return labelled_rows(tally, TallyKind::poker); }

namespace {

// Each kind's counts under its key, in its form (TallyKindRow::json). The
// streamed kind's key is left null for write_audit_json to fill.
void add_count_arrays(Json& j, const Tally& tally) {
  for (const TallyKindRow& row : kTallyKindRows) {
    const TallyCounts& c = tally[row.kind];
    if (c.empty()) continue;
    const std::string key(row.json_key);
    if (!row.json_bins_key.empty()) j[std::string(row.json_bins_key)] = c.bins();
    if (row.json_max_bins && c.bins() > row.json_max_bins) continue;
    switch (row.json) {
      case JsonCounts::flat:
        if (row.kind == kStreamedKind) j[key] = nullptr;
        else j[key] = c.counts();
        break;
      case JsonCounts::rows: {
        Json rows = Json::array();
        for (int item = 0; item < c.n(); ++item) {
          std::vector<std::uint64_t> counts(static_cast<std::size_t>(c.k()));
          for (int slot = 0; slot < c.k(); ++slot) counts[slot] = c.at(item, slot);
          rows.push_back(counts);
        }
        j[key] = rows;
        break;
      }
      case JsonCounts::labelled: {
        Json rows = Json::array();
        for (const CategoryRow& r : labelled_rows(tally, row.kind))
          rows.push_back(Json{{"category", r.name}, {"count", r.count}, {"expected", r.expected}});
        j[key] = rows;
        break;
      }
    }
  }
}

}  // namespace

std::string item_name(int item, const InputInfo* input) {
  if (input && static_cast<std::size_t>(item) < input->labels.size()) return input->labels[static_cast<std::size_t>(item)];
  return std::to_string(item + (input ? input->base : 0));
}

std::string outcome_name(std::uint64_t rank, Shape s, const InputInfo* input) {
  if (!input) return outcome_label(rank, s.n, s.k);
  const std::vector<int> items = s.whole() ? lehmer_unrank(rank, s.n) : deal_unrank(rank, s.n, s.k);
  std::string name;
  for (int i : items) {
    if (!name.empty()) name += ' ';
    name += item_name(i, input);
  }
  return name;
}

std::string outcome_noun(const Job& job) { return is_deal(job) ? "deal" : "order"; }

std::vector<std::pair<std::string, std::string>> usage_rows(const Job& job, const AuditReport& report) {
  std::vector<std::pair<std::string, std::string>> rows;
  // A sort's comparator calls vary by trial and are the article's figure; a
  // swap algorithm's draws are fixed by its schedule.
  if (uses_coins(job.algorithm)) rows.emplace_back("comparator calls per trial", fixed(report.mean_draws, 4));
  rows.emplace_back("stream words per trial", fixed(report.mean_words, 4));
  return rows;
}

std::string audit_subject(const Job& job, const InputInfo* input) {
  if (input && input->files.size() > 1)
    return "records from " + std::to_string(input->files.size()) + " files, " + input->files.front() + " to " +
           input->files.back();
  if (input) return "records from " + (input->path == "-" ? std::string("standard input") : input->path);
  return std::string(algorithm_name(job.algorithm));
}

namespace {

Json plain_json(const PlainWords& w) {
  Json j = Json::object();
  if (!w.none_reason.empty()) {
    j["none_reason"] = w.none_reason;
    return j;
  }
  j["meaning"] = w.meaning;
  if (!w.fault.empty()) j["fault"] = w.fault;
  Json furthest = Json::array();
  for (const FurthestLine& f : w.furthest) {
    Json d{{"kind", f.departure.kind == TallyKind::ranks ? "order" : "cell"}, {"bin", f.departure.bin},
           {"count", f.departure.count}, {"expected", f.departure.expected},
           {"residual", json_number(f.departure.residual)}, {"words", f.words}};
    furthest.push_back(d);
  }
  j["furthest"] = furthest;
  Json detectable = Json::array();
  for (const DetectableLine& d : w.detectable)
    detectable.push_back(Json{{"test", d.test}, {"title", d.title}, {"effect", d.effect}, {"words", d.words}});
  j["detectable"] = detectable;
  j["detectable_level"] = w.detectable_level;
  j["detect_power"] = kPlainPower;
  if (!w.settle.empty()) {
    j["settle_trials"] = w.settle_trials > 0 ? json_u64(static_cast<std::uint64_t>(w.settle_trials)) : Json(nullptr);
    j["settle"] = w.settle;
  }
  return j;
}

// The predictability pass: what it searched, what it left, what it found.
Json predictability_json(const predict::PredictabilityCheck& c) {
  Json searched = Json::array();
  for (const predict::PredictabilityCheck::Window& w : c.searched)
    searched.push_back(Json{{"family", w.family},
                            {"first", std::to_string(w.first)},
                            {"last", std::to_string(w.last)},
                            {"what", w.what}});
  return Json{{"records", c.records},
              {"searched", searched},
              {"left", c.left},
              {"skipped", c.skipped},
              {"predictable", c.predictable ? Json(*c.predictable) : Json()}};
}

}  // namespace

Json audit_json(const Job& job, const RunResult& run, const AuditReport& report, const InputInfo* input) {
  Json j = json_header("audit");
  // The overall verdict first; "source": what the trials are.
  j["verdict"] = report.verdict ? Json(verdict_name(*report.verdict)) : Json(nullptr);
  if (report.records_for_a_verdict > 0) j["records_for_a_verdict"] = report.records_for_a_verdict;
  j["source"] = input ? "records" : "trials";
  if (!report.reproduce.empty()) j["reproduce"] = report.reproduce;
  if (input) {
    j["input"] = {{"path", input->path}, {"format", input->format}, {"base", input->base}};
    if (input->files.size() > 1) j["input"]["files"] = input->files;
    if (!input->inferred.empty()) j["input"]["inferred"] = input->inferred;
    if (!input->labels.empty()) j["input"]["labels"] = input->labels;
    j["n"] = job.n;
    if (is_deal(job)) j["k"] = shape_of(job).k;
    j["trials"] = json_u64(job.trials);
    j["invalid_records"] = json_u64(input->invalid);
    if (input->invalid) j["first_invalid"] = input->first_invalid;
  } else {
    add_job_fields(j, job);
  }
  j["threads"] = run.threads;
  if (!input || run.ranks > 1) j["ranks"] = run.ranks;  // records: where MPI ranks read them
  j["backend"] = run.backend;
  if (!run.arch.empty()) j["simd_arch"] = run.arch;
  if (!run.note.empty()) j["backend_note"] = run.note;
  if (!run.threads_note.empty()) j["threads_note"] = run.threads_note;
  j["reference"] = report.reference;
  j["model"] = report.model.empty() ? Json(nullptr) : Json(report.model);
  if (!input) {
    j["words_consumed"] = json_u64(run.tally.words);
    j["mean_words"] = report.mean_words;
    j["draws"] = json_u64(run.tally.draws);
    j["mean_draws"] = report.mean_draws;
  }
  add_count_arrays(j, run.tally);
  Json stats = Json::object();
  const std::vector<TestFields> tests = test_fields(report, input);
  for (const TestFields& t : tests)
    if (t.key == "rank")
      for (const Field& f : t.fields) stats[f.key == "verdict" ? "rank_verdict" : f.key] = field_json(f.value);
  if (!report.rank) {
    stats["chi2"] = nullptr;
    stats["df"] = nullptr;
    stats["p_value"] = nullptr;
    stats["log10_p"] = nullptr;
  }
  if (report.summary) {
    stats["max_min_ratio"] = json_number(report.summary->max_min_ratio);
    stats["identity_count"] = report.summary->identity_count;
    Json most = Json::array(), least = Json::array();
    const Shape s = shape_of(job);
    for (auto [r, c] : report.summary->most)
      most.push_back(Json{{"rank", r}, {"label", outcome_name(r, s, input)}, {"count", c}});
    for (auto [r, c] : report.summary->least)
      least.push_back(Json{{"rank", r}, {"label", outcome_name(r, s, input)}, {"count", c}});
    stats["most_frequent"] = most;
    stats["least_frequent"] = least;
  }
  for (const TestFields& t : tests)
    if (t.key != "rank") stats[t.key] = fields_json(t.fields);
  stats["notes"] = report.notes;
  j["stats"] = stats;
  if (report.predictability) j["predictability"] = predictability_json(*report.predictability);
  j["plain"] = plain_json(plain_words(job, report, input));
  return j;
}

void write_audit_json(std::ostream& to, const Job& job, const RunResult& run, const AuditReport& report,
                      const InputInfo* input) {
  const auto& counts = run.tally[kStreamedKind].counts();
  write_json(to, audit_json(job, run, report, input), std::string(row_of(kStreamedKind).json_key),
             [&](std::ostream& out, const std::string& indent) {
    std::string text;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      text += indent + std::to_string(counts[r]);
      if (r + 1 < counts.size()) text += ",\n";
      if (text.size() > (1u << 20)) {
        out << text;
        text.clear();
      }
    }
    out << text;
  });
}

std::string audit_json_text(const Job& job, const RunResult& run, const AuditReport& report,
                            const InputInfo* input) {
  std::ostringstream text;
  write_audit_json(text, job, run, report, input);
  return text.str();
}

namespace {

// The plain-words block of the text, ahead of the verdict line.
std::string plain_text(const PlainWords& w) {
  std::ostringstream o;
  o << "\n";
  if (!w.none_reason.empty()) {
    o << "  in plain words: " << w.none_reason << "\n";
    return o.str();
  }
  o << "  in plain words: " << w.meaning << "\n";
  if (!w.fault.empty()) o << "  the fault the tests see: " << w.fault << "\n";
  if (!w.furthest.empty()) {
    o << "  furthest from expectation:\n";
    for (const FurthestLine& f : w.furthest) o << "    " << f.words << "\n";
  }
  if (!w.settle.empty()) o << "  " << w.settle << "\n";
  if (!w.detectable.empty()) {
    o << "  smallest bias each test detects (" << w.detectable_level << "):\n";
    for (const DetectableLine& d : w.detectable) o << "    " << d.title << ": " << d.words << "\n";
  }
  return o.str();
}

}  // namespace

std::string test_title(const TestResult& t) {
  if (!t.title.empty()) return t.title;
  for (const TallyKindRow& row : kTallyKindRows)
    if (row.histogram_test && row.test_name == t.name) return std::string(row.test_title) + " test";
  return t.name + " test";
}

namespace {

// What was audited: the first lines of the text and of the brief text.
std::string header_text(const Job& job, const RunResult& run, const AuditReport& report, const InputInfo* input) {
  std::ostringstream o;
  if (input) {
    o << "melange audit: " << audit_subject(job, input) << " (" << input->format
      << (input->format == "text" ? ", " + std::to_string(input->base) + "-based" : std::string()) << "), n "
      << job.n << (is_deal(job) ? ", deals of k " + std::to_string(shape_of(job).k) : std::string())
      << "\n  records " << grouped(job.trials) << ", reference " << report.reference << "\n";
    if (!input->inferred.empty()) o << "  read from the records: " << input->inferred << "\n";
    if (input->invalid)
      o << "  note: " << grouped(input->invalid) << " invalid records skipped; the first: " << input->first_invalid
        << "\n";
  } else {
    o << "melange audit: " << describe(job) << "\n  trials " << grouped(job.trials) << " from " << job.first
      << ", backend " << backend_text(run.backend, run.arch) << ", "
      << (run.ranks > 1 ? std::to_string(run.ranks) + " MPI ranks × " : std::string()) << run.threads
      << (run.threads == 1 ? " thread" : " threads") << (run.ranks > 1 ? " each" : "") << ", reference "
      << report.reference << "\n";
  }
  if (!run.note.empty()) o << "  note: " << run.note << "\n";
  if (!run.threads_note.empty()) o << "  note: " << run.threads_note << "\n";
  return o.str();
}

}  // namespace

std::string audit_brief_text(const Job& job, const RunResult& run, const AuditReport& report,
                             const InputInfo* input) {
  // At most 15 lines: the tests that did not PASS, and the lines furthest from expectation.
  constexpr std::size_t kFlaggedListed = 3, kFurthestListed = 2;
  std::ostringstream o;
  o << header_text(job, run, report, input);
  const std::vector<const TestResult*> tests = report.tests();
  std::map<Verdict, int> by_verdict;
  std::vector<const TestResult*> flagged;
  for (const TestResult* t : tests) {
    ++by_verdict[t->verdict];
    if (t->verdict != Verdict::pass) flagged.push_back(t);
  }
  o << "  " << tests.size() << (tests.size() == 1 ? " test: " : " tests: ");
  bool first = true;
  for (const auto& [v, count] : by_verdict) {
    o << (first ? "" : ", ") << count << " " << verdict_name(v);
    first = false;
  }
  o << "\n";
  for (std::size_t i = 0; i < std::min(flagged.size(), kFlaggedListed); ++i) {
    const TestResult& t = *flagged[i];
    o << "    " << verdict_name(t.verdict) << ": " << test_title(t) << ", Holm p "
      << p_text(t.p_holm, t.log10_p_holm) << "\n";
  }
  if (flagged.size() > kFlaggedListed) o << "    and " << flagged.size() - kFlaggedListed << " more\n";
  const PlainWords w = plain_words(job, report, input);
  if (!w.none_reason.empty()) {
    o << "  in plain words: " << w.none_reason << "\n";
  } else {
    o << "  in plain words: " << w.meaning << "\n";
    if (!w.fault.empty()) o << "  the fault the tests see: " << w.fault << "\n";
    for (std::size_t i = 0; i < std::min(w.furthest.size(), kFurthestListed); ++i)
      o << "    " << w.furthest[i].words << "\n";
  }
  o << "  " << report.notes.size() << (report.notes.size() == 1 ? " note" : " notes")
    << ", each test's line and the smallest bias each detects: the same command without --brief\n";
  if (!report.reproduce.empty()) o << "  reproduce with: " << report.reproduce << "\n";
  o << "verdict: " << (report.verdict ? std::string(verdict_name(*report.verdict)) : "none") << "\n";
  return o.str();
}

std::string audit_text(const Job& job, const RunResult& run, const AuditReport& report,
                       const ExactDistribution* model, const InputInfo* input) {
  std::ostringstream o;
  o << header_text(job, run, report, input);
  const TallyCounts& h = run.tally[TallyKind::ranks];
  const Shape shape = shape_of(job);
  const std::string noun = outcome_noun(job);
  if (!h.empty()) {
    const int width = static_cast<int>(std::max<std::size_t>(6, outcome_name(0, shape, input).size() + 2));
    auto row = [&](std::uint64_t r) {
      const double e = static_cast<double>(job.trials) * reference_probability(shape, model, r);
      const double c = static_cast<double>(h.counts()[r]);
      o << "  " << pad(outcome_name(r, shape, input), width) << pad(std::to_string(r), 10)
        << pad(grouped(h.counts()[r]), 14, true) << pad(fixed(e, 1), 14, true)
        << pad(e > 0 ? fixed((c - e) / std::sqrt(e), 2) : "-", 10, true) << "\n";
    };
    o << "\n  " << pad(noun, width) << pad("rank", 10) << pad("count", 14, true)
      << pad("expected", 14, true) << pad("residual", 10, true) << "\n";
    if (h.bins() <= 120) {
      for (std::uint64_t r = 0; r < h.bins(); ++r) row(r);
    } else {
      o << "  most frequent:\n";
      for (auto [r, c] : report.summary->most) row(r);
      o << "  least frequent:\n";
      for (auto [r, c] : report.summary->least) row(r);
    }
    o << "\n  max/min ratio " << fixed(report.summary->max_min_ratio, 3) << ", "
      << (shape.whole() ? "identity" : "first deal") << " (" << outcome_name(0, shape, input) << ") "
      << grouped(report.summary->identity_count) << "\n";
  }
  if (!run.tally[TallyKind::poker].empty()) {
    o << "\n  " << pad("poker category", 18) << pad("count", 14, true) << pad("expected", 16, true)
      << pad("ratio", 9, true) << pad("z", 9, true) << "\n";
    for (const CategoryRow& c : category_rows(run.tally))
      o << "  " << pad(c.name, 18) << pad(grouped(c.count), 14, true) << pad(fixed(c.expected, 1), 16, true)
        << pad(c.expected > 0 ? fixed(static_cast<double>(c.count) / c.expected, 4) : "-", 9, true)
        << pad(c.sigma > 0 ? fixed((static_cast<double>(c.count) - c.expected) / c.sigma, 2) : "-", 9, true) << "\n";
  }
  if (!input)
    for (const auto& [label, value] : usage_rows(job, report)) o << "  " << label << " " << value << "\n";
  o << "\n";
  if (report.rank)
    o << "  " << line_for(std::string(shape.whole() ? "rank" : "deal") + " test (" + grouped(h.bins()) + " " + noun + "s)",
                          *report.rank, report.alpha, input)
      << "\n";
  if (report.position) {
    const PositionTest& p = *report.position_detail;
    const std::string column = shape.whole() ? "position" : "slot";
    o << "  " << line_for(column + " test (" + std::to_string(shape.n) + "x" + std::to_string(shape.k) + ")",
                          *report.position, report.alpha, input)
      << "\n    largest standardized residual " << fixed(p.max_residual, 2) << " (item "
      << item_name(p.max_item, input) << " at " << column << " " << p.max_position << ")\n";
  }
  for (const TallyKindRow& row : kTallyKindRows)
    if (const std::optional<TestResult>& t = report.test(row.kind); row.histogram_test && t)
      o << "  " << line_for(std::string(row.test_title) + " test (" + histogram_test_scope(row, run.tally) + ")", *t,
                            report.alpha, input)
        << "\n";
  for (const TestResult& t : report.extra_tests) o << "  " << line_for(t.title, t, report.alpha, input) << "\n";
  for (const auto& n : report.notes) o << "  note: " << n << "\n";
  o << plain_text(plain_words(job, report, input));
  if (!report.reproduce.empty()) o << "  reproduce with: " << report.reproduce << "\n";
  o << "verdict: " << (report.verdict ? std::string(verdict_name(*report.verdict)) : "none")
    << "\n";
  return o.str();
}

}  // namespace melange::report
