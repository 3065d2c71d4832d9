// What records from outside say of their own shape, where the caller did
// not: n and k from a row's length (an array's shape, the first text
// record), 1-based text, letters, a header line. A given n or k that the
// records contradict is refused, saying what they hold. Both front ends
// infer through here: the CLI for files, Python for arrays. Messages name
// parameters as {n}, {k}, {labels}, {format}, {base} tokens, which each
// front end spells its own way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace melange {

// The records' shape as the caller gives it, and then as the records do.
struct RecordShape {
  int n = 0, k = 0;  // as given (k 0: whole permutations); then as inferred
  bool n_given = false;
  bool format_given = false;  // the caller named the format (else a file's name chose it)
  int base = 0;
  bool base_given = false;
  bool header = false;              // inferred: the text's first line names columns
  std::vector<std::string> labels{};  // given, or A.. when the records are letters
  // What the records said of themselves, in words ("; " between), its
  // parameters as {tokens} (spell_tokens), as an error's are.
  std::string inferred{};
};

// Rows of `items` items each: n from them where not given; rows shorter
// than a given n are deals of k = items; a given k, or a given n they
// exceed, is refused. `from` says where the count came from ("the array's
// shape"), `rows` what holds them ("the array's records"), `detail` what a
// refusal adds after their count (" (the first reads ...)").
void infer_row_shape(RecordShape& shape, int items, std::string_view from, std::string_view rows,
                     std::string_view detail = {});

// After infer_row_shape: whole permutations whose first record holds 1 ..
// items and no 0 (`one_based`) count items from 1, where no base was given.
void infer_row_base(RecordShape& shape, bool one_based, int items);

// Text records from their first lines, `head` (whole lines: the caller
// reads ahead until it holds two, or the input's end).
void infer_text_shape(RecordShape& shape, std::string_view head);

// Records of a binary format with no line ends to count items by: n must
// be given ("{n}, items a record").
void require_given_shape(const RecordShape& shape, std::string_view format);

}  // namespace melange
