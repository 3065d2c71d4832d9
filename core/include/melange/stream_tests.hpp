// Tests of records as a stream (contract §4): the records in the
// order the shuffler made them, where every other test judges each record
// alone. A shuffler with few seeds repeats itself; one reseeded from a
// clock or a counter, or one that reshuffles the previous deck, makes
// records that depend on the records before them.
//
// StreamTally sees the records one after another and keeps, in bounded
// memory:
// - for each lag L, the records relabeled by the record L before them
//   (record t's item x becomes the position of x in record t - L: for whole
//   permutations tau_t = sigma_{t-L}^-1 sigma_t, read as items by position).
//   For independent uniform records the relabeled records are again
//   independent and uniform, so the ordinary tallies of one record test
//   them with their ordinary laws: the position matrix (the lag's
//   transition matrix), the fixed points (its trace), the rising sequences,
//   the ranks for n <= 10; for deals the item x slot matrix and the hand
//   overlap (a deal's items are relabeled 0..k-1, the rest k..n-1 in item
//   order);
// - the repeats: how many records equal an earlier one, from exact ranks
//   where 64 bits hold them, else from 128-bit fingerprints (a Philox
//   MAC over the items: the blocks xored), within a memory budget;
// - for n <= 5 the serial pairs: the table of consecutive records' ranks,
//   and the gaps between occurrences of the identity.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "melange/job.hpp"
#include "melange/trial.hpp"

namespace melange {

// Lags a stream may ask for, and their largest value.
inline constexpr int kMaxLags = 8;
inline constexpr int kMaxLag = 1 << 16;

struct StreamTestOptions {
  std::vector<int> lags{1};          // each 1..kMaxLag, at most kMaxLags of them
  std::uint64_t repeat_bytes = 0;    // memory for the repeats' keys; 0: no repeats test
  bool hands = false;                // deals compared as hands (order ignored) for repeats
};

// Throws UsageError (Param::lags) for lags out of range or repeated.
void validate_stream_options(Shape s, const StreamTestOptions& o);

// The records a lag has relabeled and their tallies.
struct LagTally {
  int lag = 1;
  Job job;      // its shape, its kinds and (as trials) the relabeled records
  Tally tally;
};

// Repeated records. `covered` records were compared, the first ones of the
// stream: past the memory budget later records are not.
struct RepeatCount {
  std::uint64_t covered = 0;
  std::uint64_t repeats = 0;    // covered records equal to an earlier one: covered - distinct
  bool exact = false;           // keys are exact ranks, not fingerprints
  bool capped = false;          // the budget stopped the comparison
  double log_outcomes = 0;      // ln of the number of possible records (n!, n!/(n-k)!, C(n,k))
};

// ln of the number of possible records: n!, n!/(n-k)! for ordered deals,
// C(n, k) for hands.
double log_outcomes(Shape s, bool hands);

// A record's 128-bit fingerprint: Philox4x32-10 over its items, twelve a
// block (three 10-bit items a word: n <= 1024), block b keyed by (the
// shape, b), the blocks' outputs xored (an XOR-MAC). A pseudo-random
// function of the record: two distinct records share one with probability
// 2^-128, among 2^40 records about 2^-49 for any pair at all. Never (0, 0),
// which marks an empty slot in a table of them.
struct Fingerprint {
  std::uint64_t hi = 0, lo = 0;
  bool empty() const { return hi == 0 && lo == 0; }
  friend auto operator<=>(const Fingerprint&, const Fingerprint&) = default;
};
Fingerprint record_fingerprint(const std::uint16_t* items, Shape s);

// The repeats among records whose histogram over every possible record is
// known (Lehmer ranks, deal ranks, or hands): each record but the first of
// its bin is a repeat. Exact, and as mergeable as the histogram: a built-in
// job's repeats under --serial come from its rank histogram, the same on
// every backend, split and resumed run.
RepeatCount repeats_in_histogram(Shape s, bool hands, const std::vector<std::uint64_t>& counts,
                                 std::uint64_t records);

// Consecutive records' ranks, n <= kMaxSerialPairItems: pairs[a * N + b]
// counts record t - 1 of rank a followed by record t of rank b; the first
// and last ranks close the cycle when the test reads them.
struct SerialPairs {
  std::uint64_t orders = 0;  // N = n!
  std::vector<std::uint64_t> pairs;
  std::uint64_t first = 0, last = 0;
};

// Gaps between occurrences of the identity order, n <= kMaxSerialPairItems
// (Knuth's gap test): a gap g >= 1 is counted in bins[g - 1], every gap of
// at least bins.size() in the last bin. For independent uniform records
// the gaps are independent and Geometric(1/n!). One order keeps that law
// exact (the gaps of different orders are not independent of each other)
// and costs a compare a record.
struct GapCounts {
  std::uint64_t orders = 0;
  std::vector<std::uint64_t> bins;
  std::uint64_t first = 0;  // 1 + the record where the identity was first seen; 0: not yet
  std::uint64_t last = 0;   // 1 + the record where the identity was last seen; 0: not yet
};

class StreamTally {
 public:
  StreamTally(Shape shape, const StreamTestOptions& options);
  ~StreamTally();
  StreamTally(const StreamTally&) = delete;
  StreamTally& operator=(const StreamTally&) = delete;

