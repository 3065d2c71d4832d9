// The exact document: a law as `melange exact --json` writes it, and the
// model an audit reads back from such a file. No JSON library in sight:
// json.hpp has the document as a value.
#pragma once

#include <iosfwd>
#include <string>

#include "melange/deal.hpp"
#include "melange/exact.hpp"
#include "melange/laws.hpp"

namespace melange::report {

// How a law differs from uniform, as the documents give it: the rank
// test's power against it after `trials` trials, and the trials an audit
// needs (the larger of what power asks and the test's minimum of 5 expected
// per outcome). Infinite where the law is uniform.
struct ExactPower {
  double df = 0;
  double noncentrality_per_trial = 0;
  double expected_chi2 = 0;
  double trials_to_detect = 0;
  double trials_needed = 0;
  std::string needed_by;  // "power", the test's minimum, or "never (exactly uniform)"
};
ExactPower exact_power(const ExactDistribution& d, double trials);

// The document of `d`, with the power figures for `trials` trials.
std::string exact_json_text(const ExactDistribution& d, double trials);
// The text of `d`: the law, its outcomes while they are few, the power
// figures. `weights`: the weighted orders' weights as given.
std::string exact_text(const ExactDistribution& d, double trials, const std::string& weights = "");
// The five-card deal's poker categories (their own exact walk, deal.hpp)
// beside the fair law: the JSON document to `json` and the text to `text`,
// either null.
void write_poker_exact(std::ostream* json, std::ostream* text, const PokerLaw& law, const PokerLaw& fair,
                       BoundedSpec spec);
// riffle's law of rising sequences (laws.hpp) beside the uniform law's,
// with its distances to uniform: the JSON document to `json` and the text
// to `text`, either null.
void write_riffle_exact(std::ostream* json, std::ostream* text, const RiffleLaw& law, BoundedSpec spec);
// shelf's law of valleys (laws.hpp) likewise.
void write_shelf_exact(std::ostream* json, std::ostream* text, const ShelfLaw& law, BoundedSpec spec);
// A law read back from such a document, the file at `path`; checked to be
// a distribution of the shape it names. A file whose parse could outgrow
// `memory_cap` bytes is refused before it is read. Throws UsageError,
// worded for the document ({model} names where it came from), on any fault.
ExactDistribution read_exact_model(const std::string& path, std::uint64_t memory_cap);

}  // namespace melange::report
