// What the pieces of the Python module share: errors as Python's, long
// calls that hear Ctrl-C, keyword values read into the library's types, and
// records served into arrays. The module's own header, never installed.
#pragma once

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
#include "melange/backend_table.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"
#include "melange/integers.hpp"
#include "melange/record_shape.hpp"
#include "melange/records.hpp"
#include "melange/serve.hpp"
#include "melange/trial.hpp"
#include "melange/version.hpp"
#include "melange/report/audit.hpp"
#include "melange/report/exact.hpp"

#include "docstrings.hpp"


namespace py = pybind11;

namespace melange::python_module {

// What interruptible() throws once Python's signal handlers raised (a
// KeyboardInterrupt): the error is already set, and guarded() hands it on.
struct PythonErrorSet {};

// The keyword a parameter is given as: {trials} is spelled `count` in the
// sampling functions and `trials` in audit (shuffle_keywords.cpp).
std::string keyword_of(Param p, const char* trials_keyword = "trials");

// A library error as Python's, each parameter spelled as its keyword.
template <class F>
auto guarded(const char* trials_keyword, F&& f) {
  try {
    return f();
  } catch (const PythonErrorSet&) {
    throw py::error_already_set();
  } catch (const Error& e) {
    const std::string text = e.render([&](Param p) { return keyword_of(p, trials_keyword); });
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
inline constexpr std::size_t kShortCallItems = std::size_t{1} << 16;

// out='s records: the length of its first dimension.
inline std::uint64_t rows_of(const py::object& out) {
  if (!py::isinstance<py::array>(out))
    throw UsageError("out must be a NumPy array; got " + std::string(py::str(py::type::of(out).attr("__name__"))));
  const auto a = py::reinterpret_borrow<py::array>(out);
  if (a.ndim() < 1) throw UsageError("out must be an array of records; got a 0-d array");
  return static_cast<std::uint64_t>(a.shape(0));
}

inline Algorithm algorithm_of(const std::string& name) {
  const auto a = parse_algorithm(name);
  if (!a) throw UsageError("unknown algo '" + name + "': use " + algorithm_names(", "));
  return *a;
}

inline BoundedSpec spec_of(const std::string& method, int bits) {
  const auto m = parse_method(method);
  if (!m) throw UsageError("unknown method '" + method + "': use " + method_names(", "));
  return BoundedSpec{*m, bits};
}

// Whether `value` is an integer as NumPy takes one: anything with __index__
// (a Python int, NumPy's integers) but a bool, Python's or NumPy's. An exact
// int answers at once: looking up NumPy's bool_ costs an import, and these
// run on every argument of every call.
inline bool is_integer(const py::handle& value) {
  if (PyLong_CheckExact(value.ptr())) return true;
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) return false;
  return !py::isinstance(value, py::module_::import("numpy").attr("bool_"));
}
inline py::int_ index_of(const py::handle& value) {
  auto whole = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!whole) throw py::error_already_set();
  return whole;
}

// A Python int as a wide signed number, where it is one: within
// -2^63 .. 2^64, the span of every integer dtype and an exclusive high past
// it. Read by the C API: comparing through Python's operators costs a call
// each.
inline std::optional<__int128> wide_int(const py::int_& v) {
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow == 0) return x;
  if (overflow < 0) return std::nullopt;
  const unsigned long long u = PyLong_AsUnsignedLongLong(v.ptr());
  if (!PyErr_Occurred()) return u;
  PyErr_Clear();
  const __int128 past = static_cast<__int128>(std::numeric_limits<std::uint64_t>::max()) + 1;
  if (v.equal(py::int_(std::numeric_limits<std::uint64_t>::max()).attr("__add__")(1))) return past;
  return std::nullopt;
}

// A count as Python writes it: an int, or a whole float such as 1e7; None
// stays unset.
inline std::optional<std::uint64_t> count_of(const py::object& value, const char* keyword) {
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
  if (!is_integer(value)) throw wrong();
  const auto v = wide_int(index_of(value));
  if (!v || *v < 0 || *v > std::numeric_limits<std::uint64_t>::max()) throw wrong();
  return static_cast<std::uint64_t>(*v);
}

// An integer argument as NumPy takes one: a Python int or any NumPy
// integer (anything with __index__), not a bool and not a float (TypeError,
// as NumPy raises it). `keyword` names it.
inline py::int_ integer_of(const py::object& value, const char* keyword) {
  if (!is_integer(value))
    throw py::type_error(std::string(keyword) + " must be an integer (a Python int or a NumPy integer), not " +
                         std::string(py::str(py::type::of(value).attr("__name__"))));
  return index_of(value);
}

// The same, within lo .. hi (ValueError).
inline std::uint64_t whole_of(const py::object& value, const char* keyword, std::uint64_t lo, std::uint64_t hi) {
  const py::int_ whole = integer_of(value, keyword);
  const std::optional<__int128> v = wide_int(whole);
  if (!v || *v < lo || *v > hi)
    throw py::value_error(std::string(keyword) + " must be in " + std::to_string(lo) + " .. " +
                          (hi == std::numeric_limits<std::uint64_t>::max() ? std::string("2**64 - 1") : std::to_string(hi)) +
                          "; got " + std::string(py::repr(whole)));
  return static_cast<std::uint64_t>(*v);
}
inline int int_of(const py::object& value, const char* keyword) {
  return static_cast<int>(whole_of(value, keyword, 0, std::numeric_limits<int>::max()));
}
inline std::optional<int> optional_int_of(const py::object& value, const char* keyword) {
  if (value.is_none()) return std::nullopt;
  return int_of(value, keyword);
}
inline std::uint64_t u64_of(const py::object& value, const char* keyword) {
  return whole_of(value, keyword, 0, std::numeric_limits<std::uint64_t>::max());
}
// seed=None is melange.DEFAULT_SEED, the fixed seed every command uses.
inline std::uint64_t seed_of(const py::object& seed) { return seed.is_none() ? kDefaultSeed : u64_of(seed, "seed"); }

