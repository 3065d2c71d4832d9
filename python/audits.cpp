// The audits (built-in jobs and records from anywhere), the exact laws and
// the result an audit returns.
#include <optional>

#include "module_support.hpp"

#include "melange/predictability.hpp"

namespace melange::python_module {

// An audit's result: the tallies as arrays, the tests, the verdict, and the
// JSON document the CLI writes for the same audit.
struct AuditResult {
  Job job;
  RunResult run;
  AuditReport report;
  std::string json;

  // A kind's counts as an array, in its row's layout (a matrix: items x
  // slots), or None where the audit did not tally it.
  py::object counts_of(TallyKind kind) const {
    const TallyCounts& c = run.tally[kind];
    if (c.empty()) return py::none();
    if (row_of(kind).layout == CountsLayout::matrix)
      return py::array_t<std::uint64_t>(std::vector<py::ssize_t>{c.n(), c.k()}, c.counts().data());
    return py::array_t<std::uint64_t>(static_cast<py::ssize_t>(c.bins()), c.counts().data());
  }
  py::object counts(const std::string& name) const {
    const std::optional<TallyKind> kind = tally_kind_named(name);
    if (!kind) {
      std::string names;
      for (const TallyKindRow& row : kTallyKindRows) (names += names.empty() ? "" : ", ") += row.name;
      throw py::value_error("unknown tally kind '" + name + "': use " + names);
    }
    return counts_of(*kind);
  }
  py::object histogram() const { return counts_of(TallyKind::ranks); }
  py::object positions() const { return counts_of(TallyKind::positions); }
  py::object hands() const { return counts_of(TallyKind::hands); }
  std::string verdict() const { return report.verdict ? std::string(verdict_name(*report.verdict)) : "none"; }
  // The tests as dicts, with the fields the JSON document gives each
  // ("rank", "position"; for deals "deal", "slot", "hand", "category").
  py::list tests() const {
    py::list out;
    for (const report::TestFields& t : report::test_fields(report)) {
      py::dict d;
      if (t.key == "rank") {
        // The rank test's headline figures, as `stats` names them.
        d["test"] = t.test;
        for (const report::Field& f : t.fields)
          for (const char* key : {"chi2", "df", "p_value", "log10_p", "g", "p_holm", "verdict"})
            if (f.key == key) d[key] = field_object(f.value);
      } else {
        for (const report::Field& f : t.fields) d[f.key.c_str()] = field_object(f.value);
        d["test"] = t.test;
      }
      out.append(d);
    }
    return out;
  }
};

AuditResult finish_audit(const AuditRequest& request, const AuditPlan& plan, const Job& job, RunResult run,
                         const ExactDistribution* model, const std::optional<std::string>& model_name,
                         const report::InputInfo* input, const StreamTally* stream = nullptr,
                         const RepeatCount* serial_repeats = nullptr) {
  const std::optional<StatisticLaw> statistic_law = statistic_model(request, plan);
  AuditOptions o = planned_options(plan, model, statistic_law);
  o.stream = stream;
  o.serial_repeats = serial_repeats;
  o.records = input != nullptr;
  AuditResult r{job, std::move(run), {}, {}};
  r.report = planned_report(plan, job, r.run.tally, o, model_name.value_or(""));
  r.json = report::audit_json_text(r.job, r.run, r.report, input);
  return r;
}

// The law a `model=` names.
ReferenceLaw law_of(const std::optional<std::string>& model) {
  if (!model) return ReferenceLaw::uniform;
  if (*model == "exact") return ReferenceLaw::exact;
  if (*model == "plackett-luce") return ReferenceLaw::plackett_luce;
  throw UsageError(Param::model, "{model} must be None (uniform), 'exact' or 'plackett-luce'");
}

// The weights as exact rationals, from the decimals Python prints for them.
std::vector<Rational> weight_rationals(const Job& job) {
  std::vector<Rational> w;
  for (double x : job.weights) w.push_back(decimal_rational(py::str(py::float_(x))));
  return w;
}

// The reference law of a planned audit; its walk can be stopped by Ctrl-C
// between its subtrees. (The weights are read here, holding the GIL: the
// walk runs on another thread.)
std::shared_ptr<const ExactDistribution> law_of_plan(const AuditRequest& request, const AuditPlan& plan) {
  if (request.law == ReferenceLaw::uniform) return nullptr;
  const std::vector<Rational> weights = weight_rationals(plan.job);
  return interruptible([&](const std::function<bool()>& stop) { return reference_law(request, plan, weights, stop); });
}

// Records as an array of integers, any width, signed or unsigned: uint8 and
// uint16 as they lie, the others as int64. Anything else (floats, strings,
// objects, masked arrays) is refused by its dtype rather than coerced.
py::array integer_records(const py::object& given) {
  const py::module_ np = py::module_::import("numpy");
  if (py::isinstance(given, np.attr("ma").attr("MaskedArray")))
    throw UsageError("records must be a plain integer array; a masked array's mask would be ignored: "
                     "drop the masked rows and pass .data");
  const py::array records = np.attr("asarray")(given);
  const char kind = records.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw UsageError("records must be integers (any width, signed or unsigned); got dtype " +
                     std::string(py::str(records.dtype())));
  if (records.ndim() != 2) throw UsageError("records must be a 2-D array: a record a row");
  const bool narrow = records.dtype().is(py::dtype::of<std::uint8_t>()) || records.dtype().is(py::dtype::of<std::uint16_t>());
  if (narrow) return py::array::ensure(records, py::array::c_style);
  // uint64 items past int64 would wrap: they are out of range anyway.
  if (records.dtype().is(py::dtype::of<std::uint64_t>()) && records.size() > 0 &&
      records.attr("max")().cast<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    throw UsageError("records hold an item of " + std::string(py::str(records.attr("max")())) +
                     ", past any n: items are 0 .. n-1");
  const py::array wide = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(records);
  if (!wide) throw py::error_already_set();
  return wide;
}

// Records audited; the shuffle's keywords (n=, k=, and for model= its
// algo=, method=, bits= and card parameters) from **shuffle.
AuditResult audit_records(const py::object& records, const py::kwargs& shuffle, bool position, bool hands,
                          const std::optional<std::string>& model, const std::variant<bool, std::string>& skip_invalid,
                          bool stream_tests, const std::vector<int>& lags, const std::optional<double>& predict_seconds,
                          const std::optional<int>& base) {
  if (predict_seconds && !(*predict_seconds >= 0 && std::isfinite(*predict_seconds)))
    throw UsageError("predict_seconds takes a number of seconds, 0 or more (0: no search), or None");
  const py::array data = integer_records(records);
  const int items = static_cast<int>(std::min<py::ssize_t>(data.shape(1), std::numeric_limits<int>::max()));
  const Job given = shuffle_of(shuffle, "audit_records", Job{.n = 0});  // n 0: not given
  // n and k from the array's shape where not given, as the CLI reads a
  // .npy file's (record_shape.hpp).
  RecordShape shape{.n = given.n, .k = given.k, .n_given = given.n != 0, .base = base.value_or(0),
                    .base_given = base.has_value()};
  infer_row_shape(shape, items, "the array's shape", "the array's records");
  // 1-based as the CLI infers it of text: the first record holds 1 .. n, no 0.
  if (data.shape(0) > 0 && items > 0) {
    const py::object first = data[py::int_(0)];
    infer_row_base(shape, first.attr("min")().cast<std::int64_t>() >= 1 && first.attr("max")().cast<std::int64_t>() == items,
                   items);
  }
  AuditRequest request;
  if (model) request.job = given;  // the model's shuffle; without one, records of any
  request.job.n = shape.n;
  request.job.k = shape.k;
  request.records = true;
  request.position = position;
  request.hands = hands;
  request.stream_tests = stream_tests;
  request.lags = lags;
  request.law = law_of(model);
  request.run.threads = 1;
  const AuditPlan plan = plan_audit(request);
  const std::shared_ptr<const ExactDistribution> law = law_of_plan(request, plan);
  RecordOptions o;
  o.n = plan.job.n;
  o.k = is_deal(plan.job) ? plan.job.k : 0;
  o.base = shape.base;
  // True skips up to kMaxInvalidShare of the records; 'all', any number.
  if (const auto* word = std::get_if<std::string>(&skip_invalid)) {
    if (*word != "all") throw UsageError(Param::skip_invalid, "{skip_invalid} is False, True or 'all', not '" + *word + "'");
    o.skip_invalid = true;
    o.max_invalid_share = 1;
  } else {
    o.skip_invalid = std::get<bool>(skip_invalid);
  }
  const RecordArray array{data.data(), static_cast<std::uint64_t>(data.shape(0)), static_cast<int>(data.shape(1)),
                          static_cast<int>(data.itemsize()), data.dtype().kind() == 'i'};
  const std::optional<StatisticLaw> statistic_law = statistic_model(request, plan);
  RecordAuditor auditor(plan.job, planned_options(plan, law.get(), statistic_law), RecordLooks{}, plan.stream);
  const RecordStats stats = interruptible([&](const std::function<bool()>& stop) {
    return auditor.read(array, o, stop);
  }, static_cast<std::size_t>(data.size()) <= kShortCallItems);
  const report::InputInfo input{"<array>", "array", shape.base, stats.invalid, stats.first_invalid,
                                spell_tokens(shape.inferred, [](Param p) { return keyword_of(p); })};
  const std::shared_ptr<const StreamTally> stream = auditor.stream();
  AuditResult result = finish_audit(request, plan, auditor.job(), auditor.result(), law.get(), model, &input, stream.get());
  // The predictability pass, as the CLI's (an array has no file time).
  if (!hands && predict_seconds.value_or(1) > 0) {
    PredictabilityPlan search;
    search.extra_seconds = predict_seconds.value_or(0);
    search.threads = options_of(std::nullopt, "auto").threads;
    add_predictability(result.report, interruptible([&](const std::function<bool()>& stop) {
                         search.stop = stop;
                         return check_predictability(auditor.head(), plan.job.n, search);
                       }));
    result.json = report::audit_json_text(result.job, result.run, result.report, &input);
  }
  return result;
}

// An audit of a built-in shuffle, planned as `melange audit` plans it.
AuditResult audit_builtin(Job shuffle, const py::object& trials_arg, const py::object& seed, std::uint64_t first,
                          std::optional<int> threads, const std::string& backend, bool position, bool hands,
                          const std::optional<std::string>& model, bool serial) {
  AuditRequest request;
  request.job = std::move(shuffle);
  request.job.seed = seed_of(seed);
  request.job.first = first;
  request.job.trials = count_of(trials_arg, "trials").value_or(0);
  request.position = position;
  request.hands = hands;
  request.serial = serial;
  request.law = law_of(model);
  request.run = options_of(threads, backend);
  const AuditPlan plan = plan_audit(request);
  const Job& job = plan.job;
  const std::shared_ptr<const ExactDistribution> law = law_of_plan(request, plan);
  std::optional<RepeatCount> repeats;
  RunResult run = interruptible([&](const std::function<bool()>& stop) {
    RunOptions o = plan.run;
    o.cancelled = stop;
    RunResult done = melange::run(job, o);
    repeats = serial_repeats(plan, o);
    return done;
  }, job.trials <= kShortCallItems / static_cast<std::uint64_t>(job.n));
  return finish_audit(request, plan, job, std::move(run), law.get(), model, nullptr, nullptr,
                      repeats ? &*repeats : nullptr);
}

// A shuffle's exact law, as `melange exact` gives it.
py::dict exact_law(const std::string& algo, int n, std::optional<int> k, const std::vector<double>& weights,
                   const std::string& method, int bits, std::optional<int> threads) {
  Job job = job_of(algo, weights.empty() ? n : static_cast<int>(weights.size()), k ? *k : 0, weights,
                   py::none(), 0, method, bits);
  job.trials = 1;
  validate_draws(job);
  AuditRequest request;
  request.job = job;
  request.law = ReferenceLaw::exact;
  check_exact_law(job.algorithm);
  AuditPlan plan{job, {}, {}};
  plan.run.threads = threads ? *threads : 1;
  const std::shared_ptr<const ExactDistribution> d = law_of_plan(request, plan);
  py::dict out;
  py::list numerators, denominators, labels;
  std::vector<double> p = d->probabilities();
  const Shape s = shape_of(job);
  for (std::size_t r = 0; r < d->probability.size(); ++r) {
    // 9! rationals take seconds: Ctrl-C is heard on the way.
    if (r % 4096 == 0 && PyErr_CheckSignals() != 0) throw PythonErrorSet{};
    numerators.append(py::int_(py::str(numerator(d->probability[r]).str())));
    denominators.append(py::int_(py::str(denominator(d->probability[r]).str())));
    labels.append(outcome_label(r, s.n, s.k));
  }
  out["probabilities"] = py::array_t<double>(static_cast<py::ssize_t>(p.size()), p.data());
  out["numerators"] = numerators;
  out["denominators"] = denominators;
  out["labels"] = labels;
  out["mean_words"] = d->mean_words;
  out["json"] = report::exact_json_text(*d, 1e6);
  return out;
}

// A card shuffle's closed form as a dict: the law of its statistic by value
// (as floats, and exactly as fraction strings under "exact") and its
// distances to uniform.
py::dict closed_form_dict(int n, const char* key, const std::vector<Rational>& law, const Rational& total_variation,
                          const Rational& separation) {
  py::dict out;
  out["n"] = n;
  out[key] = to_doubles(law);
  std::vector<std::string> exact;
  for (const Rational& q : law) exact.push_back(q.str());
  out["exact"] = exact;
  out["total_variation"] = static_cast<double>(total_variation);
  out["separation"] = static_cast<double>(separation);
  return out;
}

namespace {

void add_audit_result(py::module_& m) {
  py::class_<AuditResult>(m, "AuditResult", "An audit: its tallies, tests, verdict and JSON document.")
      .def_property_readonly("histogram", &AuditResult::histogram, "counts by Lehmer (or deal) rank, or None")
      .def_property_readonly("positions", &AuditResult::positions, "item x position (slot) counts, or None")
      .def_property_readonly("hands", &AuditResult::hands, "counts by hand (colex rank), or None")
      .def("counts", &AuditResult::counts, py::arg("kind"),
           "a tally kind's counts by its name (ranks, positions, hands, categories), or None where not tallied")
      .def_property_readonly("tests", &AuditResult::tests, "the tests run, as dicts")
      .def_property_readonly("verdict", &AuditResult::verdict,
                             "PASS, WEAK, FAIL, or none: no test could run, or too few records for a verdict "
                             "(records_for_a_verdict)")
      .def_property_readonly(
          "records_for_a_verdict",
          [](const AuditResult& r) -> std::optional<double> {
            if (r.report.records_for_a_verdict > 0) return r.report.records_for_a_verdict;
            return std::nullopt;
          },
          "with verdict none although tests ran: about how many records give a first verdict; else None")
      .def_property_readonly("trials", [](const AuditResult& r) { return r.run.tally.trials; })
      .def("to_json", [](const AuditResult& r) { return r.json; }, "the document `melange audit --json` writes")
      .def("__repr__", [](const AuditResult& r) {
        return "<melange.AuditResult " + r.verdict() + ", " + std::to_string(r.run.tally.trials) + " trials>";
      });
}

void add_audit_functions(py::module_& m) {
  // The audit's own options by name; the shuffle's keywords (algo, n, k,
  // weights, method, bits, riffles, shelves, passes) are **shuffle, read by
  // the job-field table (shuffle_of).
  m.def(
      "audit",
      [](const py::object& trials_arg, const py::object& seed, const py::object& first, const py::object& threads,
         const std::string& backend, bool position, bool hands, const std::optional<std::string>& model, bool serial,
         const py::kwargs& shuffle) {
        return guarded("trials", [&] {
          return audit_builtin(shuffle_of(shuffle, "audit", Job{}), trials_arg, seed, u64_of(first, "first"),
                               optional_int_of(threads, "threads"), backend, position, hands, model, serial);
        });
      },
      py::kw_only(), py::arg("trials") = 1'000'000, py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"),
      py::arg("first") = 0, py::arg("threads") = py::none(), py::arg("backend") = "auto", py::arg("position") = false,
      py::arg("hands") = false, py::arg("model") = py::none(), py::arg("serial") = false, python_docs::kAudit);

  m.def(
      "audit_records",
      [](const py::object& records, bool position, bool hands, const std::optional<std::string>& model,
         const std::variant<bool, std::string>& skip_invalid, bool stream_tests, const std::vector<int>& lags,
         const std::optional<double>& predict_seconds, const std::optional<int>& base, const py::kwargs& shuffle) {
        return guarded("trials", [&] {
          return audit_records(records, shuffle, position, hands, model, skip_invalid, stream_tests, lags,
                               predict_seconds, base);
        });
      },
      py::arg("records"), py::kw_only(), py::arg("position") = false, py::arg("hands") = false,
      py::arg("model") = py::none(), py::arg("skip_invalid") = false, py::arg("stream_tests") = true,
      py::arg("lags") = std::vector<int>{1}, py::arg("predict_seconds") = py::none(), py::arg("base") = py::none(),
      python_docs::kAuditRecords);
}

// The exact law of a walk, and the card shuffles' closed forms.
void add_laws(py::module_& m) {
  m.def(
      "exact",
      [](const std::string& algo, const py::object& n, const py::object& k, const std::vector<double>& weights,
         const std::string& method, const py::object& bits, const py::object& threads) {
        return guarded("trials", [&] {
          return exact_law(algo, int_of(n, "n"), optional_int_of(k, "k"), weights, method, int_of(bits, "bits"),
                           optional_int_of(threads, "threads"));
        });
      },
      py::kw_only(), py::arg("algo") = "fisher-yates", py::arg("n") = 4, py::arg("k") = py::none(),
      py::arg("weights") = std::vector<double>{}, py::arg("method") = "batched", py::arg("bits") = 32,
      py::arg("threads") = py::none(),
      python_docs::kExact);

  m.def(
      "riffle_law",
      [](const py::object& n, const py::object& riffles) {
        return guarded("n", [&] {
          const Shape s{int_of(n, "n"), int_of(n, "n"), nullptr, int_of(riffles, "riffles")};
          validate_closed_form(Algorithm::riffle, s);
          const RiffleLaw law = riffles_law(s.n, s.riffles);
          py::dict out = closed_form_dict(law.n, "rising_sequences", law.rises, law.total_variation, law.separation);
          out["riffles"] = s.riffles;
          out["mean_rising_sequences"] = static_cast<double>(law.mean_rises);
          return out;
        });
      },
      py::arg("n"), py::arg("riffles"), python_docs::kRiffleLaw);

  m.def(
      "shelf_law",
      [](const py::object& n, const py::object& shelves, const py::object& passes) {
        return guarded("n", [&] {
          const Shape s{int_of(n, "n"), int_of(n, "n"), nullptr, 0, int_of(shelves, "shelves"), int_of(passes, "passes")};
          validate_closed_form(Algorithm::shelf, s);
          const ShelfLaw law = interruptible(
              [&](const std::function<bool()>& stop) { return shelf_law(s.n, s.shelves, s.passes, stop); });
          py::dict out = closed_form_dict(law.n, "valleys", law.valleys, law.total_variation, law.separation);
          out["shelves"] = s.shelves;
          out["passes"] = s.passes;
          out["one_pass_shelves"] = py::int_(py::str(law.one_pass_shelves.str()));
          out["mean_valleys"] = static_cast<double>(law.mean_valleys);
          if (law.n <= kShelfGuessingItems) {
            const ShelfGuessing g = shelf_guessing(law);
            out["guesses_mean"] = static_cast<double>(g.mean);
            out["best_guesses_mean"] = static_cast<double>(g.best_mean);
          }
          return out;
        });
      },
      py::arg("n"), py::arg("shelves"), py::arg("passes") = 1, python_docs::kShelfLaw);
}

}  // namespace

// The audits and the exact laws, and the result an audit returns.
void add_audits(py::module_& m) {
  add_audit_result(m);
  add_audit_functions(m);
  add_laws(m);
}

}  // namespace melange::python_module
