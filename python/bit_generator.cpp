// melange.BitGenerator: a melange stream as NumPy's bit generator, so that
// numpy.random.Generator(melange.BitGenerator(seed, stream)) draws NumPy's
// distributions from stream `stream` of `seed` (contract §1).
//
// NumPy reads a bit generator through its capsule, a bitgen_t of four
// functions (numpy/random/bitgen.h), and serializes its calls with the
// object's `lock`. Here: next_uint32 is the stream's next word; next_uint64
// two words, the first the high half (as contract §2's 64-bit words);
// next_double the top 53 bits of next_uint64 over 2^53; random_raw the
// 32-bit words themselves, so that they equal `melange words`.
#include <numpy/random/bitgen.h>

#include "module_support.hpp"

namespace melange::python_module {
namespace {

class BitGenerator {
 public:
  BitGenerator(std::uint64_t seed, std::uint64_t stream)
      : seed_(seed), stream_(stream), words_(seed, stream, fastest_block_fill()),
        lock_(py::module_::import("threading").attr("Lock")()) {
    bitgen_.state = this;
    bitgen_.next_uint32 = [](void* s) { return static_cast<BitGenerator*>(s)->words_.next(); };
    bitgen_.next_uint64 = [](void* s) { return static_cast<BitGenerator*>(s)->words_.next64(); };
    bitgen_.next_double = [](void* s) {
      return static_cast<double>(static_cast<BitGenerator*>(s)->words_.next64() >> 11) * 0x1.0p-53;
    };
    bitgen_.next_raw = [](void* s) { return std::uint64_t{static_cast<BitGenerator*>(s)->words_.next()}; };
    capsule_ = py::capsule(&bitgen_, "BitGenerator");
  }
  BitGenerator(const BitGenerator&) = delete;
  BitGenerator& operator=(const BitGenerator&) = delete;

  std::uint64_t seed() const { return seed_; }
  std::uint64_t stream() const { return stream_; }
  std::uint64_t words_consumed() const { return words_.words_consumed(); }
  const py::capsule& capsule() const { return capsule_; }
  const py::object& lock() const { return lock_; }

  py::dict state() const {
    py::dict d;
    d["bit_generator"] = "melange.BitGenerator";
    d["seed"] = seed_;
    d["stream"] = stream_;
    d["words_consumed"] = words_consumed();
    return d;
  }
  void set_state(const py::dict& d) {
    if (!d.contains("bit_generator") || py::str(d["bit_generator"]).cast<std::string>() != "melange.BitGenerator")
      throw py::value_error("state must be a melange.BitGenerator's state: bit_generator 'melange.BitGenerator', "
                            "seed, stream and words_consumed");
    for (const char* key : {"seed", "stream", "words_consumed"})
      if (!d.contains(key)) throw py::value_error(std::string("state has no '") + key + "'");
    const Held held(lock_);
    seed_ = u64_of(d["seed"], "seed");
    stream_ = u64_of(d["stream"], "stream");
    words_ = BufferedStream(seed_, stream_, fastest_block_fill());
    words_.skip_to(u64_of(d["words_consumed"], "words_consumed"));
  }

  // The next words, as NumPy's random_raw gives them (uint64 holding 32 bits).
  py::object random_raw(const py::object& size, bool output) {
    const bool one = size.is_none();
    const std::uint64_t count = one ? 1 : count_of(size, "size").value_or(0);
    const Held held(lock_);
    if (one) {
      const std::uint64_t w = words_.next();
      return output ? py::object(py::int_(w)) : py::none();
    }
    if (!output) {
      for (std::uint64_t i = 0; i < count; ++i) words_.next();
      return py::none();
    }
    py::array_t<std::uint64_t> a(static_cast<py::ssize_t>(count));
    std::uint64_t* out = a.mutable_data();
    for (std::uint64_t i = 0; i < count; ++i) out[i] = words_.next();
    return a;
  }

 private:
  // Holds NumPy's lock for the bit generator: NumPy's Generator holds it
  // (with the GIL released) for every draw through the capsule.
  class Held {
   public:
    explicit Held(const py::object& lock) : lock_(lock) { lock_.attr("acquire")(); }
    ~Held() { lock_.attr("release")(); }
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;

   private:
    const py::object& lock_;
  };

  std::uint64_t seed_, stream_;
  BufferedStream words_;
  py::object lock_;
  bitgen_t bitgen_{};
  py::capsule capsule_;
};

}  // namespace

void add_bit_generator(py::module_& m) {
  py::class_<BitGenerator>(m, "BitGenerator", python_docs::kBitGenerator)
      .def(py::init([](const py::object& seed, const py::object& stream) {
             return std::make_unique<BitGenerator>(seed_of(seed), u64_of(stream, "stream"));
           }),
           py::arg_v("seed", py::int_(kDefaultSeed), "DEFAULT_SEED"), py::arg("stream") = 0)
      .def_property_readonly("seed", &BitGenerator::seed, "the stream's seed")
      .def_property_readonly("stream", &BitGenerator::stream, "the stream (a trial index, contract §1)")
      .def_property_readonly("words_consumed", &BitGenerator::words_consumed, "32-bit words drawn so far")
      .def_property_readonly("capsule", &BitGenerator::capsule, "NumPy's bitgen_t, as a capsule named BitGenerator")
      .def_property_readonly("lock", &BitGenerator::lock, "the lock NumPy holds while it draws")
      .def_property("state", &BitGenerator::state, &BitGenerator::set_state,
                    "seed, stream and words_consumed, as a dict; assign one to go back to it")
      .def("random_raw", &BitGenerator::random_raw, py::arg("size") = py::none(), py::arg("output") = true,
           "The next size 32-bit words of the stream (uint64 array; one int when size is None), as "
           "`melange words` prints them.")
      .def(py::pickle([](const BitGenerator& b) { return py::make_tuple(b.seed(), b.stream(), b.words_consumed()); },
                      [](const py::tuple& t) {
                        if (t.size() != 3) throw py::value_error("a BitGenerator's state is (seed, stream, words)");
                        auto b = std::make_unique<BitGenerator>(u64_of(t[0], "seed"), u64_of(t[1], "stream"));
                        py::dict d = b->state();
                        d["words_consumed"] = t[2];
                        b->set_state(d);
                        return b;
                      }))
      .def("__repr__", [](const BitGenerator& b) {
        return "melange.BitGenerator(seed=" + std::to_string(b.seed()) + ", stream=" + std::to_string(b.stream()) + ")";
      });
}

}  // namespace melange::python_module
