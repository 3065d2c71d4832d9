// The sampling functions: permutations, deals, weighted orders, integers
// and permuted, into NumPy arrays or out=.
#include "module_support.hpp"

namespace melange::python_module {

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
                   const py::object& out, std::uint64_t* rows_taken) {
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

}  // namespace melange::python_module
