// The Python face of melange (DESIGN.md section 7): `import melange`.
//
// Sampling functions return NumPy arrays (uint8 items when n <= 256, else
// uint16; uint32 for integers) or fill `out=`, an existing C-contiguous
// array of exactly that dtype and shape. Keyword names are the CLI's flags.
// The GIL is released while records are made and trials run. Library errors
// become ValueError (a wrong request, with the parameter spelled as the
// keyword) or RuntimeError (anything else).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "melange/audit.hpp"
#include "melange/audit_plan.hpp"
#include "melange/deal.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"
#include "melange/integers.hpp"
#include "melange/records.hpp"
#include "melange/serve.hpp"
#include "melange/trial.hpp"
#include "melange/version.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"

#include "docstrings.hpp"

namespace py = pybind11;
using namespace melange;

namespace {

// What interruptible() throws once Python's signal handlers raised (a
// KeyboardInterrupt): the error is already set, and guarded() hands it on.
struct PythonErrorSet {};

// A library error as Python's: {trials} is spelled `count` in the sampling
// functions and `trials` in audit, as their keywords are.
template <class F>
auto guarded(const char* trials_keyword, F&& f) {
  try {
    return f();
  } catch (const PythonErrorSet&) {
    throw py::error_already_set();
  } catch (const Error& e) {
    const std::string text = e.render([&](Param p) {
      if (p == Param::trials) return std::string(trials_keyword);
      if (p == Param::position_matrix) return std::string("position");
      if (p == Param::hand_histogram) return std::string("hands");
      if (p == Param::algorithm) return std::string("algo");
      return std::string(param_name(p));
    });
    if (dynamic_cast<const UsageError*>(&e)) throw py::value_error(text);
    throw std::runtime_error(text);
  }
}

// Runs work(stop) with the GIL released, on a thread of its own, while this
// thread takes the GIL every 50 ms to let Python's signal handlers run
// (Ctrl-C). work polls stop() between pieces (runs pass it to the engine as
// RunOptions::cancelled) and ends early once a handler raised; the error
// (KeyboardInterrupt) is then raised here. work must not touch Python.
// A `short_call` (a few thousand records) runs on this thread instead: a
// thread of its own would cost it several times its work.
template <class F>
auto interruptible(F&& work, bool short_call = false) {
  using Result = decltype(work(std::function<bool()>{}));
  std::atomic<bool> stop{false};
  const std::function<bool()> stopped = [&stop] { return stop.load(std::memory_order_relaxed); };
  if (short_call) {
    py::gil_scoped_release free;
    return work(stopped);
  }
  std::optional<Result> result;
  std::exception_ptr failure;
  std::mutex m;
  std::condition_variable finished_cv;
  bool finished = false, raised = false;
  {
    py::gil_scoped_release free;
    std::thread worker([&] {
      try {
        result.emplace(work(stopped));
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard lock(m);
      finished = true;
      finished_cv.notify_one();
    });
    std::unique_lock lock(m);
    while (!finished_cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished; })) {
      if (raised) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        raised = PyErr_CheckSignals() != 0;
      }
      if (raised) stop.store(true);
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (raised) throw PythonErrorSet{};
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

// Items (or values) a call makes below which it is a short call for
// interruptible(): well under a millisecond of work.
constexpr std::size_t kShortCallItems = std::size_t{1} << 16;

// out='s records: the length of its first dimension.
std::uint64_t rows_of(const py::object& out) {
  if (!py::isinstance<py::array>(out))
    throw UsageError("out must be a NumPy array; got " + std::string(py::str(py::type::of(out).attr("__name__"))));
  const auto a = py::reinterpret_borrow<py::array>(out);
  if (a.ndim() < 1) throw UsageError("out must be an array of records; got a 0-d array");
  return static_cast<std::uint64_t>(a.shape(0));
}

Algorithm algorithm_of(const std::string& name) {
  const auto a = parse_algorithm(name);
  if (!a) throw UsageError("unknown algo '" + name + "': use " + algorithm_names(", "));
  return *a;
}

BoundedSpec spec_of(const std::string& method, int bits) {
  const auto m = parse_method(method);
  if (!m) throw UsageError("unknown method '" + method + "': use " + method_names(", "));
  return BoundedSpec{*m, bits};
}

// A count as Python writes it: an int, or a whole float such as 1e7; None
// stays unset.
std::optional<std::uint64_t> count_of(const py::object& value, const char* keyword) {
  if (value.is_none()) return std::nullopt;
  const auto wrong = [&] {
    return UsageError(std::string(keyword) + " must be a whole number of at least 0, such as 1000 or 1e6; got " +
                      std::string(py::repr(value)));
  };
  if (py::isinstance<py::float_>(value)) {
    const double d = value.cast<double>();
    if (!(d >= 0 && d < 1.8446744073709552e19 && d == static_cast<double>(static_cast<std::uint64_t>(d))))
      throw wrong();
    return static_cast<std::uint64_t>(d);
  }
  // An int, or anything that is one (NumPy's integers): not a bool, Python's
  // or NumPy's.
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, py::module_::import("numpy").attr("bool_")) ||
      !PyIndex_Check(value.ptr()))
    throw wrong();
  const auto whole = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!whole) throw py::error_already_set();
  if (whole.attr("__lt__")(0).cast<bool>() || whole.attr("bit_length")().cast<int>() > 64) throw wrong();
  return whole.cast<std::uint64_t>();
}