inline RunOptions options_of(const std::optional<int>& threads, const std::string& backend) {
  RunOptions o;
  o.threads = threads ? *threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.backend = backend;
  return o;
}

// `out` when given (checked: the dtype, C order, writable, the shape), else
// a new array of `shape`.
inline py::array out_array(const py::object& out, const py::dtype& dtype, const std::vector<py::ssize_t>& shape) {
  if (out.is_none()) return py::array(dtype, shape);
  // "an int64 array", "a uint8 array"
  const auto article = [](const std::string& name) -> std::string { return name.starts_with('i') ? "an " : "a "; };
  const std::string want = std::string(py::str(py::handle(dtype))) + " array of shape (" +
                           [&] {
                             std::string s;
                             for (std::size_t i = 0; i < shape.size(); ++i)
                               s += (i ? ", " : "") + std::to_string(shape[i]);
                             return s + (shape.size() == 1 ? ",)" : ")");
                           }() +
                           ", C-contiguous and writable";
  if (!py::isinstance<py::array>(out))
    throw UsageError("out must be a NumPy " + want + "; got " + std::string(py::str(py::type::of(out).attr("__name__"))));
  auto a = py::reinterpret_borrow<py::array>(out);
  bool ok = py::detail::npy_api::get().PyArray_EquivTypes_(a.dtype().ptr(), dtype.ptr()) && (a.flags() & py::array::c_style) && a.writeable() &&
            a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (std::size_t i = 0; ok && i < shape.size(); ++i) ok = a.shape(static_cast<py::ssize_t>(i)) == shape[i];
  if (!ok) {
    const std::string got = std::string(py::str(a.dtype())) + " array of shape " + std::string(py::str(out.attr("shape")));
    throw UsageError("out must be " + article(want) + want + "; got " + article(got) + got);
  }
  return a;
}
template <class T>
py::array_t<T> out_array(const py::object& out, const std::vector<py::ssize_t>& shape) {
  return py::reinterpret_borrow<py::array_t<T>>(out_array(out, py::dtype::of<T>(), shape));
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

inline py::array serve(Job job, const py::object& count_arg, const py::object& out, const RunOptions& options) {
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
inline CardArgs card_args_of(const py::object& riffles, const py::object& shelves, const py::object& passes) {
  return {optional_int_of(riffles, "riffles"), optional_int_of(shelves, "shelves"), optional_int_of(passes, "passes")};
}

inline Job job_of(const std::string& algo, int n, int k, const std::vector<double>& weights, const py::object& seed,
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

// The shuffle's keywords (**shuffle: algo, n, k, weights, method, bits,
// riffles, shelves, passes, as the job-field table has them) over `job`,
// the function's defaults; None is a keyword not given. passes= left out is
// what the algorithm's row gives; weights= without n= sets n. A keyword no
// row takes is the TypeError Python gives (shuffle_keywords.cpp).
Job shuffle_of(const py::kwargs& given, const char* function, Job job);
// melange.SHUFFLE_KEYWORDS, the keywords shuffle_of reads, in table order.
void add_shuffle_keywords(py::module_& m);
// predict.cpp: melange.predict and melange.PREDICT_FAMILIES.
void add_predict(py::module_& m);

// A document's value as Python has it: JSON's null (a statistic that is not
// finite among them) is None.
inline py::object field_object(const report::FieldValue& v) {
  return std::visit(
      [](const auto& x) -> py::object {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) return py::none();
        else if constexpr (std::is_same_v<T, double>) return std::isfinite(x) ? py::object(py::float_(x)) : py::none();
        else return py::cast(x);
      },
      v);
}


// sampling.cpp: the sampling functions, and the draws a Stream shares with them.
py::object numpy_integers(const py::object& low_arg, const py::object& high_arg, const py::object& size,
                          bool endpoint, const py::object& dtype_arg, std::uint64_t seed, std::uint64_t stream,
                          const std::string& method, const py::object& bits, const py::object& out);
py::array permuted(const py::object& x, const py::object& axis_arg, const py::object& seed, std::uint64_t first,
                   const std::string& method, const py::object& threads, const std::string& backend,
                   const py::object& out, std::uint64_t* rows_taken = nullptr);
void add_sampling(py::module_& m);
void add_integers(py::module_& m);
void add_permuted(py::module_& m);
// streams.cpp: melange.Stream.
void add_stream(py::module_& m);
// bit_generator.cpp: melange.BitGenerator, a stream for numpy.random.Generator.
void add_bit_generator(py::module_& m);
// audits.cpp: the audits, the exact laws and AuditResult.
void add_audits(py::module_& m);
// call_manners.cpp: every public function and method of `m` answers a call
// that does not fit it in one line (added last: it wraps what is there).
void mind_calls(py::module_& m);

}  // namespace melange::python_module
