// The Python face of melange (contract §5): `import melange`.
//
// Sampling functions return NumPy arrays (uint8 items when n <= 256, else
// uint16; uint32 for integers) or fill `out=`, an existing C-contiguous
// array of exactly that dtype and shape. Keyword names are the CLI's flags.
// The GIL is released while records are made and trials run. Library errors
// become ValueError (a wrong request, with the parameter spelled as the
// keyword) or RuntimeError (anything else).
//
// The pieces: sampling.cpp, streams.cpp, bit_generator.cpp, audits.cpp, predict.cpp, shuffle_keywords.cpp
// (a shuffle as keywords, read by the job-field table), call_manners.cpp (a
// call that does not fit, told in one line); what they share is
// module_support.hpp.
#include "module_support.hpp"

PYBIND11_MODULE(melange, m) {
  using namespace melange::python_module;
  m.doc() = melange::python_docs::kModule;
  m.attr("__version__") = std::string(melange::kVersion);
  m.attr("DEFAULT_SEED") = melange::kDefaultSeed;
  add_sampling(m);
  add_integers(m);
  add_stream(m);
  add_bit_generator(m);
  add_permuted(m);
  add_audits(m);
  add_shuffle_keywords(m);
  add_predict(m);
  mind_calls(m);
}