// An integer argument as NumPy takes one: a Python int or any NumPy
// integer (anything with __index__), not a bool and not a float (TypeError,
// as NumPy raises it). `keyword` names it.
py::int_ integer_of(const py::object& value, const char* keyword) {
  if (py::isinstance<py::bool_>(value) || py::isinstance(value, py::module_::import("numpy").attr("bool_")) ||
      !PyIndex_Check(value.ptr()))
    throw py::type_error(std::string(keyword) + " must be an integer (a Python int or a NumPy integer), not " +
                         std::string(py::str(py::type::of(value).attr("__name__"))));
  auto whole = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!whole) throw py::error_already_set();
  return whole;
}

// The same, within lo .. hi (ValueError).
std::uint64_t whole_of(const py::object& value, const char* keyword, std::uint64_t lo, std::uint64_t hi) {
  const py::int_ whole = integer_of(value, keyword);
  const bool below = whole.attr("__lt__")(py::int_(lo)).cast<bool>();
  const bool above = whole.attr("__gt__")(py::int_(hi)).cast<bool>();
  if (below || above)
    throw py::value_error(std::string(keyword) + " must be in " + std::to_string(lo) + " .. " +
                          (hi == std::numeric_limits<std::uint64_t>::max() ? std::string("2**64 - 1") : std::to_string(hi)) +
                          "; got " + std::string(py::repr(whole)));
  return whole.cast<std::uint64_t>();
}
int int_of(const py::object& value, const char* keyword) {
  return static_cast<int>(whole_of(value, keyword, 0, std::numeric_limits<int>::max()));
}
std::optional<int> optional_int_of(const py::object& value, const char* keyword) {
  if (value.is_none()) return std::nullopt;
  return int_of(value, keyword);
}
std::uint64_t u64_of(const py::object& value, const char* keyword) {
  return whole_of(value, keyword, 0, std::numeric_limits<std::uint64_t>::max());
}
// seed=None is melange.DEFAULT_SEED, the fixed seed every command uses.
std::uint64_t seed_of(const py::object& seed) { return seed.is_none() ? kDefaultSeed : u64_of(seed, "seed"); }

RunOptions options_of(const std::optional<int>& threads, const std::string& backend) {
  RunOptions o;
  o.threads = threads ? *threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.backend = backend;
  return o;
}

// `out` when given (checked: the dtype, C order, writable, the shape), else
// a new array of `shape`.
template <class T>
py::array_t<T> out_array(const py::object& out, const std::vector<py::ssize_t>& shape) {
  if (out.is_none()) return py::array_t<T>(shape);
  const std::string want = std::string(py::str(py::dtype::of<T>())) + " array of shape (" +
                           [&] {
                             std::string s;
                             for (std::size_t i = 0; i < shape.size(); ++i)
                               s += (i ? ", " : "") + std::to_string(shape[i]);
                             return s + (shape.size() == 1 ? ",)" : ")");
                           }() +
                           ", C-contiguous and writable";
  if (!py::isinstance<py::array>(out)) throw UsageError("out must be a NumPy " + want);
  auto a = py::reinterpret_borrow<py::array>(out);
  bool ok = a.dtype().is(py::dtype::of<T>()) && (a.flags() & py::array::c_style) && a.writeable() &&
            a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (std::size_t i = 0; ok && i < shape.size(); ++i) ok = a.shape(static_cast<py::ssize_t>(i)) == shape[i];
  if (!ok) {
    std::string got = std::string(py::str(a.dtype())) + " array of shape " + std::string(py::str(out.attr("shape")));
    throw UsageError("out must be a " + want + "; got a " + got);
  }
  return py::reinterpret_borrow<py::array_t<T>>(out);
}

// The records of `job` as an array (count, items).
template <class T>
py::array records_as(const Job& job, const py::object& out, const RunOptions& options) {
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(job.trials),
                                       static_cast<py::ssize_t>(record_items(job))};
  py::array_t<T> a = out_array<T>(out, shape);
  const std::span<T> items(a.mutable_data(), static_cast<std::size_t>(a.size()));
  interruptible([&](const std::function<bool()>& stop) {
    RunOptions o = options;
    o.cancelled = stop;
    return fill_records(job, items, o);
  }, items.size() <= kShortCallItems);
  return a;
}

py::array serve(Job job, const py::object& count_arg, const py::object& out, const RunOptions& options) {
  std::optional<std::uint64_t> count = count_of(count_arg, "count");
  if (!count) {
    if (out.is_none()) throw UsageError(Param::trials, "give {trials}, or out= to fill");
    count = rows_of(out);
  }
  if (*count > static_cast<std::uint64_t>(std::numeric_limits<py::ssize_t>::max()))
    throw UsageError(Param::trials, "{trials} of " + std::to_string(*count) + " records do not fit an array");
  job.trials = *count;
  // A dtype the items fit: uint8 to n = 256.
  return items_fit_u8(job) ? records_as<std::uint8_t>(job, out, options)
                           : records_as<std::uint16_t>(job, out, options);
}

