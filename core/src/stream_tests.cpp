#include "melange/stream_tests.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/internal/state_words.hpp"
#include "melange/philox.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

// Keys of at most this many possible records live in a bitmap (64 MB,
// zeroed at the start: 12! orders, 311,875,200 ordered deals of 5 of 52),
// which holds every record of any log in a fixed size; past it a table
// grows with the records.
constexpr std::uint64_t kMaxBitmapOutcomes = std::uint64_t{1} << 29;
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

  // The counts and every key held: a bitmap's words, or a table's keys.
  void save(internal::StateWriter& w) {
    drain();
    w.word(count.covered);
    w.word(count.repeats);
    w.word(count.capped);
    w.word(bitmap() ? 1 : 0);
    if (bitmap()) return w.words(bitmap_);
    std::vector<std::uint64_t> keys;
    for (const Key& k : table_)
      if (!k.empty()) keys.insert(keys.end(), {k.hi, k.lo});
    w.words(keys);
  }

  // A fresh tally takes a saved one's counts and keys; keys past this
  // tally's budget leave it capped (later records are not compared).
  void restore(internal::StateReader& r) {
    count.covered = r.word();
    count.repeats = r.word();
    count.capped = r.word() != 0;
    if (!absorb(r, false)) count.capped = true;
  }

  // The keys of the records after these: each one already held is a repeat.
  void join(internal::StateReader& r) {
    const std::uint64_t covered = r.word(), repeats = r.word();
    const bool capped = r.word() != 0;
    if (count.capped) {
      r.word();
      r.words(std::uint64_t{1} << 40);
      return;  // the records after the budget ran out are not compared
    }
    if (!absorb(r, true)) {
      count.capped = true;
      return;
    }
    count.covered += covered;
    count.repeats += repeats;
    count.capped = capped;
  }

 private:
  using Key = Fingerprint;  // (0, 0): an empty slot

  // Reads a saved key set into this one; `count_repeats`: a key held
  // already is a repeat. False when the budget cannot hold them.
  bool absorb(internal::StateReader& r, bool count_repeats) {
    const bool saved_bitmap = r.word() != 0;
    const std::vector<std::uint64_t> saved = r.words(std::uint64_t{1} << 40);
    if (!bitmap()) {
      // Room for every saved key, were none held yet, or none is taken:
      // the keys held stay as they were.
      std::uint64_t keys = 0;
      if (saved_bitmap)
        for (std::uint64_t w : saved) keys += static_cast<std::uint64_t>(std::popcount(w));
      else keys = saved.size() / 2;
      std::uint64_t slots = table_.size();
      while (slots / 2 < used_ + keys) slots *= 2;
      if (slots * sizeof(Key) > budget_ || table_.empty()) return false;
      // Sized once, before any key goes in: keys that come in the slot
      // order of a larger table would pile up in a smaller one (each
      // probing to the end of one growing run).
      resize(slots);
    }
    const auto take = [&](Key key) {
      bool added = false;
      if (bitmap()) {
        std::uint64_t& word = bitmap_[(key.hi - 1) >> 6];
        const std::uint64_t bit = std::uint64_t{1} << ((key.hi - 1) & 63);
        added = (word & bit) == 0;
        word |= bit;
      } else {
        added = insert(key);
        used_ += added;
      }
      count.repeats += count_repeats && !added;
      return true;
    };
    if (saved_bitmap) {
      if (!count.exact || saved.size() != (outcomes_ + 63) / 64) r.fail("its repeats' keys are of another kind");
      for (std::uint64_t i = 0; i < saved.size(); ++i)
        for (std::uint64_t w = saved[i]; w != 0; w &= w - 1)
          if (!take(Key{i * 64 + static_cast<std::uint64_t>(std::countr_zero(w)) + 1, 0})) return false;
      return true;
    }
    if (saved.size() % 2 != 0) r.fail("its repeats' keys are cut short");
    for (std::size_t i = 0; i < saved.size(); i += 2) {
      const Key key{saved[i], saved[i + 1]};
      if (key.empty() || (count.exact && (key.lo != 0 || key.hi > outcomes_)))
        r.fail("its repeats' keys are of another kind");
      if (!take(key)) return false;
    }
    return true;
  }

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
    resize(table_.size() * 2);
    return true;
  }
  void resize(std::uint64_t slots) {
    if (slots <= table_.size()) return;
    std::vector<Key> old(slots);
    old.swap(table_);
    for (const Key& k : old)
      if (!k.empty()) insert(k);
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
  if (gaps_->first == 0) gaps_->first = record + 1;
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
  for (std::size_t r = 0; r < records && records_ + r < ring; ++r) {
    const std::vector<int> items = lehmer_unrank(ranks[r], shape_.n);
    first_.insert(first_.end(), items.begin(), items.end());
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
  keep_first(record);
  remember(record);
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

void StreamTally::keep_first(const std::uint16_t* record) {
  if (records_ < static_cast<std::uint64_t>(max_lag_)) first_.insert(first_.end(), record, record + shape_.k);
}

void StreamTally::remember(const std::uint16_t* record) {
  if (max_lag_ == 0) return;
  if (ranked_) {
    rank_history_[ring_] = lehmer_rank(record, shape_.n);
  } else {
    const auto k = static_cast<std::size_t>(shape_.k);
    std::copy(record, record + k, history_.begin() + static_cast<std::ptrdiff_t>(ring_ * k));
  }
  advance_ring();
}

std::vector<std::uint16_t> StreamTally::ring_records() const {
  const auto k = static_cast<std::size_t>(shape_.k);
  const std::uint64_t held = std::min<std::uint64_t>(records_, static_cast<std::uint64_t>(max_lag_));
  std::vector<std::uint16_t> out;
  out.reserve(held * k);
  for (std::uint64_t back = held; back > 0; --back) {
    const std::size_t slot = ring_back(static_cast<int>(back));
    if (ranked_) {
      const std::vector<int> items = lehmer_unrank(rank_history_[slot], shape_.n);
      out.insert(out.end(), items.begin(), items.end());
    } else {
      out.insert(out.end(), history_.begin() + static_cast<std::ptrdiff_t>(slot * k),
                 history_.begin() + static_cast<std::ptrdiff_t>((slot + 1) * k));
    }
  }
  return out;
}

void StreamTally::count_lag(std::size_t i, const std::uint16_t* before, const std::uint16_t* record) {
  LagTally& l = lags_[i];
  ++l.job.trials;
  if (ranked_) {
    // Lag 1 beside the serial pairs is read off them (append adds the pair).
    if (l.lag == 1 && serial_) return;
    ++l.tally[TallyKind::ranks].counts()[compose_[lehmer_rank(before, shape_.n) * orders_ +
                                                  lehmer_rank(record, shape_.n)]];
  } else {
    relabel(before, record, relabeled_.data());
    count_dealt(trial_job(l.job), relabeled_.data(), *counters_[i]);
  }
}

namespace {
// The first word of a saved stream tally: "MSTR", format 1.
constexpr std::uint64_t kStreamStateTag = 0x4d535452'00000001ull;
}  // namespace

std::vector<std::uint64_t> StreamTally::save() {
  flush();
  std::vector<std::uint64_t> out;
  internal::StateWriter w(out);
  w.word(kStreamStateTag);
  w.word(static_cast<std::uint64_t>(shape_.n));
  w.word(static_cast<std::uint64_t>(shape_.k));
  w.word(lags_.size());
  for (const LagTally& l : lags_) w.word(static_cast<std::uint64_t>(l.lag));
  w.word(records_);
  for (const LagTally& l : lags_) {
    w.word(l.job.trials);
    for (TallyKind kind : kAllTallyKinds)
      if (l.job.tallies.has(kind)) w.words(l.tally[kind].counts());
  }
  w.items(first_);
  w.items(ring_records());
  w.word(repeats_ ? 1 : 0);
  if (repeats_) repeats_->save(w);
  if (serial_) {
    w.word(serial_->first);
    w.word(serial_->last);
    w.words(serial_->pairs);
    w.word(gaps_->first);
    w.word(gaps_->last);
    w.words(gaps_->bins);
  }
  return out;
}

namespace {

// The part of a saved state up to its repeats, read and checked against
// `t`'s shape and options.
struct SavedCounts {
  std::uint64_t records = 0;
  std::vector<std::uint64_t> lag_trials;
  std::vector<std::vector<std::vector<std::uint64_t>>> lag_counts;  // [lag][kind taken]
  std::vector<std::uint16_t> first, ring;
};

SavedCounts read_counts(internal::StateReader& r, Shape shape, const std::vector<LagTally>& lags, int max_lag) {
  r.expect(kStreamStateTag, "format");
  r.expect(static_cast<std::uint64_t>(shape.n), "n");
  r.expect(static_cast<std::uint64_t>(shape.k), "k");
  r.expect(lags.size(), "number of lags");
  for (const LagTally& l : lags) r.expect(static_cast<std::uint64_t>(l.lag), "lags");
  SavedCounts c;
  c.records = r.word();
  for (const LagTally& l : lags) {
    c.lag_trials.push_back(r.word());
    auto& counts = c.lag_counts.emplace_back();
    for (TallyKind kind : kAllTallyKinds)
      if (l.job.tallies.has(kind)) counts.push_back(r.words(l.tally[kind].counts().size()));
  }
  const std::uint64_t most = static_cast<std::uint64_t>(max_lag) * static_cast<std::uint64_t>(shape.k);
  const std::uint64_t held = std::min<std::uint64_t>(c.records, static_cast<std::uint64_t>(max_lag)) *
                             static_cast<std::uint64_t>(shape.k);
  c.first = r.items(most);
  c.ring = r.items(most);
  if (c.first.size() != held || c.ring.size() != held) r.fail("its first and last records are not the records it counted");
  for (std::uint16_t item : c.first)
    if (item >= shape.n) r.fail("an item of its records is out of range");
  for (std::uint16_t item : c.ring)
    if (item >= shape.n) r.fail("an item of its records is out of range");
  return c;
}

}  // namespace

void StreamTally::restore(std::span<const std::uint64_t> words) {
  if (records_ != 0) throw Error("a stream tally takes a saved state only when fresh");
  internal::StateReader r(words, "a stream tally's saved state");
  SavedCounts c = read_counts(r, shape_, lags_, max_lag_);
  for (std::size_t i = 0; i < lags_.size(); ++i) {
    lags_[i].job.trials = c.lag_trials[i];
    std::size_t taken = 0;
    for (TallyKind kind : kAllTallyKinds)
      if (lags_[i].job.tallies.has(kind)) {
        std::vector<std::uint64_t>& counts = lags_[i].tally[kind].counts();
        if (c.lag_counts[i][taken].size() != counts.size()) r.fail("a lag's table has another size than this audit's");
        counts = std::move(c.lag_counts[i][taken++]);
      }
    lags_[i].tally.trials = lags_[i].job.trials;
  }
  first_ = std::move(c.first);
  const auto k = static_cast<std::size_t>(shape_.k);
  for (std::size_t at = 0; at < c.ring.size(); at += k) remember(c.ring.data() + at);
  if ((r.word() != 0) != has_repeats()) r.fail("it was counted with another repeats setting");
  if (repeats_) repeats_->restore(r);
  if (serial_) {
    serial_->first = r.word();
    serial_->last = r.word();
    r.words_into(serial_->pairs);
    gaps_->first = r.word();
    gaps_->last = r.word();
    r.words_into(gaps_->bins);
    if (serial_->first >= serial_->orders || serial_->last >= serial_->orders || gaps_->first > c.records ||
        gaps_->last > c.records)
      r.fail("its serial pairs' ends are out of range");
  }
  if (!r.done()) r.fail("words follow its end");
  records_ = c.records;
}

void StreamTally::append(StreamTally& later) {
  if (later.shape_.n != shape_.n || later.shape_.k != shape_.k || later.lags_.size() != lags_.size() || later.has_repeats() != has_repeats())
    throw Error("a stream tally appends only another of its shape and options");
  flush();
  later.flush();
  const auto k = static_cast<std::size_t>(shape_.k);
  // The pairs across the cut: record j of `later` against the record `lag`
  // before it, which is among the last max-lag records here.
  const std::vector<std::uint16_t> ring = ring_records();
  const std::uint64_t held = ring.size() / k, later_first = later.first_.size() / k;
  for (std::size_t i = 0; i < lags_.size(); ++i) {
    const auto lag = static_cast<std::uint64_t>(lags_[i].lag);
    for (std::uint64_t j = 0; j < std::min(lag, later_first); ++j) {
      if (held + j < lag) continue;  // no record that far back
      count_lag(i, ring.data() + (held + j - lag) * k, later.first_.data() + j * k);
    }
    counters_[i]->flush();
    lags_[i].tally.merge(later.lags_[i].tally);
    lags_[i].job.trials += later.lags_[i].job.trials;
  }
  for (std::size_t at = 0; at < later_first * k && first_.size() < static_cast<std::size_t>(max_lag_) * k; at += k)
    first_.insert(first_.end(), later.first_.begin() + static_cast<std::ptrdiff_t>(at),
                  later.first_.begin() + static_cast<std::ptrdiff_t>(at + k));
  const std::vector<std::uint16_t> later_ring = later.ring_records();
  for (std::size_t at = 0; at < later_ring.size(); at += k) remember(later_ring.data() + at);
  if (repeats_) {
    std::vector<std::uint64_t> keys;
    internal::StateWriter w(keys);
    later.repeats_->save(w);
    internal::StateReader r(keys, "a stream tally's repeats");
    repeats_->join(r);
  }
  if (serial_ && later.records_ > 0) {
    if (records_ > 0) ++serial_->pairs[serial_->last * serial_->orders + later.serial_->first];
    else serial_->first = later.serial_->first;
    serial_->last = later.serial_->last;
    for (std::size_t c = 0; c < serial_->pairs.size(); ++c) serial_->pairs[c] += later.serial_->pairs[c];
    if (later.gaps_->first != 0) add_gap(records_ + later.gaps_->first - 1);
    for (std::size_t b = 0; b < gaps_->bins.size(); ++b) gaps_->bins[b] += later.gaps_->bins[b];
    if (later.gaps_->last != 0) gaps_->last = records_ + later.gaps_->last;
  }
  records_ += later.records_;
  flush();
}

}  // namespace melange
