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

namespace {

// The integer dtypes, each with what it holds and how the values are
// stored into it: one row each.
struct IntegerDtype {
  char kind;  // 'i' or 'u'
  int bytes;
  void (*fill)(BoundedIntegers&, void*, std::uint64_t, std::uint64_t);
  __int128 min, max;
};
template <class T>
constexpr IntegerDtype integer_dtype() {
  return {std::is_signed_v<T> ? 'i' : 'u', sizeof(T),
          [](BoundedIntegers& v, void* out, std::uint64_t count, std::uint64_t offset) {
            v.fill_shifted(static_cast<T*>(out), count, offset);
          },
          std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
}
constexpr IntegerDtype kIntegerDtypes[] = {
    integer_dtype<std::int8_t>(),  integer_dtype<std::int16_t>(),  integer_dtype<std::int32_t>(),
    integer_dtype<std::int64_t>(), integer_dtype<std::uint8_t>(),  integer_dtype<std::uint16_t>(),
    integer_dtype<std::uint32_t>(), integer_dtype<std::uint64_t>(),
};

const IntegerDtype& integer_dtype_of(const py::dtype& dtype) {
  for (const IntegerDtype& d : kIntegerDtypes)
    if (dtype.kind() == d.kind && dtype.itemsize() == d.bytes && dtype.byteorder() != '>')
      return d;
  throw py::type_error("dtype must be an integer dtype, int8 .. uint64 in native byte order; got " +
                       std::string(py::str(py::handle(dtype))));
}

std::string text_of(__int128 v) {
  return v < 0 ? "-" + std::to_string(static_cast<std::uint64_t>(-v)) : std::to_string(static_cast<std::uint64_t>(v));
}

// size as a shape: an int is one dimension, a sequence of ints many.
std::vector<py::ssize_t> shape_of_size(const py::object& size) {
  const py::object dims = PyIndex_Check(size.ptr()) ? py::object(py::make_tuple(size)) : size;
  std::vector<py::ssize_t> shape;
  for (const py::handle d : dims.cast<py::tuple>())
    shape.push_back(static_cast<py::ssize_t>(
        whole_of(py::reinterpret_borrow<py::object>(d), "size", 0, ~std::uint64_t{0} >> 1)));
  return shape;
}

// The values low .. low + last, checked against dtype's limits.
struct IntegerSpan {
  __int128 low, last;
};
IntegerSpan integer_span(const py::object& low_arg, const py::object& high_arg, bool endpoint,
                         const py::dtype& dtype, const IntegerDtype& type) {
  py::int_ low = integer_of(low_arg, "low"), high;
  if (high_arg.is_none()) {
    high = low;
    low = py::int_(0);
  } else {
    high = integer_of(high_arg, "high");
  }
  const std::optional<__int128> lo = wide_int(low), hi = wide_int(high);
  const auto asked = [&] {
    return "low " + std::string(py::str(low)) + ", high " + std::string(py::str(high)) +
           (endpoint ? " with endpoint" : "");
  };
  if (!lo || !hi || *lo < type.min || *hi - (endpoint ? 0 : 1) > type.max)
    throw py::value_error(asked() + " does not fit dtype " + std::string(py::str(py::handle(dtype))) + " (" +
                          text_of(type.min) + " .. " + text_of(type.max) + ")");
  const __int128 last = *hi - *lo - (endpoint ? 0 : 1);
  if (last < 0) throw py::value_error(asked() + ": high must be above low" + (endpoint ? " or equal to it" : ""));
  return {*lo, last};
}

}  // namespace

// Integers in [low, high) (or [low, high] with endpoint) of one stream, as
// numpy.random.Generator.integers is called: high None means [0, low);
// size an int, a shape or None (one value). The values are the bounded
// draws of `melange bounded --range (high - low)` (contract §2: ranges to
// 2^64), plus low, stored straight into dtype.
py::object numpy_integers(const py::object& low_arg, const py::object& high_arg, const py::object& size,
                          bool endpoint, const py::object& dtype_arg, std::uint64_t seed, std::uint64_t stream,
                          const std::string& method, const py::object& bits, const py::object& out) {
  const py::dtype dtype = py::dtype::from_args(dtype_arg);
  const IntegerDtype& type = integer_dtype_of(dtype);
  const IntegerSpan span = integer_span(low_arg, high_arg, endpoint, dtype, type);
  BoundedIntegers values(seed, stream, ValuesUpTo{static_cast<std::uint64_t>(span.last)},
                         spec_of(method, int_of(bits, "bits")), fastest_block_fill());
  if (size.is_none() && out.is_none()) {  // NumPy's scalar of dtype, as NumPy returns one
    const __int128 v = span.low + static_cast<__int128>(values.next());
    return dtype.attr("type")(v < 0 ? py::int_(static_cast<std::int64_t>(v)) : py::int_(static_cast<std::uint64_t>(v)));
  }
  // The shape: size's, else out's.
  if (size.is_none() && !py::isinstance<py::array>(out))
    throw UsageError("out must be a NumPy array of dtype " + std::string(py::str(py::handle(dtype))) + "; got " +
                     std::string(py::str(py::type::of(out).attr("__name__"))));
  py::array a = out_array(out, dtype,
                          size.is_none() ? out.attr("shape").cast<std::vector<py::ssize_t>>() : shape_of_size(size));
  const auto count = static_cast<std::uint64_t>(a.size());
  const auto offset = static_cast<std::uint64_t>(span.low);  // modulo 2^64: low's two's complement
  auto* at = static_cast<char*>(a.mutable_data());
  // In pieces, the same values as one fill, so that Ctrl-C is heard.
  interruptible([&](const std::function<bool()>& stop) {
    constexpr std::uint64_t kPiece = std::uint64_t{1} << 22;
    for (std::uint64_t done = 0; done < count && !stop(); done += kPiece) {
      const std::uint64_t take = std::min(kPiece, count - done);
      type.fill(values, at + done * static_cast<std::uint64_t>(type.bytes), take, offset);
    }
    return 0;
  }, count <= kShortCallItems);
  return a;
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