// The card shuffles' keywords (None: not given): riffles=; shelves= and
// passes=, one pass where a shelf machine is not told otherwise.
struct CardArgs {
  std::optional<int> riffles, shelves, passes;
  void apply_to(Job& job) const {
    job.riffles = riffles.value_or(0);
    job.shelves = shelves.value_or(0);
    job.passes = passes.value_or(default_passes(job.algorithm));
  }
};
CardArgs card_args_of(const py::object& riffles, const py::object& shelves, const py::object& passes) {
  return {optional_int_of(riffles, "riffles"), optional_int_of(shelves, "shelves"), optional_int_of(passes, "passes")};
}

Job job_of(const std::string& algo, int n, int k, const std::vector<double>& weights, const py::object& seed,
           std::uint64_t first, const std::string& method, int bits, const CardArgs& cards = {}) {
  Job job;
  job.algorithm = algorithm_of(algo);
  job.n = n;
  job.k = k;
  job.weights = weights;
  cards.apply_to(job);
  job.seed = seed_of(seed);
  job.first = first;
  job.spec = spec_of(method, bits);
  return job;
}

// A document's value as Python has it: JSON's null (a statistic that is not
// finite among them) is None.
py::object field_object(const report::FieldValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) return py::none();
        else if constexpr (std::is_same_v<T, double>) return std::isfinite(x) ? py::object(py::float_(x)) : py::none();
        else return py::cast(x);
      },
      v);
}

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
  AuditOptions o;
  o.model = model;
  o.statistic_model = statistic_law ? &*statistic_law : nullptr;
  o.stream = stream;
  o.serial_repeats = serial_repeats;
  o.records = input != nullptr;
  o.position_on_demand = plan.position_on_demand;
  AuditResult r{job, std::move(run), {}, {}};
  r.report = analyze(job, r.run.tally, o);
  r.report.model = model_name.value_or("");
  r.report.notes.insert(r.report.notes.begin(), plan.notes.begin(), plan.notes.end());
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

AuditResult audit_records(const py::object& given, std::optional<int> n_given, std::optional<int> k_given, bool position, bool hands,
                          const std::optional<std::string>& model, const std::string& algo, const std::string& method,
                          int bits, const std::variant<bool, std::string>& skip_invalid, bool stream_tests,
                          const std::vector<int>& lags, const CardArgs& cards) {
  const py::array data = integer_records(given);
  // n and k from the array's shape where not given: its rows are
  // permutations of n items, or deals of k of n when n says more.
  const int items = static_cast<int>(std::min<py::ssize_t>(data.shape(1), std::numeric_limits<int>::max()));
  const int n = n_given ? *n_given : items;
  std::optional<int> k = k_given;
  if (!k && n_given && items < *n_given) k = items;
  AuditRequest request;
  request.job.n = n;
  request.job.k = k ? *k : 0;
  if (model) {
    request.job.algorithm = algorithm_of(algo);
    request.job.spec = spec_of(method, bits);
    cards.apply_to(request.job);
  }
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
  o.n = n;
  o.k = is_deal(plan.job) ? plan.job.k : 0;
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
  AuditOptions audit;
  audit.model = law.get();
  audit.position_on_demand = plan.position_on_demand;
  RecordAuditor auditor(plan.job, audit, RecordLooks{}, plan.stream);
  const RecordStats stats = interruptible([&](const std::function<bool()>& stop) {
    return auditor.read(array, o, stop);
  }, static_cast<std::size_t>(data.size()) <= kShortCallItems);
  const report::InputInfo input{"<array>", "array", 0, stats.invalid, stats.first_invalid, ""};
  const std::shared_ptr<const StreamTally> stream = auditor.stream();
  return finish_audit(request, plan, auditor.job(), auditor.result(), law.get(), model, &input, stream.get());
}

// An audit of a built-in shuffle, planned as `melange audit` plans it.
AuditResult audit_builtin(const std::string& algo, int n, const py::object& trials_arg, std::optional<int> k,
                          const std::vector<double>& weights, const py::object& seed, std::uint64_t first,
                          const std::string& method, int bits, std::optional<int> threads, const std::string& backend,
                          bool position, bool hands, const std::optional<std::string>& model, bool serial,
                          const CardArgs& cards) {
  AuditRequest request;
  request.job = job_of(algo, weights.empty() ? n : static_cast<int>(weights.size()), k ? *k : 0, weights,
                       seed, first, method, bits, cards);
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

}  // namespace

