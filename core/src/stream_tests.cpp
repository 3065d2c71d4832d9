#include "melange/stream_tests.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/philox.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

// Keys of at most this many possible records live in a bitmap (16 MB).
constexpr std::uint64_t kMaxBitmapOutcomes = std::uint64_t{1} << 27;
constexpr std::uint64_t kFirstTableSlots = std::uint64_t{1} << 12;
constexpr std::uint64_t kFibonacci = 0x9E3779B97F4A7C15ull;
// Gaps are binned up to this many times the number of orders; a longer one
// (probability about e^-64) goes in the last bin.
constexpr std::uint64_t kGapBinsPerOrder = 64;

Job lag_job(Shape s) {
  Job job;
  job.algorithm = s.whole() ? Algorithm::fisher_yates : Algorithm::partial;
  job.n = s.n;
  job.k = s.whole() ? 0 : s.k;
  job.trials = 0;
  job.tallies = TallySet{TallyKind::positions};
  if (s.whole() && s.n >= 2) job.tallies.set(TallyKind::rises);
  if (!s.whole()) job.tallies.set(TallyKind::overlaps);
  const std::uint64_t orders = s.whole() ? (s.n <= kMaxRankItems ? factorial(s.n) : 0) : deal_count(s.n, s.k);
  if (orders != 0 && orders <= kMaxLagRankBins) job.tallies.set(TallyKind::ranks);
  return job;
}

}  // namespace

double log_outcomes(Shape s, bool hands) {
  const double n = s.n, k = s.k;
  if (s.whole()) return std::lgamma(n + 1);
  if (hands) return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
  return std::lgamma(n + 1) - std::lgamma(n - k + 1);
}

// Unlike a chain (CBC), the blocks of the XOR-MAC do not wait for each
// other, so their rounds overlap: at n = 52 the five blocks cost little
// more than the latency of one.
Fingerprint record_fingerprint(const std::uint16_t* items, Shape s) {
  static_assert(kMaxPositionItems <= 1024, "three items a 32-bit word");
  const int k = s.k;
  const auto tag = static_cast<std::uint32_t>(s.n) | (static_cast<std::uint32_t>(k) << 16);
  PhiloxCounter sum{{0, 0, 0, 0}};
  for (int i = 0, b = 0; i < k; i += 12, ++b) {
    PhiloxCounter block{{0, 0, 0, 0}};
    for (int j = 0; j < 12 && i + j < k; ++j) block.v[j / 3] |= std::uint32_t{items[i + j]} << (10 * (j % 3));
    block = philox4x32_10(block, PhiloxKey{{tag, static_cast<std::uint32_t>(b)}});
    for (int w = 0; w < 4; ++w) sum.v[w] ^= block.v[w];
  }
  Fingerprint key{(std::uint64_t{sum.v[0]} << 32) | sum.v[1], (std::uint64_t{sum.v[2]} << 32) | sum.v[3]};
  if (key.empty()) key.lo = 1;  // the one value that marks an empty slot, met with probability 2^-128
  return key;
}

RepeatCount repeats_in_histogram(Shape s, bool hands, const std::vector<std::uint64_t>& counts,
                                 std::uint64_t records) {
  RepeatCount r;
  r.covered = records;
  r.exact = true;
  r.log_outcomes = log_outcomes(s, hands);
  std::uint64_t distinct = 0;
  for (std::uint64_t c : counts) distinct += c != 0;
  r.repeats = records - distinct;
  return r;
}

void validate_stream_options(Shape s, const StreamTestOptions& o) {
  if (o.lags.size() > static_cast<std::size_t>(kMaxLags))
    throw UsageError(Param::lags, "{lags} takes at most " + std::to_string(kMaxLags) + " lags, got " +
                                      std::to_string(o.lags.size()));
  for (std::size_t i = 0; i < o.lags.size(); ++i) {
    const int lag = o.lags[i];
    if (lag < 1 || lag > kMaxLag)
      throw UsageError(Param::lags, "{lags} must be between 1 and " + std::to_string(kMaxLag) + ", got " +
                                        std::to_string(lag));
    if (std::find(o.lags.begin(), o.lags.begin() + static_cast<std::ptrdiff_t>(i), lag) !=
        o.lags.begin() + static_cast<std::ptrdiff_t>(i))
      throw UsageError(Param::lags, "{lags} names lag " + std::to_string(lag) + " twice");
  }
  if (s.n > kMaxPositionItems)
    throw UsageError(Param::n, "stream tests relabel records of up to {n} = " + std::to_string(kMaxPositionItems) +
                                   " items, got n = " + std::to_string(s.n));
}

