#include "melange/audit_plan.hpp"

#include "melange/internal/state_words.hpp"

#include <algorithm>

#include "melange/deal.hpp"
#include "melange/error.hpp"
#include "melange/internal/grouped_digits.hpp"
#include "melange/internal/state_words.hpp"
#include "melange/laws.hpp"
#include "melange/rank.hpp"
#include "record_pipeline.hpp"
#include "tally_workers.hpp"

namespace melange {
namespace {

bool is_deal_request(const AuditRequest& r) { return r.job.k > 0 && r.job.k < r.job.n; }

// A built-in job's serial kinds: each that can tally the job's shape.
void choose_serial_kinds(Job& job) {
  for (TallyKind kind : AllSerialDefinitions::kinds) {
    try {
      row_of(kind).check(shape_of(job));
      job.tallies.set(kind);
    } catch (const UsageError&) {
      // Not for this shape (serial pairs past n = 5, ranks past 10! orders).
    }
  }
}

// The tallies, before memory has its say: a deal's item x slot matrix is
// small (n x k) and carries its verdict; a histogram whose bins cannot be
// ranked in 64 bits is left out beside the matrix.
void choose_tallies(const AuditRequest& r, Job& job, std::vector<std::string>& notes, bool& position_on_demand) {
  const bool deal = is_deal_request(r);
  if (r.hands && !deal)
    throw UsageError(Param::hand_histogram,
                     "{hand_histogram} tallies the hands of deals: add {k} below {n} (with {algorithm} partial)");
  // Records of k items are deals: the tallies of a partial shuffle's.
  if (r.records && deal) job.algorithm = Algorithm::partial;
  // Where the rank test may not run (too many orders for 64-bit ranks, or
  // records, whose count is not known until they are read), the position
  // matrix is tallied too, and tested only if the rank test cannot run. A
  // built-in job's tallies do not depend on its trial count, so that the
  // pieces of a job always merge.
  const bool unrankable = deal ? deal_count(job.n, job.k) == 0 : job.n > kMaxRankItems;
  const bool on_demand = !r.position && !deal && job.n >= 3 && (unrankable || r.records);
  job.tallies.set(TallyKind::positions, r.position || deal || on_demand);
  position_on_demand = on_demand;
  job.tallies.set(TallyKind::hands, r.hands);
  job.tallies.set(TallyKind::poker, deal && job.n == 52 && job.k == 5);
  job.tallies.set(TallyKind::rises, (r.serial || (r.records && r.stream_tests)) && !deal && job.n >= 2);
  // Where rising sequences are tallied, the statistics of a deck's order
  // a card shuffle leaves behind are too.
  for (TallyKind k : {TallyKind::guesses, TallyKind::valleys, TallyKind::shelf_guesses})
    job.tallies.set(k, job.tallies.has(TallyKind::rises));
  if (const std::optional<TallyKind> alone = tests_statistic_alone(r)) {
    // The law fixes the statistic's distribution and no order's: it alone is tested.
    job.tallies = TallySet{*alone};
    position_on_demand = false;
    notes.push_back(std::string(algorithm_name(job.algorithm)) + "'s exact law depends on a permutation's " +
                    std::string(row_of(*alone).title) + " alone: the audit tests their law, and no order or position");
    return;
  }
  if (r.serial) choose_serial_kinds(job);
  job.tallies.set(TallyKind::ranks, r.rank && !(job.tallies.has(TallyKind::positions) && unrankable));
  if (r.rank && !job.tallies.has(TallyKind::ranks))
    notes.push_back(std::string(deal ? "deal histogram left out: its ordered deals do not fit 64-bit ranks"
                                     : "rank histogram left out: n! orders do not fit 64-bit ranks") +
                    "; the position matrix carries the verdict");
}

// The law: refused where it does not exist or cannot be walked.
void check_law(const AuditRequest& r, const Job& job) {
  if (tests_statistic_alone(r)) {
    if (r.serial)
      throw UsageError(Param::serial, "{serial} tests trials against the uniform laws of independent shuffles; "
                                      "against " + std::string(algorithm_name(job.algorithm)) + "'s law leave it out");
    return;  // a closed form at any n (laws.hpp)
  }
  const bool keys = draw_kind(job.algorithm) == DrawKind::keys;
  const bool deal = is_deal(job);
  const int k = shape_of(job).k;
  if (r.law == ReferenceLaw::plackett_luce && !keys)
    throw UsageError(Param::model, "{model} plackett-luce is the weighted orders' law: use it with {algorithm} "
                                   "weighted or weighted-int-power");
  if (r.law == ReferenceLaw::exact) check_exact_law(job.algorithm);
  const bool plackett_luce = r.law == ReferenceLaw::plackett_luce || (keys && r.law == ReferenceLaw::exact);
  if (plackett_luce && job.n > max_exact_items(job.algorithm))
    throw UsageError(Param::model, std::string("{model} ") +
                                       (r.law == ReferenceLaw::exact ? "exact" : "plackett-luce") +
                                       " gives the Plackett-Luce law up to n = " +
                                       std::to_string(max_exact_items(job.algorithm)) + "; audit against uniform");
  if (r.law == ReferenceLaw::given && !r.given) throw UsageError(Param::model, "{model}: no law was given");
  if (r.law == ReferenceLaw::given && (r.given->n != job.n || r.given->k != k))
    throw UsageError(Param::model, "{model} is for n = " + std::to_string(r.given->n) + ", k = " +
                                       std::to_string(r.given->k) + " but the audit has n = " + std::to_string(job.n) +
                                       ", k = " + std::to_string(k) + "; make the model with the same {n} and {k}");
  if (r.law == ReferenceLaw::exact && deal && deal_count(job.n, k) > kMaxExactDeals)
    throw UsageError(Param::model, "{model} exact walks partial only up to " + internal::grouped_digits(kMaxExactDeals) +
                                       " ordered deals (n!/(n-k)!); audit against uniform or a model file");
  if (r.law == ReferenceLaw::exact && !deal && !keys && job.n > max_exact_items(job.algorithm))
    throw UsageError(Param::model, "{model} exact walks " + std::string(algorithm_name(job.algorithm)) +
                                       " only up to n = " + std::to_string(max_exact_items(job.algorithm)) +
                                       "; audit against uniform or a model file");
}

// What the workers' tallies may use once the running totals are held.
std::uint64_t workers_cap(const Job& job, std::uint64_t cap, int held_tallies) {
  const std::uint64_t held = tally_bytes(job) * static_cast<std::uint64_t>(held_tallies);  // <= 2 x 2^62
  if (held >= cap)
    throw UsageError(Param::memory_cap,
                     std::string(held_tallies == 1 ? "a checkpointed run holds its running total"
                                                   : "MPI ranks each hold a running total and a sum") +
                         (held_tallies == 1 ? " (a tally" : " (two tallies") + " of n = " + std::to_string(job.n) +
                         ") beside the workers', and they do not fit: raise {memory_cap}");
  return cap - held;
}

// Below this the fingerprints of a --serial job's trials are not worth
// comparing (32,768 trials).
constexpr std::uint64_t kMinSerialRepeatBytes = std::uint64_t{1} << 20;

// The stream tests of records: their lags' tallies and the history they
// keep come off the cap first; the repeats' keys get what is left of it.
void plan_stream(const AuditRequest& r, const Job& job, std::uint64_t cap, AuditPlan& plan) {
  StreamTestOptions o;
  o.lags = r.lags;
  o.hands = r.hands;
  const Shape s = shape_of(job);
  validate_stream_options(s, o);
  const StreamTally probe(s, StreamTestOptions{o.lags, 0, o.hands});
  std::uint64_t lag_bytes = 0;
  for (const LagTally& l : probe.lags()) lag_bytes += tally_bytes(l.job) + static_cast<std::uint64_t>(l.lag) * s.k * 2;
  // Each saved state held beside the audit copies all of it, keys included.
  const auto copies = static_cast<std::uint64_t>(1 + r.held_states);
  const std::uint64_t used = (tally_bytes(job) + lag_bytes) * copies;
  if (used >= cap)
    throw UsageError(Param::memory_cap, "the stream tests' tallies do not fit {memory_cap}: raise it or ask for "
                                        "fewer {lags}");
  o.repeat_bytes = (cap - used) / copies;
  plan.stream = o;
}

// --serial without a histogram of every possible record: the trials'
// fingerprints get what the finished tally and the running totals leave.
void plan_serial_repeats(const AuditRequest& r, const Job& job, std::uint64_t cap, AuditPlan& plan) {
  if (job.tallies.has(TallyKind::ranks) || job.tallies.has(TallyKind::hands)) return;
  const std::uint64_t held = tally_bytes(job) * static_cast<std::uint64_t>(1 + r.held_tallies);
  if (held + kMinSerialRepeatBytes > cap) {
    plan.notes.push_back("repeats test left out: the memory cap leaves no room for the trials' fingerprints "
                         "beside the tallies");
    return;
  }
  plan.serial_repeat_bytes = cap - held;
}

}  // namespace

std::uint64_t look_records(int look) { return std::uint64_t{1024} << (look - 1); }

Thresholds look_thresholds(const Thresholds& audit, int look) {
  const double share = 1.0 / (2.0 * static_cast<double>(look) * (look + 1));
  return Thresholds{audit.weak * share, audit.fail * share};
}

Thresholds final_thresholds(const Thresholds& audit, int looks) {
  // The looks 1..J spent half of (1 - 1/(J + 1)): the rest is the final's.
  const double share = 1.0 - 0.5 * (1.0 - 1.0 / (static_cast<double>(looks) + 1));
  return Thresholds{audit.weak * share, audit.fail * share};
}

AuditPlan plan_audit(const AuditRequest& r) {
  if (r.serial && r.records)
    throw UsageError(Param::serial, "{serial} audits a built-in job as a stream; records are read as one already");
  if (r.serial && draw_kind(r.job.algorithm) == DrawKind::keys)
    throw UsageError(Param::serial, "{serial} is for the shuffles of whole permutations and deals, not the "
                                    "weighted orders");
  AuditPlan plan{r.job, r.run, {}};
  Job& job = plan.job;
  if (r.records) job.trials = 1;  // until the records are counted
  choose_tallies(r, job, plan.notes, plan.position_on_demand);
  validate(job);
  check_law(r, job);
  // A law holds its exact probabilities: count them, at a generous 256
  // bytes each, against the cap too.
  const bool deal = is_deal(job);
  const std::uint64_t law_bytes = r.law == ReferenceLaw::uniform ? 0
                                  : tests_statistic_alone(r)     ? static_cast<std::uint64_t>(job.n) * 256
                                  : (deal ? deal_count(job.n, job.k) : factorial(job.n)) * 256;
  if (law_bytes + r.reserve >= r.memory_cap)
    throw UsageError(Param::memory_cap, "the law for n = " + std::to_string(job.n) + " takes up to " +
                                            internal::bytes_text(law_bytes) + ", more than {memory_cap} leaves it: "
                                            "raise {memory_cap}");
  const std::uint64_t cap = r.memory_cap - r.reserve - law_bytes;
  // Beside the matrix, a histogram beyond the cap is left out.
  if (job.tallies.has(TallyKind::ranks) && job.tallies.has(TallyKind::positions)) {
    try {
      RunOptions o = plan.run;
      o.memory_cap = workers_cap(job, cap, r.held_tallies);
      plan_workers(job, o);
    } catch (const UsageError&) {
      job.tallies.set(TallyKind::ranks, false);
      plan.notes.push_back(
          deal ? "deal histogram left out: its " + internal::grouped_digits(deal_count(job.n, job.k)) +
                     " bins do not fit the memory cap; the slot matrix" +
                     (job.tallies.has(TallyKind::hands) ? " and the hands carry" : " carries") + " the verdict"
               : "rank histogram left out: its " + std::to_string(job.n) +
                     "! bins do not fit the memory cap; the position matrix carries the verdict");
    }
  }
  plan.run.memory_cap = workers_cap(job, cap, r.held_tallies);
  plan_workers(job, plan.run);  // throws when one tally cannot fit
  if (r.records && r.stream_tests && !tests_statistic_alone(r)) plan_stream(r, job, cap, plan);
  if (r.serial) plan_serial_repeats(r, job, cap, plan);
  return plan;
}

std::optional<TallyKind> tests_statistic_alone(const AuditRequest& r) {
  if (r.law != ReferenceLaw::exact) return std::nullopt;
  // A closed form that is not the job's law (a biased method's uneven
  // draws) gives way to the exact walk of the definition.
  if (!closed_form_holds(r.job.algorithm, shape_of(r.job), r.job.spec)) return std::nullopt;
  return closed_form_statistic(r.job.algorithm);
}

std::optional<StatisticLaw> statistic_model(const AuditRequest& r, const AuditPlan& plan) {
  if (!tests_statistic_alone(r)) return std::nullopt;
  return closed_form_law(plan.job.algorithm, shape_of(plan.job));
}

AuditOptions planned_options(const AuditPlan& plan, const ExactDistribution* model,
                             const std::optional<StatisticLaw>& statistic) {
  AuditOptions o;
  o.model = model;
  o.statistic_model = statistic ? &*statistic : nullptr;
  o.position_on_demand = plan.position_on_demand;
  return o;
}

AuditReport planned_report(const AuditPlan& plan, const Job& counted, const Tally& tally, const AuditOptions& options,
                           const std::string& model_name) {
  AuditReport report = analyze(counted, tally, options);
  report.model = model_name;
  report.notes.insert(report.notes.begin(), plan.notes.begin(), plan.notes.end());
  return report;
}

std::shared_ptr<const ExactDistribution> reference_law(const AuditRequest& r, const AuditPlan& plan,
                                                       const std::vector<Rational>& weights,
                                                       const std::function<bool()>& stop) {
  if (tests_statistic_alone(r)) return nullptr;  // statistic_model gives its law
  const Job& job = plan.job;
  const bool keys = draw_kind(job.algorithm) == DrawKind::keys;
  switch (r.law) {
    case ReferenceLaw::uniform: return nullptr;
    case ReferenceLaw::given: return r.given;
    case ReferenceLaw::plackett_luce: return std::make_unique<ExactDistribution>(
        plackett_luce_distribution(job.algorithm, weights));
    case ReferenceLaw::exact: break;
  }
  if (keys) return std::make_unique<ExactDistribution>(plackett_luce_distribution(job.algorithm, weights));
  const auto stop_between_subtrees = [&stop](std::uint64_t, std::uint64_t) {
    if (stop && stop()) throw Cancelled();
  };
  return std::make_unique<ExactDistribution>(
      exact_distribution(job.algorithm, shape_of(job), job.spec, plan.run.threads, stop_between_subtrees));
}

namespace {
// A record audit's looks say "records".
AuditOptions with_records(AuditOptions o) {
  o.records = true;
  return o;
}
}  // namespace

RecordAuditor::RecordAuditor(const Job& job, const AuditOptions& audit, RecordLooks looks,
                             const std::optional<StreamTestOptions>& stream)
    : job_(job), audit_(with_records(audit)), looks_(std::move(looks)), tally_(Tally::for_job(job)), counter_(tally_),
      trial_job_(trial_job(job)),
      stream_(stream ? std::make_shared<StreamTally>(shape_of(job), *stream) : nullptr),
      ranked_(!is_deal(job) && job.tallies.has(TallyKind::ranks) && job.n <= kMaxDerivedItems &&
              (!stream_ || stream_->ranked())) {}

void RecordAuditor::bring_up_to_date() {
  counter_.flush();
  tally_.trials = counted_;
  if (ranks_from_pairs()) {
    // Each record but the first is the second of a serial pair.
    const SerialPairs& s = *stream_->serial_pairs();
    std::vector<std::uint64_t>& ranks = tally_[TallyKind::ranks].counts();
    std::fill(ranks.begin(), ranks.end(), 0);
    for (std::uint64_t cell = 0; cell < s.pairs.size(); ++cell) ranks[cell % s.orders] += s.pairs[cell];
    if (counted_ > 0) ++ranks[s.first];
  }
  if (ranked_) derive_from_ranks(tally_, shape_of(job_), job_.tallies);
}

bool RecordAuditor::ranks_from_pairs() const { return ranked_ && stream_ && stream_->serial_pairs(); }

void RecordAuditor::count_ranks(const std::uint64_t* ranks, std::size_t records) {
  // Beside the serial pairs the rank histogram is theirs, read off them
  // when the tally is read: one count a record, not two.
  if (!ranks_from_pairs())
    for (std::size_t r = 0; r < records; ++r) counter_.rank(ranks[r]);
  if (stream_) stream_->add_ranks(ranks, records);
}

// Counts a batch through range(begin, end), the records [begin, end) of
// it; with looks it stops at 2^10, 2^11, ... records for one. False ends
// the read (a look that FAILs).
template <class Range>
bool RecordAuditor::count_batch(std::size_t batch, Range&& range) {
  for (std::size_t r = 0; r < batch;) {
    const std::size_t end = looks_.enabled
                                ? static_cast<std::size_t>(std::min<std::uint64_t>(batch, r + (next_look_ - counted_)))
                                : batch;
    range(r, end);
    counted_ += end - r;
    r = end;
    if (!looks_.enabled || counted_ != next_look_) continue;
    next_look_ *= 2;
    bring_up_to_date();
    AuditOptions at_look = audit_;
    at_look.thresholds = look_thresholds(audit_.thresholds, look_++);
    at_look.stream = stream().get();
    const AuditReport report = analyze(job(), tally_, at_look);
    if (looks_.look) looks_.look(counted_, report);
    if (looks_.stop_on_fail && report.verdict == Verdict::fail) {
      stopped_on_fail_ = true;
      return false;
    }
  }
  return true;
}

RecordBatch RecordAuditor::count_items(const std::function<bool()>& stop) {
  const std::size_t width = static_cast<std::size_t>(shape_of(job_).k);  // items a record
  return [this, width, &stop](const std::uint16_t* items, std::size_t batch) {
    const bool more = count_batch(batch, [&](std::size_t begin, std::size_t end) {
      for (std::size_t r = begin; r < end; ++r) {
        const std::uint16_t* record = items + r * width;
        keep_head(record, width);
        if (ranked_) {
          const std::uint64_t rank = lehmer_rank(record, job_.n);
          count_ranks(&rank, 1);
          continue;
        }
        count_dealt(trial_job_, record, counter_);
        if (stream_) stream_->add(record);
      }
    });
    return more && !(stop && stop());
  };
}

RecordStats RecordAuditor::pipelined(const std::function<RecordStats(const RecordBatch&)>& read,
                                     const std::function<bool()>& stop) {
  // Without stream tests a record costs more to read than to count: a
  // second thread would gain little and pay its hand-offs.
  if (!stream_) return read(count_items(stop));
  internal::RecordPipeline pipeline(static_cast<std::size_t>(shape_of(job_).k), count_items(stop));
  const RecordStats stats =
      read([&](const std::uint16_t* items, std::size_t batch) { return pipeline.push(items, batch); });
  pipeline.finish();
  return stats;
}

RecordStats RecordAuditor::read(const ByteSource& source, const RecordOptions& records,
                                const std::function<bool()>& stop) {
  if (ranked_) {
    // Ranks are all this tally and stream need: the reader's table path gives them.
    return read_record_ranks(source, records, [&](const std::uint64_t* ranks, std::size_t batch) {
      for (std::size_t r = 0; r < batch && head_.size() < kHeadRecords; ++r)
        head_.push_back(lehmer_unrank(ranks[r], job_.n));
      const bool more =
          count_batch(batch, [&](std::size_t begin, std::size_t end) { count_ranks(ranks + begin, end - begin); });
      return more && !(stop && stop());
    });
  }
  return pipelined([&](const RecordBatch& each) { return read_records(source, records, each); }, stop);
}

RecordStats RecordAuditor::read(const RecordArray& array, const RecordOptions& records,
                                const std::function<bool()>& stop) {
  return pipelined([&](const RecordBatch& each) { return read_record_array(array, records, each); }, stop);
}

void RecordAuditor::keep_head(const std::uint16_t* record, std::size_t items) {
  if (head_.size() < kHeadRecords) head_.emplace_back(record, record + items);
}

Job RecordAuditor::job() const {
  Job j = job_;
  j.trials = counted_;
  return j;
}

std::shared_ptr<const StreamTally> RecordAuditor::stream() {
  if (stream_) stream_->flush();
  return stream_;
}

RunResult RecordAuditor::result() {
  bring_up_to_date();
  RunResult run;
  run.tally = tally_;
  run.backend = "input";
  run.threads = 1;
  return run;
}

namespace {
// The first word of a saved record audit: "MREC", format 1.
constexpr std::uint64_t kRecordStateTag = 0x4d524543'00000001ull;
}  // namespace

std::vector<std::uint64_t> RecordAuditor::save() {
  bring_up_to_date();
  std::vector<std::uint64_t> out;
  internal::StateWriter w(out);
  w.word(kRecordStateTag);
  w.word(counted_);
  w.word(static_cast<std::uint64_t>(look_));
  w.word(next_look_);
  for (TallyKind kind : kAllTallyKinds)
    if (job_.tallies.has(kind)) w.words(tally_[kind].counts());
  std::vector<std::uint16_t> head;
  for (const std::vector<int>& record : head_) head.insert(head.end(), record.begin(), record.end());
  w.items(head);
  w.word(stream_ ? 1 : 0);
  if (stream_) w.words(stream_->save());
  return out;
}

void RecordAuditor::restore(std::span<const std::uint64_t> words) {
  if (counted_ != 0) throw Error("a record audit takes a saved state only when fresh");
  internal::StateReader r(words, "a record audit's saved state");
  r.expect(kRecordStateTag, "format");
  const std::uint64_t counted = r.word();
  const std::uint64_t look = r.word(), next_look = r.word();
  if (look == 0 || look > 64 || next_look == 0) r.fail("its progressive looks are out of range");
  Tally tally = Tally::for_job(job_);
  for (TallyKind kind : kAllTallyKinds)
    if (job_.tallies.has(kind)) {
      std::vector<std::uint64_t>& counts = tally[kind].counts();
      const std::size_t bins = counts.size();
      counts = r.words(bins);
      if (counts.size() != bins) r.fail("a table in it has another size than this audit's");
    }
  const auto width = static_cast<std::size_t>(shape_of(job_).k);
  const std::vector<std::uint16_t> head = r.items(kHeadRecords * width);
  if (head.size() != std::min<std::uint64_t>(counted, kHeadRecords) * width) r.fail("its first records are missing");
  if ((r.word() != 0) != (stream_ != nullptr)) r.fail("it was counted with another stream tests setting");
  if (stream_) {
    stream_->restore(r.words(words.size()));
    if (stream_->records() != counted) r.fail("its stream tests counted other records");
  }
  if (!r.done()) r.fail("words follow its end");
  tally_ = std::move(tally);
  counted_ = counted;
  look_ = static_cast<int>(look);
  next_look_ = next_look;
  for (std::size_t at = 0; at < head.size(); at += width)
    head_.emplace_back(head.begin() + static_cast<std::ptrdiff_t>(at),
                       head.begin() + static_cast<std::ptrdiff_t>(at + width));
  bring_up_to_date();
}

void RecordAuditor::append(RecordAuditor& later) {
  if ((stream_ == nullptr) != (later.stream_ == nullptr) || job_.tallies != later.job_.tallies)
    throw Error("a record audit appends only another of its job and options");
  bring_up_to_date();
  later.bring_up_to_date();
  tally_.merge(later.tally_);
  for (const std::vector<int>& record : later.head_)
    if (head_.size() < kHeadRecords) head_.push_back(record);
  if (stream_) stream_->append(*later.stream_);
  counted_ += later.counted_;
  bring_up_to_date();
}

}  // namespace melange
