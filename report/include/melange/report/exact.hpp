// The exact document: a law as `melange exact --json` writes it, and the
// model an audit reads back from such a file. No JSON library in sight:
// json.hpp has the document as a value.
#pragma once

#include <iosfwd>
#include <string>

#include "melange/exact.hpp"

namespace melange::report {

// The document of `d`, with the power figures for `trials` trials.
std::string exact_json_text(const ExactDistribution& d, double trials);
// A law read back from such a document; checked to be a distribution of the
// shape it names. Throws UsageError, worded for the document, on any fault.
ExactDistribution read_exact_model(std::istream& in);

}  // namespace melange::report