// The records seen so far, by key: an exact rank where 64 bits hold every
// record (a bitmap when there are few), else a 128-bit fingerprint. Two
// distinct records share a fingerprint with probability 2^-128: among 2^40
// records, about 2^-49 for any pair at all.
class StreamTally::Repeats {
 public:
  Repeats(Shape s, bool hands, std::uint64_t budget) : shape_(s), hands_(hands && !s.whole()), budget_(budget) {
    count.log_outcomes = log_outcomes(s, hands_);
    outcomes_ = s.whole() ? (s.n <= kMaxRankItems ? factorial(s.n) : 0)
                          : (hands_ ? hand_count(s.n, s.k) : deal_count(s.n, s.k));
    count.exact = outcomes_ != 0;
    if (count.exact && outcomes_ <= kMaxBitmapOutcomes && (outcomes_ + 63) / 64 * 8 <= budget_) {
      bitmap_.assign((outcomes_ + 63) / 64, 0);
    } else if (kFirstTableSlots * sizeof(Key) <= budget_) {
      table_.assign(kFirstTableSlots, Key{});
    } else {
      count.capped = true;
    }
    if (hands_) sorted_.resize(static_cast<std::size_t>(s.k));
  }

  void add(const std::uint16_t* record) {
    if (count.capped) return;
    if (!bitmap_.empty()) return add_exact(exact_key(record));
    // Keys waiting to go in count as held: the table stays at most half full.
    if (used_ + waiting_ + 1 > table_.size() / 2 && !grow()) {
      count.capped = true;
      return;
    }
    const Key key = count.exact ? Key{exact_key(record) + 1, 0} : fingerprint(record);
    ++count.covered;
    // The key's slot is fetched now and the key goes in kPipeline records
    // later: a table past the cache misses on nearly every key, and the
    // misses overlap rather than wait in turn. Which of two equal records
    // is the repeat does not change the count.
    __builtin_prefetch(&table_[slot_of(key)], 1);
    if (waiting_ == kPipeline) put(pipeline_[(next_ + kPipeline - waiting_--) % kPipeline]);
    pipeline_[next_] = key;
    next_ = (next_ + 1) % kPipeline;
    ++waiting_;
  }

  // The keys still waiting go in (before the count is read).
  void drain() {
    while (waiting_ > 0) put(pipeline_[(next_ + kPipeline - waiting_--) % kPipeline]);
  }

  // A record by its exact key (its rank), when the keys fit a bitmap.
  void add_exact(std::uint64_t r) {
    std::uint64_t& word = bitmap_[r >> 6];
    const std::uint64_t bit = std::uint64_t{1} << (r & 63);
    count.repeats += (word & bit) != 0;
    word |= bit;
    ++count.covered;
  }
  bool bitmap() const { return !bitmap_.empty(); }
  // Many at once: once every possible record has been seen, each one more
  // is a repeat, and the bitmap need not be read.
  void add_exact(const std::uint64_t* keys, std::size_t records) {
    for (std::size_t r = 0; r < records; ++r) {
      if (count.covered - count.repeats == outcomes_) {
        count.covered += records - r;
        count.repeats += records - r;
        return;
      }
      add_exact(keys[r]);
    }
  }

  RepeatCount count;

 private:
  using Key = Fingerprint;  // (0, 0): an empty slot

  const std::uint16_t* as_hand(const std::uint16_t* record) {
    std::copy(record, record + shape_.k, sorted_.begin());
    std::sort(sorted_.begin(), sorted_.end());
    return sorted_.data();
  }

  std::uint64_t exact_key(const std::uint16_t* record) {
    if (shape_.whole()) return lehmer_rank(record, shape_.n);
    if (hands_) return hand_rank_sorted(as_hand(record), shape_.k);
    return deal_rank(record, shape_.n, shape_.k);
  }

  Key fingerprint(const std::uint16_t* record) { return record_fingerprint(hands_ ? as_hand(record) : record, shape_); }

  std::uint64_t slot_of(const Key& k) const {
    const auto shift = static_cast<unsigned>(64 - std::countr_zero(table_.size()));
    return ((k.hi ^ (k.lo * kFibonacci)) * kFibonacci) >> shift;
  }

