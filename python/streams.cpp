// melange.Stream: a job's trials in order, served a call at a time.
#include "module_support.hpp"

namespace melange::python_module {

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

}  // namespace melange::python_module