namespace {

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

// The sampling functions: records of a job into NumPy arrays.
void add_sampling(py::module_& m) {
  m.def(
      "permutations",
      [](const py::object& n, const py::object& count, const std::string& algo, const py::object& seed,
         const py::object& first, const std::string& method, const py::object& bits, const py::object& threads,
         const std::string& backend, const py::object& out, const py::object& riffles, const py::object& shelves,
         const py::object& passes) {
        return guarded("count", [&] {
          return serve(job_of(algo, int_of(n, "n"), 0, {}, seed, u64_of(first, "first"), method, int_of(bits, "bits"),
                              card_args_of(riffles, shelves, passes)),
                       count, out, options_of(optional_int_of(threads, "threads"), backend));
        });
      },
      py::arg("n"), py::arg("count") = py::none(), py::kw_only(), py::arg("algo") = "fisher-yates",
      py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"), py::arg("first") = 0, py::arg("method") = "batched", py::arg("bits") = 32,
      py::arg("threads") = py::none(), py::arg("backend") = "auto", py::arg("out") = py::none(),
      py::arg("riffles") = py::none(), py::arg("shelves") = py::none(), py::arg("passes") = py::none(),
      python_docs::kPermutations);

  m.def(
      "deals",
      [](const py::object& n, const py::object& k, const py::object& count, const py::object& seed,
         const py::object& first, const std::string& method, const py::object& bits, const py::object& threads,
         const std::string& backend, const py::object& out) {
        return guarded("count", [&] {
          return serve(job_of("partial", int_of(n, "n"), int_of(k, "k"), {}, seed, u64_of(first, "first"), method,
                              int_of(bits, "bits")),
                       count, out, options_of(optional_int_of(threads, "threads"), backend));
        });
      },
      py::arg("n"), py::arg("k"), py::arg("count") = py::none(), py::kw_only(), py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"),
      py::arg("first") = 0, py::arg("method") = "batched", py::arg("bits") = 32, py::arg("threads") = py::none(),
      py::arg("backend") = "auto", py::arg("out") = py::none(),
      python_docs::kDeals);

  m.def(
      "weighted",
      [](const std::vector<double>& weights, const py::object& count, const std::string& algo,
         const py::object& seed, const py::object& first, const py::object& threads, const std::string& backend,
         const py::object& out) {
        return guarded("count", [&] {
          return serve(job_of(algo, static_cast<int>(weights.size()), 0, weights, seed, u64_of(first, "first"),
                              "batched", 32),
                       count, out, options_of(optional_int_of(threads, "threads"), backend));
        });
      },
      py::arg("weights"), py::arg("count") = py::none(), py::kw_only(), py::arg("algo") = "weighted",
      py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"), py::arg("first") = 0, py::arg("threads") = py::none(),
      py::arg("backend") = "auto", py::arg("out") = py::none(),
      python_docs::kWeighted);
}

// The first `count` values in [0, range) of stream `stream`, as uint32.
py::array_t<std::uint32_t> bounded_values(const py::object& range_arg, const py::object& count_arg, std::uint64_t seed,
                                          std::uint64_t stream, const std::string& method, const py::object& bits,
                                          const py::object& out) {
  std::optional<std::uint64_t> count = count_of(count_arg, "count");
  if (!count) {
    if (out.is_none()) throw UsageError("give count, or out= to fill");
    count = rows_of(out);
  }
  if (*count > static_cast<std::uint64_t>(std::numeric_limits<py::ssize_t>::max()))
    throw UsageError("count of " + std::to_string(*count) + " values does not fit an array");
  py::array_t<std::uint32_t> a = out_array<std::uint32_t>(out, {static_cast<py::ssize_t>(*count)});
  const std::uint64_t range = whole_of(range_arg, "range", 0, std::uint64_t{1} << 32);
  BoundedIntegers values(seed, stream, range, spec_of(method, int_of(bits, "bits")));
  const std::span<std::uint32_t> all(a.mutable_data(), static_cast<std::size_t>(a.size()));
  // In pieces, the same values as one fill, so that Ctrl-C is heard.
  interruptible([&](const std::function<bool()>& stop) {
    constexpr std::size_t kPiece = std::size_t{1} << 22;
    for (std::size_t at = 0; at < all.size() && !stop(); at += kPiece)
      values.fill(all.subspan(at, std::min(kPiece, all.size() - at)));
    return 0;
  }, all.size() <= kShortCallItems);
  return a;
}

// Integers in [low, high) (or [low, high] with endpoint) of one stream, as
// numpy.random.Generator.integers is called: high None means [0, low);
// size an int, a shape or None (one value). The values are the bounded
// draws of `melange bounded --range (high - low)`, shifted by low, in
// dtype.
py::object numpy_integers(const py::object& low_arg, const py::object& high_arg, const py::object& size,
                          bool endpoint, const py::object& dtype_arg, std::uint64_t seed, std::uint64_t stream,
                          const std::string& method, const py::object& bits, const py::object& out) {
  const py::module_ np = py::module_::import("numpy");
  py::int_ low = integer_of(low_arg, "low"), high;
  if (high_arg.is_none()) {
    high = low;
    low = py::int_(0);
  } else {
    high = integer_of(high_arg, "high");
  }
  const py::object width = high.attr("__sub__")(low).attr("__add__")(py::int_(endpoint ? 1 : 0));
  if (width.attr("__lt__")(py::int_(1)).cast<bool>() ||
      width.attr("__gt__")(py::int_(std::uint64_t{1} << 32)).cast<bool>())
    throw py::value_error("high - low must be 1 .. 2**32 (" + std::string(endpoint ? "high - low + 1, with endpoint" : "high excluded") +
                          "); got low " + std::string(py::str(low)) + ", high " + std::string(py::str(high)));
  const py::object dtype = np.attr("dtype")(dtype_arg);
  if (dtype.attr("kind").cast<std::string>().find_first_of("iu") == std::string::npos)
    throw py::type_error("dtype must be an integer dtype; got " + std::string(py::str(dtype)));
  const py::object info = np.attr("iinfo")(dtype);
  const py::object top = high.attr("__sub__")(py::int_(endpoint ? 0 : 1));
  if (low.attr("__lt__")(info.attr("min")).cast<bool>() || top.attr("__gt__")(info.attr("max")).cast<bool>())
    throw py::value_error("low .. high does not fit dtype " + std::string(py::str(dtype)));
  if (!out.is_none() && !py::isinstance<py::array>(out))
    throw py::value_error("out must be a NumPy array of dtype " + std::string(py::str(dtype)) + "; got " +
                          std::string(py::str(py::type::of(out).attr("__name__"))));
  // The shape: size, or out's, or one value.
  py::object shape = size;
  if (shape.is_none() && !out.is_none()) shape = out.attr("shape");
  const bool scalar = shape.is_none();
  if (scalar) shape = py::make_tuple(1);
  if (PyIndex_Check(shape.ptr())) shape = py::make_tuple(integer_of(shape, "size"));
  std::uint64_t count = 1;
  for (const py::handle d : shape.cast<py::tuple>()) count *= whole_of(py::reinterpret_borrow<py::object>(d), "size", 0, ~std::uint64_t{0} >> 1);
  const py::array drawn = bounded_values(width, py::int_(count), seed, stream, method, bits, py::none());
  const py::object values = drawn.attr("astype")(dtype).attr("reshape")(shape).attr("__add__")(low.attr("__int__")());
  if (!out.is_none()) {
    const bool fits = py::isinstance<py::array>(out) && out.attr("dtype").attr("__eq__")(dtype).cast<bool>() &&
                      out.attr("shape").attr("__eq__")(values.attr("shape")).cast<bool>();
    if (!fits)
      throw py::value_error("out must be a " + std::string(py::str(dtype)) + " array of shape " +
                            std::string(py::str(values.attr("shape"))));
    np.attr("copyto")(out, values);
    return out;
  }
  if (scalar) return values.attr("__getitem__")(0);
  return values;
}

// One stream's bounded integers.
void add_integers(py::module_& m) {
  m.def(
      "integers",
      [](const py::object& low, const py::object& high, const py::object& size, bool endpoint,
         const py::object& dtype, const py::object& seed, const py::object& stream, const std::string& method,
         const py::object& bits, const py::object& out) {
        return guarded("size", [&] {
          return numpy_integers(low, high, size, endpoint, dtype, seed_of(seed), u64_of(stream, "stream"), method,
                                bits, out);
        });
      },
      py::arg("low"), py::arg("high") = py::none(), py::arg("size") = py::none(), py::kw_only(),
      py::arg("endpoint") = false, py::arg_v("dtype", py::module_::import("numpy").attr("int64"), "numpy.int64"),
      py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"), py::arg("stream") = 0, py::arg("method") = "batched",
      py::arg("bits") = 32, py::arg("out") = py::none(), python_docs::kIntegers);
}

// x shuffled along `axis`, each slice by its own trial: slice i (C order
// over the other axes) is put in the order of trial first + i's
// permutation, as numpy.random.Generator.permuted shuffles slices
// independently. Into `out` (x itself works) or a new array.
py::array permuted(const py::object& x, const py::object& axis_arg, const py::object& seed, std::uint64_t first,
                   const std::string& method, const py::object& threads, const std::string& backend,
                   const py::object& out, std::uint64_t* rows_taken = nullptr) {
  const py::module_ np = py::module_::import("numpy");
  const py::array a = np.attr("asarray")(x);
  if (a.ndim() == 0) throw UsageError("x must have at least one dimension to shuffle along");
  const auto ndim = static_cast<std::int64_t>(a.ndim());
  const py::int_ axis_int = integer_of(axis_arg, "axis");
  if (axis_int.attr("__lt__")(py::int_(-ndim)).cast<bool>() || axis_int.attr("__ge__")(py::int_(ndim)).cast<bool>())
    throw py::value_error("axis " + std::string(py::repr(axis_int)) + " is out of bounds for an array of " +
                          std::to_string(ndim) + " dimensions");
  const auto axis = axis_int.cast<std::int64_t>();
  const py::object moved = np.attr("moveaxis")(a, axis, -1);
  const auto length = moved.attr("shape").cast<py::tuple>()[ndim - 1].cast<std::int64_t>();
  const std::int64_t rows = length == 0 ? 0 : static_cast<std::int64_t>(a.size()) / length;
  py::object result = a.attr("copy")();
  if (rows > 0 && length > 1) {
    const py::array order = serve(job_of("fisher-yates", static_cast<int>(length), 0, {}, seed, first, method, 32),
                                  py::int_(rows), py::none(), options_of(optional_int_of(threads, "threads"), backend));
    const py::object flat = moved.attr("reshape")(rows, length);
    const py::object shuffled = np.attr("take_along_axis")(flat, order.attr("astype")(np.attr("intp")), 1);
    result = np.attr("moveaxis")(shuffled.attr("reshape")(moved.attr("shape")), -1, axis);
  }
  if (rows_taken) *rows_taken = static_cast<std::uint64_t>(rows);
  if (out.is_none()) return np.attr("ascontiguousarray")(result);
  if (!py::isinstance<py::array>(out) || !out.attr("shape").equal(a.attr("shape")))
    throw UsageError("out must be an array of x's shape " + std::string(py::str(a.attr("shape"))));
  np.attr("copyto")(out, result);
  return py::reinterpret_borrow<py::array>(out);
}

// A job's stream of trials as an object, NumPy's Generator for melange:
// seed, the next trial index `first`, and `end`, the first index it may not
// use. Each call takes the next trials and moves `first` past them, so that
// calls in a row give the records of one range, as one call would.
//
// One call at a time, as NumPy's Generator draws under its lock: a call
// serves with the GIL released, so two threads sharing a Stream would read
// the same `first` and serve one range twice. Each call holds the Stream's
// lock from reading `first` to moving it.
struct Stream {
  std::uint64_t seed = kDefaultSeed;
  std::uint64_t first = 0;
  std::uint64_t end = std::numeric_limits<std::uint64_t>::max();  // exclusive; the root's last index is 2^64 - 2
  // Each Stream has a lock of its own, a copy too.
  struct Lock {
    std::mutex mutex;
    Lock() = default;
    Lock(const Lock&) {}
    Lock& operator=(const Lock&) { return *this; }
  };
  mutable Lock lock{};
  // The backends and decision tables of its calls, kept from call to call
  // (engine.hpp): a Stream drawn from a few thousand trials at a time pays
  // for a table once. Each Stream made (by spawn, jumped or unpickling too)
  // has its own.
  std::shared_ptr<Context> context = std::make_shared<Context>();