  void put(const Key& key) {
    if (insert(key)) ++used_;
    else ++count.repeats;
  }

  // True when the key was not there yet.
  bool insert(const Key& key) {
    const std::uint64_t mask = table_.size() - 1;
    for (std::uint64_t i = slot_of(key);; i = (i + 1) & mask) {
      if (table_[i].empty()) {
        table_[i] = key;
        return true;
      }
      if (table_[i] == key) return false;
    }
  }

  // Doubles the table, if the budget allows it.
  bool grow() {
    if (table_.size() * 2 * sizeof(Key) > budget_) return false;
    std::vector<Key> old(table_.size() * 2);
    old.swap(table_);
    for (const Key& k : old)
      if (!k.empty()) insert(k);
    return true;
  }

  Shape shape_;
  bool hands_;
  std::uint64_t budget_;
  std::uint64_t outcomes_ = 0;
  std::vector<std::uint64_t> bitmap_;
  std::vector<Key> table_;
  std::uint64_t used_ = 0;
  static constexpr std::size_t kPipeline = 16;
  Key pipeline_[kPipeline];
  std::size_t next_ = 0, waiting_ = 0;
  std::vector<std::uint16_t> sorted_;
};

StreamTally::StreamTally(Shape shape, const StreamTestOptions& options)
    : shape_(Shape{shape.n, shape.k}) {
  validate_stream_options(shape_, options);
  for (int lag : options.lags) {
    LagTally l;
    l.lag = lag;
    l.job = lag_job(shape_);
    l.tally = Tally::for_job(l.job);
    lags_.push_back(std::move(l));
    max_lag_ = std::max(max_lag_, lag);
  }
  // Counters hold references into lags_, which no longer moves.
  for (LagTally& l : lags_) counters_.push_back(std::make_unique<TallyCounter>(l.tally));
  history_.resize(static_cast<std::size_t>(max_lag_) * static_cast<std::size_t>(shape_.k));
  label_.resize(static_cast<std::size_t>(shape_.n));
  relabeled_.resize(static_cast<std::size_t>(shape_.k));
  if (options.repeat_bytes > 0) repeats_ = std::make_unique<Repeats>(shape_, options.hands, options.repeat_bytes);
  ranked_ = shape_.whole() && shape_.n <= kMaxDerivedItems && (!repeats_ || repeats_->bitmap());
  if (ranked_) make_compose_table();
  if (shape_.whole() && shape_.n >= 2 && shape_.n <= kMaxSerialPairItems) {
    serial_ = std::make_unique<SerialPairs>();
    serial_->orders = factorial(shape_.n);
    serial_->pairs.assign(serial_->orders * serial_->orders, 0);
    gaps_ = std::make_unique<GapCounts>();
    gaps_->orders = serial_->orders;
    gaps_->bins.assign(kGapBinsPerOrder * serial_->orders, 0);
  }
}

StreamTally::~StreamTally() = default;

// The identity at `record`: the gap since it was last seen.
void StreamTally::add_gap(std::uint64_t record) {
  if (gaps_->last != 0) ++gaps_->bins[std::min<std::uint64_t>(record + 1 - gaps_->last, gaps_->bins.size()) - 1];
  gaps_->last = record + 1;
}

const RepeatCount& StreamTally::repeats() const { return repeats_->count; }

void StreamTally::relabel(const std::uint16_t* before, const std::uint16_t* record, std::uint16_t* out) {
  melange::relabel(before, record, out, shape_, label_.data());
}

void StreamTally::make_compose_table() {
  orders_ = factorial(shape_.n);
  compose_.resize(orders_ * orders_);
  rank_history_.resize(static_cast<std::size_t>(max_lag_));
  std::vector<std::uint16_t> before(label_.size()), record(label_.size()), out(label_.size());
  for (std::uint64_t a = 0; a < orders_; ++a) {
    const std::vector<int> pa = lehmer_unrank(a, shape_.n);
    std::copy(pa.begin(), pa.end(), before.begin());
    for (std::uint64_t b = 0; b < orders_; ++b) {
      const std::vector<int> pb = lehmer_unrank(b, shape_.n);
      std::copy(pb.begin(), pb.end(), record.begin());
      relabel(before.data(), record.data(), out.data());
      compose_[a * orders_ + b] = static_cast<std::uint16_t>(lehmer_rank(out.data(), shape_.n));
    }
  }
}