  // The next record: k items (n for a permutation), valid.
  void add(const std::uint16_t* record);
  // Whole permutations of n <= kMaxDerivedItems are counted by rank
  // (ranked()): the next record given as its Lehmer rank. A relabeled
  // record's rank is a table lookup, and its other tallies follow from the
  // ranks when flushed (derive_from_ranks).
  bool ranked() const { return ranked_; }
  void add_ranks(const std::uint64_t* ranks, std::size_t records);
  // Brings the tallies up to date (before they are read).
  void flush();

  // A stream cut in consecutive pieces (a log's days, MPI ranks' byte
  // ranges, a checkpoint and the records after it), each counted from a
  // fresh tally of the same shape and options, is one stream again:
  // - save(): this piece's state as 64-bit words: the counts, the first
  //   and the last max-lag records (the pairs across a cut need them),
  //   the serial pairs' and gaps' ends, the repeats' keys;
  // - restore(): a fresh tally takes a saved state; throws Error when the
  //   words are not one (cut short, another shape or other options);
  // - append(later): `later` counted the records that follow these; the
  //   pairs across the cut are counted once, here, so the result equals
  //   the tally of the whole stream read in one go. The repeats' keys are
  //   joined within the memory budget; past it, later records are not
  //   compared (RepeatCount::capped), as in one pass.
  std::vector<std::uint64_t> save();
  void restore(std::span<const std::uint64_t> words);
  void append(StreamTally& later);

  std::uint64_t records() const { return records_; }
  Shape shape() const { return shape_; }
  const std::vector<LagTally>& lags() const { return lags_; }
  const RepeatCount& repeats() const;
  bool has_repeats() const { return repeats_ != nullptr; }
  const SerialPairs* serial_pairs() const { return serial_ ? &*serial_ : nullptr; }
  const GapCounts* gaps() const { return gaps_ ? &*gaps_ : nullptr; }

 private:
  class Repeats;
  void make_compose_table();
  // The ring slot of the record `lag` records back (lag <= max_lag_), and
  // the step to the next slot: no division a record.
  std::size_t ring_back(int lag) const {
    const auto l = static_cast<std::size_t>(lag);
    return ring_ >= l ? ring_ - l : ring_ + static_cast<std::size_t>(max_lag_) - l;
  }
  void advance_ring() { ring_ = ring_ + 1 == static_cast<std::size_t>(max_lag_) ? 0 : ring_ + 1; }
  void relabel(const std::uint16_t* before, const std::uint16_t* record, std::uint16_t* out);

  Shape shape_;
  std::uint64_t records_ = 0;
  std::vector<LagTally> lags_;
  std::vector<std::unique_ptr<TallyCounter>> counters_;
  std::vector<std::uint16_t> history_;  // the last max-lag records, a ring
  int max_lag_ = 0;
  std::size_t ring_ = 0;  // the slot of the next record
  std::vector<std::uint16_t> label_, relabeled_;
  bool ranked_ = false;
  std::uint64_t orders_ = 0;                // n! when ranked
  std::vector<std::uint16_t> compose_;      // ranked: [a n! + b] is the rank of b relabeled by a
  std::vector<std::uint64_t> rank_history_; // ranked: the last max-lag ranks, a ring
  std::unique_ptr<Repeats> repeats_;
  std::unique_ptr<SerialPairs> serial_;
  std::unique_ptr<GapCounts> gaps_;
  std::vector<std::size_t> identities_;  // scratch: where a batch holds the identity
  void add_gap(std::uint64_t record);
  // The first max-lag records as read (the later side of a cut), items.
  std::vector<std::uint16_t> first_;
  void keep_first(const std::uint16_t* record);
  // The last min(records, max-lag) records, oldest first, as items.
  std::vector<std::uint16_t> ring_records() const;
  // Into the ring as the newest record, no tally counted.
  void remember(const std::uint16_t* record);
  // The relabeled record of `before` and `record` into lag i's tally.
  void count_lag(std::size_t i, const std::uint16_t* before, const std::uint16_t* record);
};

}  // namespace melange