  // The next `count` trials (None: out's rows), checked against `end`.
  std::uint64_t take(const py::object& count, const py::object& out) {
    const std::optional<std::uint64_t> c = count_of(count, "count");
    const std::uint64_t n = c ? *c : (out.is_none() ? 0 : rows_of(out));
    if (n > end - first)
      throw UsageError("this Stream has " + std::to_string(end - first) + " trials left before " +
                       std::to_string(end) + " (its range ends there; spawn gave it that range)");
    return n;
  }
  // Call under a StreamCall.
  py::array serve_next(Job job, const py::object& count, const py::object& out, const RunOptions& options) {
    const std::uint64_t n = take(count, out);
    job.seed = seed;
    job.first = first;
    RunOptions with_context = options;
    with_context.context = context.get();
    py::array a = serve(job, count, out, with_context);
    first += n;
    return a;
  }
};

// Holds a Stream's lock for one call. It is taken with the GIL released: a
// thread that waited for it holding the GIL would keep the holder, which
// gives the GIL up while it samples, from ever taking the GIL back.
class StreamCall {
 public:
  explicit StreamCall(const Stream& s) : held_(s.lock.mutex, std::defer_lock) {
    py::gil_scoped_release released;
    held_.lock();
  }

 private:
  std::unique_lock<std::mutex> held_;
};

// A Stream's draws: each takes the next trials and moves first past them.
void add_stream_draws(py::class_<Stream>& stream) {
  stream
      .def(
          "permutations",
          [](Stream& s, const py::object& n, const py::object& count, const std::string& algo,
             const std::string& method, const py::object& bits, const py::object& threads, const std::string& backend,
             const py::object& out, const py::object& riffles, const py::object& shelves, const py::object& passes) {
            return guarded("count", [&] {
              const StreamCall call(s);
              return s.serve_next(job_of(algo, int_of(n, "n"), 0, {}, py::none(), 0, method, int_of(bits, "bits"),
                                         card_args_of(riffles, shelves, passes)),
                                  count, out, options_of(optional_int_of(threads, "threads"), backend));
            });
          },
          py::arg("n"), py::arg("count") = py::none(), py::kw_only(), py::arg("algo") = "fisher-yates",
          py::arg("method") = "batched", py::arg("bits") = 32, py::arg("threads") = py::none(),
          py::arg("backend") = "auto", py::arg("out") = py::none(), py::arg("riffles") = py::none(),
          py::arg("shelves") = py::none(), py::arg("passes") = py::none(),
          "The next count permutations: melange.permutations(n, count, seed=seed, first=first), then first += count.")
      .def(
          "deals",
          [](Stream& s, const py::object& n, const py::object& k, const py::object& count, const std::string& method,
             const py::object& bits, const py::object& threads, const std::string& backend, const py::object& out) {
            return guarded("count", [&] {
              const StreamCall call(s);
              return s.serve_next(job_of("partial", int_of(n, "n"), int_of(k, "k"), {}, py::none(), 0, method,
                                         int_of(bits, "bits")),
                                  count, out, options_of(optional_int_of(threads, "threads"), backend));
            });
          },
          py::arg("n"), py::arg("k"), py::arg("count") = py::none(), py::kw_only(), py::arg("method") = "batched",
          py::arg("bits") = 32, py::arg("threads") = py::none(), py::arg("backend") = "auto",
          py::arg("out") = py::none(), "The next count deals of k of n: melange.deals(...) at first, then first += count.")
      .def(
          "weighted",
          [](Stream& s, const std::vector<double>& weights, const py::object& count, const std::string& algo,
             const py::object& threads, const std::string& backend, const py::object& out) {
            return guarded("count", [&] {
              const StreamCall call(s);
              return s.serve_next(job_of(algo, static_cast<int>(weights.size()), 0, weights, py::none(), 0, "batched", 32),
                                  count, out, options_of(optional_int_of(threads, "threads"), backend));
            });
          },
          py::arg("weights"), py::arg("count") = py::none(), py::kw_only(), py::arg("algo") = "weighted",
          py::arg("threads") = py::none(), py::arg("backend") = "auto", py::arg("out") = py::none(),
          "The next count weighted orders: melange.weighted(...) at first, then first += count.")
      .def(
          "integers",
          [](Stream& s, const py::object& low, const py::object& high, const py::object& size, bool endpoint,
             const py::object& dtype, const std::string& method, const py::object& bits, const py::object& out) {
            return guarded("size", [&] {
              const StreamCall call(s);
              s.take(py::int_(1), py::none());
              py::object values = numpy_integers(low, high, size, endpoint, dtype, s.seed, s.first, method, bits, out);
              ++s.first;
              return values;
            });
          },
          py::arg("low"), py::arg("high") = py::none(), py::arg("size") = py::none(), py::kw_only(),
          py::arg("endpoint") = false, py::arg_v("dtype", py::module_::import("numpy").attr("int64"), "numpy.int64"),
          py::arg("method") = "batched", py::arg("bits") = 32, py::arg("out") = py::none(),
          "Integers as melange.integers(low, high, size, seed=seed, stream=first) gives them, then first += 1.")
      .def(
          "permuted",
          [](Stream& s, const py::object& x, const py::object& axis, const std::string& method,
             const py::object& threads, const std::string& backend, const py::object& out) {
            return guarded("count", [&] {
              const StreamCall call(s);
              const py::array a = py::module_::import("numpy").attr("asarray")(x);
              const std::uint64_t length = a.ndim() ? static_cast<std::uint64_t>(a.shape(a.ndim() - 1)) : 1;
              s.take(py::int_(length ? static_cast<std::uint64_t>(a.size()) / length : 0), py::none());
              std::uint64_t rows = 0;
              py::array r = permuted(x, axis, py::int_(s.seed), s.first, method, threads, backend, out, &rows);
              s.first += rows;
              return r;
            });
          },
          py::arg("x"), py::kw_only(), py::arg("axis") = -1, py::arg("method") = "batched",
          py::arg("threads") = py::none(), py::arg("backend") = "auto", py::arg("out") = py::none(),
          "x shuffled along axis, slice i by trial first + i (melange.permuted at first), then first moves past "
          "the slices.");
}

void add_stream(py::module_& m) {
  constexpr std::uint64_t kDefaultSpan = std::uint64_t{1} << 48;
  py::class_<Stream> stream(m, "Stream", python_docs::kStream);
  stream
      .def(py::init([](const py::object& seed, const py::object& first) {
             return Stream{seed_of(seed), u64_of(first, "first")};
           }),
           py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"), py::arg("first") = 0)
      .def_readonly("seed", &Stream::seed, "the job's seed")
      .def_readonly("first", &Stream::first, "the next trial index a call takes")
      .def_readonly("end", &Stream::end, "the first trial index this Stream may not take");
  add_stream_draws(stream);
  stream
      .def(
          "spawn",
          [](Stream& s, const py::object& k_arg, const py::object& span_arg) {
            const StreamCall call(s);
            const std::uint64_t k = whole_of(k_arg, "k", 1, std::uint64_t{1} << 20);
            const std::uint64_t span = span_arg.is_none() ? kDefaultSpan : whole_of(span_arg, "span", 1, ~std::uint64_t{0});
            if (span > (s.end - s.first) / k)
              throw py::value_error("spawn(" + std::to_string(k) + ", span=" + std::to_string(span) + ") needs " +
                                    "k * span trials, and this Stream has " + std::to_string(s.end - s.first) + " left");
            std::vector<Stream> children;
            for (std::uint64_t i = 0; i < k; ++i)
              children.push_back(Stream{s.seed, s.first + i * span, s.first + (i + 1) * span});
            s.first += k * span;
            return children;
          },
          py::arg("k"), py::arg("span") = py::none(),
          "k Streams over disjoint ranges of this one's trials: child i takes trials first + i*span .. first + "
          "(i+1)*span - 1 (span 2**48 unless given) and refuses to go past them; this Stream moves past all k "
          "ranges. Children of one spawn, run anywhere, give exactly the records one process gives for the same "
          "ranges.")
      .def(
          "jumped",
          [](const Stream& s, const py::object& t_arg) {
            const StreamCall call(s);
            const std::uint64_t t = u64_of(t_arg, "trials");
            if (t > s.end - s.first)
              throw py::value_error("jumped(" + std::to_string(t) + ") is past this Stream's end, " + std::to_string(s.end));
            return Stream{s.seed, s.first + t, s.end};
          },
          py::arg("trials"), "A copy of this Stream moved on by `trials` trials; this one is unchanged.")
      .def(py::pickle([](const Stream& s) { return py::make_tuple(s.seed, s.first, s.end); },
                      [](const py::tuple& t) {
                        if (t.size() != 3) throw py::value_error("a Stream's state is (seed, first, end)");
                        // Each checked as the constructor checks it: a state
                        // edited by hand gets a TypeError or ValueError that
                        // names the field, never a cast error.
                        Stream s{u64_of(t[0], "seed"), u64_of(t[1], "first"), u64_of(t[2], "end")};
                        if (s.first > s.end)
                          throw py::value_error("a Stream's state has first " + std::to_string(s.first) +
                                                " past its end " + std::to_string(s.end));
                        return s;
                      }))
      .def("__repr__", [](const Stream& s) {
        return "melange.Stream(seed=" + std::to_string(s.seed) + ", first=" + std::to_string(s.first) +
               (s.end == std::numeric_limits<std::uint64_t>::max() ? std::string() : ", end=" + std::to_string(s.end)) +
               ")";
      });
}

void add_permuted(py::module_& m) {
  m.def(
      "permuted",
      [](const py::object& x, const py::object& axis, const py::object& seed, const py::object& first,
         const std::string& method, const py::object& threads, const std::string& backend, const py::object& out) {
        return guarded("count", [&] {
          return permuted(x, axis, seed, u64_of(first, "first"), method, threads, backend, out);
        });
      },
      py::arg("x"), py::kw_only(), py::arg("axis") = -1, py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"),
      py::arg("first") = 0, py::arg("method") = "batched", py::arg("threads") = py::none(),
      py::arg("backend") = "auto", py::arg("out") = py::none(),
      python_docs::kPermuted);
}

// The audits and the exact law, and the result an audit returns.
void add_audits(py::module_& m) {
  py::class_<AuditResult>(m, "AuditResult", "An audit: its tallies, tests, verdict and JSON document.")
      .def_property_readonly("histogram", &AuditResult::histogram, "counts by Lehmer (or deal) rank, or None")
      .def_property_readonly("positions", &AuditResult::positions, "item x position (slot) counts, or None")
      .def_property_readonly("hands", &AuditResult::hands, "counts by hand (colex rank), or None")
      .def("counts", &AuditResult::counts, py::arg("kind"),
           "a tally kind's counts by its name (ranks, positions, hands, categories), or None where not tallied")
      .def_property_readonly("tests", &AuditResult::tests, "the tests run, as dicts")
      .def_property_readonly("verdict", &AuditResult::verdict, "PASS, WEAK or FAIL")
      .def_property_readonly("trials", [](const AuditResult& r) { return r.run.tally.trials; })
      .def("to_json", [](const AuditResult& r) { return r.json; }, "the document `melange audit --json` writes")
      .def("__repr__", [](const AuditResult& r) {
        return "<melange.AuditResult " + r.verdict() + ", " + std::to_string(r.run.tally.trials) + " trials>";
      });

  m.def(
      "audit",
      [](const std::string& algo, const py::object& n, const py::object& trials_arg, const py::object& k,
         const std::vector<double>& weights, const py::object& seed, const py::object& first,
         const std::string& method, const py::object& bits, const py::object& threads, const std::string& backend,
         bool position, bool hands, const std::optional<std::string>& model, bool serial, const py::object& riffles,
         const py::object& shelves, const py::object& passes) {
        return guarded("trials", [&] {
          return audit_builtin(algo, int_of(n, "n"), trials_arg, optional_int_of(k, "k"), weights, seed,
                               u64_of(first, "first"), method, int_of(bits, "bits"), optional_int_of(threads, "threads"),
                               backend, position, hands, model, serial, card_args_of(riffles, shelves, passes));
        });
      },
      py::kw_only(), py::arg("algo") = "fisher-yates", py::arg("n") = 4, py::arg("trials") = 1'000'000,
      py::arg("k") = py::none(), py::arg("weights") = std::vector<double>{}, py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"),
      py::arg("first") = 0, py::arg("method") = "batched", py::arg("bits") = 32, py::arg("threads") = py::none(),
      py::arg("backend") = "auto", py::arg("position") = false, py::arg("hands") = false,
      py::arg("model") = py::none(), py::arg("serial") = false, py::arg("riffles") = py::none(),
      py::arg("shelves") = py::none(), py::arg("passes") = py::none(), python_docs::kAudit);

  m.def(
      "audit_records",
      [](const py::object& records, const py::object& n, const py::object& k, bool position, bool hands,
         const std::optional<std::string>& model, const std::string& algo, const std::string& method,
         const py::object& bits, const std::variant<bool, std::string>& skip_invalid, bool stream_tests,
         const std::vector<int>& lags, const py::object& riffles, const py::object& shelves,
         const py::object& passes) {
        return guarded("trials", [&] {
          return audit_records(records, optional_int_of(n, "n"), optional_int_of(k, "k"), position, hands, model, algo,
                               method, int_of(bits, "bits"), skip_invalid, stream_tests, lags,
                               card_args_of(riffles, shelves, passes));
        });
      },
      py::arg("records"), py::kw_only(), py::arg("n") = py::none(), py::arg("k") = py::none(), py::arg("position") = false,
      py::arg("hands") = false, py::arg("model") = py::none(), py::arg("algo") = "fisher-yates",
      py::arg("method") = "batched", py::arg("bits") = 32, py::arg("skip_invalid") = false,
      py::arg("stream_tests") = true, py::arg("lags") = std::vector<int>{1}, py::arg("riffles") = py::none(),
      py::arg("shelves") = py::none(), py::arg("passes") = py::none(), python_docs::kAuditRecords);

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

PYBIND11_MODULE(melange, m) {
  m.doc() = python_docs::kModule;
  m.attr("__version__") = std::string(kVersion);
  m.attr("DEFAULT_SEED") = kDefaultSeed;
  add_sampling(m);
  add_integers(m);
  add_stream(m);
  add_permuted(m);
  add_audits(m);
}