void StreamTally::add_ranks(const std::uint64_t* ranks, std::size_t records) {
  // Lag by lag over the batch: the history ring is read before it is
  // written, a lag's records back from each record of the batch.
  const auto ring = static_cast<std::uint64_t>(max_lag_);
  for (LagTally& l : lags_) {
    const auto lag = static_cast<std::uint64_t>(l.lag);
    std::uint64_t* counts = l.tally[TallyKind::ranks].counts().data();
    std::size_t r = records_ >= lag ? 0 : static_cast<std::size_t>(std::min<std::uint64_t>(records, lag - records_));
    // Lag 1 beside the serial pairs is read off them when flushed.
    if (lag == 1 && serial_) r = records;
    for (; r < records; ++r) {
      const std::uint64_t before = r >= lag ? ranks[r - lag] : rank_history_[(ring_ + ring - lag + r) % ring];
      ++counts[compose_[before * orders_ + ranks[r]]];
    }
    const std::uint64_t first_counted = records_ >= lag ? 0 : std::min<std::uint64_t>(records, lag - records_);
    l.job.trials += records - first_counted;
  }
  for (std::size_t r = records > ring ? records - ring : 0; r < records; ++r) {
    rank_history_[(ring_ + r) % ring] = ranks[r];
  }
  if (max_lag_ > 0) ring_ = static_cast<std::size_t>((ring_ + records) % ring);
  if (repeats_ && !repeats_->count.capped) repeats_->add_exact(ranks, records);
  if (serial_ && records > 0) {
    // Locals: the pairs' stores may not alias the table's size or address.
    std::uint64_t* pairs = serial_->pairs.data();
    const std::uint64_t orders = serial_->orders;
    std::uint64_t last = serial_->last;
    std::size_t r = 0;
    if (records_ == 0) serial_->first = last = ranks[r++];
    for (; r < records; ++r) {
      ++pairs[last * orders + ranks[r]];
      last = ranks[r];
    }
    serial_->last = last;
  }
  if (gaps_) {
    // The identity's records of the batch, found without a branch a
    // record (it comes once in n! records: a branch would be mispredicted
    // there every time).
    std::size_t found = 0;
    identities_.resize(records);
    for (std::size_t r = 0; r < records; ++r) {
      identities_[found] = r;
      found += ranks[r] == 0;
    }
    for (std::size_t i = 0; i < found; ++i) add_gap(records_ + identities_[i]);
  }
  records_ += records;
}

void StreamTally::add(const std::uint16_t* record) {
  if (ranked_) {
    const std::uint64_t rank = lehmer_rank(record, shape_.n);
    return add_ranks(&rank, 1);
  }
  const auto k = static_cast<std::size_t>(shape_.k);
  for (std::size_t i = 0; i < lags_.size(); ++i) {
    if (records_ < static_cast<std::uint64_t>(lags_[i].lag)) continue;
    relabel(history_.data() + ring_back(lags_[i].lag) * k, record, relabeled_.data());
    count_dealt(trial_job(lags_[i].job), relabeled_.data(), *counters_[i]);
    ++lags_[i].job.trials;
  }
  if (max_lag_ > 0) {
    std::copy(record, record + k, history_.begin() + static_cast<std::ptrdiff_t>(ring_ * k));
    advance_ring();
  }
  if (repeats_) repeats_->add(record);
  if (serial_) {
    const std::uint64_t r = lehmer_rank(record, shape_.n);
    if (r == 0) add_gap(records_);
    if (records_ == 0) serial_->first = r;
    else ++serial_->pairs[serial_->last * serial_->orders + r];
    serial_->last = r;
  }
  ++records_;
}

void StreamTally::flush() {
  if (repeats_) repeats_->drain();
  for (std::size_t i = 0; i < lags_.size(); ++i) {
    counters_[i]->flush();
    lags_[i].tally.trials = lags_[i].job.trials;
    if (ranked_ && lags_[i].lag == 1 && serial_) {
      // Each pair (a, b) of consecutive ranks is one relabeled record, of rank compose(a, b).
      std::vector<std::uint64_t>& ranks = lags_[i].tally[TallyKind::ranks].counts();
      std::fill(ranks.begin(), ranks.end(), 0);
      for (std::uint64_t cell = 0; cell < serial_->pairs.size(); ++cell) ranks[compose_[cell]] += serial_->pairs[cell];
    }
    if (ranked_) derive_from_ranks(lags_[i].tally, shape_, lags_[i].job.tallies);
  }
}

}  // namespace melange
