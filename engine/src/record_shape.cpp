#include "melange/record_shape.hpp"

#include <string>

#include "melange/error.hpp"
#include "melange/records.hpp"

namespace melange {
namespace {

void say(RecordShape& s, const std::string& what) { (s.inferred += s.inferred.empty() ? "" : "; ") += what; }

void take_one_based(RecordShape& s, int items) {
  s.base = 1;
  say(s, "1-based (the first record holds 1.." + std::to_string(items) + ", no 0; {base} 0 says otherwise)");
}

// Labelled text records: n is the labels', k the first record's length.
void infer_from_labels(RecordShape& s, const TextSniff& sniff) {
  const bool deal = s.k != 0;
  const int n = static_cast<int>(s.labels.size());
  if (s.n_given && s.n != n)
    throw UsageError(Param::n, "{labels} names " + std::to_string(n) + " items; {n} is " + std::to_string(s.n) +
                                   ": drop {n} (the labels give it) or fix it");
  if (sniff.tokens > n)
    throw UsageError(Param::labels, "records have " + std::to_string(sniff.tokens) + " items (the first reads \"" +
                                        token_safe(sniff.first) + "\"); {labels} names " + std::to_string(n) +
                                        ": name every item once");
  s.n = n;
  say(s, "n " + std::to_string(n) + " from {labels}");
  if (!deal && sniff.tokens > 0 && sniff.tokens < n) {
    s.k = sniff.tokens;
    say(s, "deals of k " + std::to_string(sniff.tokens) + " from the first record");
  }
}

// Numbers beyond the record's own length: not a permutation of 0..n-1
// (nor 1..n), most likely a deal from a larger set.
void refuse_numbers_past_a_permutation(const RecordShape& s, const TextSniff& sniff) {
  const std::uint64_t top = sniff.items - (s.base_given && s.base == 1 ? 0 : 1) + (sniff.one_based ? 1 : 0);
  if (!sniff.letters && sniff.largest > top)
    throw UsageError(Param::n, "the first record has " + std::to_string(sniff.items) + " items, the largest " +
                                   std::to_string(sniff.largest) + " (it reads \"" + token_safe(sniff.first) +
                                   "\"): for deals of " + std::to_string(sniff.items) +
                                   " from a larger set give {n}, its size (52 for a deck); a permutation holds each "
                                   "of 0.." + std::to_string(sniff.items - 1) + " once");
}

}  // namespace

void infer_row_shape(RecordShape& s, int items, std::string_view from, std::string_view rows,
                     std::string_view detail) {
  const std::string have = std::string(rows) + " have " + std::to_string(items) + " items" + std::string(detail);
  if (s.k != 0) {
    if (items != s.k) throw UsageError(Param::k, have + "; {k} is " + std::to_string(s.k) + ": fix {k}");
    if (!s.n_given) s.n = items;
    return;
  }
  if (!s.n_given) {
    s.n = items;
    say(s, "n " + std::to_string(items) + " from " + std::string(from));
  } else if (items < s.n) {
    // Fewer items than n, each one of 0..n-1: deals of k from n.
    s.k = items;
    say(s, "deals of k " + std::to_string(items) + " from " + std::string(from) + " (" + std::to_string(items) +
               " of the " + std::to_string(s.n) + " items; {k} says otherwise)");
  } else if (items > s.n) {
    throw UsageError(Param::n, have + "; {n} is " + std::to_string(s.n) +
                                   ": drop {n} (melange reads it from the records) or fix it");
  }
}

void infer_text_shape(RecordShape& s, std::string_view head) {
  const TextSniff sniff = sniff_text(head);
  if (!s.labels.empty()) return infer_from_labels(s, sniff);
  if (sniff.binary && !s.format_given)
    throw UsageError(Param::format, "the input is not text (its first bytes hold NUL and control characters): for "
                                    "binary records give {format} u8 or u16 and {n}, or name the file .u8, .u16 or .npy");
  const bool deal = s.k != 0;
  if (sniff.items == 0) {
    if (s.n_given || deal) return;  // the reader names what is wrong with the first line
    throw UsageError(Param::n, "no record among the first lines (the first reads \"" + token_safe(sniff.first) +
                                   "\"): give records of items 0..n-1 a line, give {n} and {format}, or name the "
                                   "items with {labels} ({labels} cards for 2c .. As)");
  }
  if (!s.n_given && !deal) refuse_numbers_past_a_permutation(s, sniff);
  // Letters name every item: fewer of them than n are not a deal.
  if (sniff.letters && s.n_given && !deal && sniff.items != s.n)
    throw UsageError(Param::n, "records have " + std::to_string(sniff.items) + " items (the first reads \"" +
                                   token_safe(sniff.first) + "\"); {n} is " + std::to_string(s.n) +
                                   ": drop {n} (melange reads it from the records) or fix it");
  infer_row_shape(s, sniff.items, "the first record", "records",
                  " (the first reads \"" + token_safe(sniff.header ? "..." : sniff.first) + "\")");
  if (!s.base_given && !deal && sniff.one_based) take_one_based(s, sniff.items);
  if (sniff.letters)
    for (int i = 0; i < s.n; ++i) s.labels.emplace_back(1, static_cast<char>('A' + i));
  if (sniff.header) {
    s.header = true;
    say(s, "the first line passed over as a header (\"" + token_safe(sniff.first) + "\")");
  }
}

void infer_row_base(RecordShape& s, bool one_based, int items) {
  if (!s.base_given && s.k == 0 && one_based) take_one_based(s, items);
}

void require_given_shape(const RecordShape& s, std::string_view format) {
  if (!s.n_given && s.k == 0)
    throw UsageError(Param::n, std::string(format) + " records have no line ends to count items by: give {n} (items "
                                                     "a record)");
}

}  // namespace melange
