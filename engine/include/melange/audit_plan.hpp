// Planning and running an audit, once for every front end (the CLI's
// `audit`, Python's `audit` and `audit_records`): which tallies a job keeps,
// the law it is tested against, the notes a report carries about what was
// left out, the memory the workers may use; and the audit of a stream of
// records read from outside (contract §4), looks included.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/exact.hpp"
#include "melange/job.hpp"
#include "melange/laws.hpp"
#include "melange/ranks.hpp"
#include "melange/records.hpp"
#include "melange/stream_tests.hpp"
#include "melange/trial.hpp"

namespace melange {

// The law an audit's counts are tested against.
enum class ReferenceLaw : std::uint8_t {
  uniform,        // every order alike
  exact,          // the algorithm's exact law (Plackett-Luce's for the weighted orders)
  plackett_luce,  // the weighted orders' law, given the weights
  given,          // a law the caller read (a model file)
};

struct AuditRequest {
  // The shuffle: seed, algorithm (+ k, weights), method, bits, n, first,
  // trials. For records from outside, n and k (0 < k < n: deals) and, with
  // a law to test against, the algorithm and method that law is of.
  Job job;
  bool records = false;   // the trials are records read from outside
  bool position = false;  // also the item x position matrix (deals always have it)
  bool hands = false;     // deals: also the hand histogram
  bool rank = true;       // the rank histogram, wherever it fits
  // Records from outside are a stream: their order is the shuffler's, and
  // the stream tests (stream_tests.hpp) read it, with the rising sequences
  // of each permutation beside them.
  bool stream_tests = true;
  std::vector<int> lags{1};
  // A built-in job audited as a stream: trial t against trial t - 1 (the
  // serial kinds, tallies.hpp), rising sequences beside them.
  bool serial = false;
  ReferenceLaw law = ReferenceLaw::uniform;
  std::shared_ptr<const ExactDistribution> given;  // ReferenceLaw::given
  // Bytes the audit may hold: the workers' tallies, the running totals held
  // beside them and the law. `reserve` is kept back for what is not a tally
  // (the caller's output buffers).
  std::uint64_t memory_cap = kDefaultMemoryCap;
  std::uint64_t reserve = 0;
  // Running totals held beside the workers' tallies: a checkpointed run 1,
  // MPI ranks 2 (a total and a sum).
  int held_tallies = 0;
  // Saved states of a record audit held beside its own, each as large as
  // it (RecordAuditor::save): a checkpointed file audit 1 (the words it
  // writes); merge and MPI rank 0 2 (a piece's words and the piece
  // restored from them). The repeats' keys get a share of what is left.
  int held_states = 0;
  RunOptions run;  // threads and backend; the plan sets memory_cap
};

struct AuditPlan {
  Job job;                         // with its tallies chosen
  RunOptions run;                  // memory_cap: what the workers' tallies may use
  std::vector<std::string> notes;  // what was left out and why, for the report
  std::optional<StreamTestOptions> stream{};  // records read as a stream: the tests and their memory
  // The position matrix was tallied without being asked, for where the rank
  // test cannot run: AuditOptions::position_on_demand.
  bool position_on_demand = false;
  // --serial where the job keeps no histogram of every possible record
  // (n > 10): the bytes each rank may hold of the trials' fingerprints for
  // the repeats test (serial_repeats); 0: no repeats test.
  std::uint64_t serial_repeat_bytes = 0;
};

// Checks the request and chooses the tallies; throws UsageError (with
// {param} tokens) for a request that cannot be met, before any work.
AuditPlan plan_audit(const AuditRequest& request);

// The law `plan` is tested against, or nullptr for uniform: the exact walk
// (stopped by `stop` between its subtrees), Plackett-Luce's for `weights`
// (the job's weights as exact rationals), or the request's given law itself
// (not a copy: a law holds n! rationals).
std::shared_ptr<const ExactDistribution> reference_law(const AuditRequest& request, const AuditPlan& plan,
                                                       const std::vector<Rational>& weights,
                                                       const std::function<bool()>& stop = {});

// The statistic whose law is the request's whole law (--model exact with a
// card shuffle: riffle's rising sequences, shelf's valleys; laws.hpp): the
// audit tallies and tests it, and no order or position. nullopt elsewhere.
std::optional<TallyKind> tests_statistic_alone(const AuditRequest& request);
// That law for the plan's job; nullopt where the request has none.
std::optional<StatisticLaw> statistic_model(const AuditRequest& request, const AuditPlan& plan);

// The audit's tail, the same for both front ends. What analyze() takes
// from a plan before anything is counted: its laws (`model`, null for
// uniform; `statistic`, statistic_model's, which must outlive the options)
// and whether positions are tested on demand. The caller adds thresholds,
// alpha, and what the count gives (stream, serial repeats, records).
AuditOptions planned_options(const AuditPlan& plan, const ExactDistribution* model,
                             const std::optional<StatisticLaw>& statistic);
// The report once counted: analyze() of the job as counted, named by its
// model, the plan's notes first (what it left out, and why).
AuditReport planned_report(const AuditPlan& plan, const Job& counted, const Tally& tally, const AuditOptions& options,
                           const std::string& model_name);

// The repeats among the trials of a --serial job that keeps no histogram
// of every possible record (plan.serial_repeat_bytes > 0; nullopt
// otherwise). Each trial's record is made again (serve.hpp) and
// fingerprinted (stream_tests.hpp); the first trials whose keys fit every
// rank's share of the bytes are covered. Each key goes to the rank its top
// bits name, which counts the keys it holds twice, so the count is the same
// for any thread or rank count (as long as the covered trials are) and for
// a run resumed from a checkpoint, which keeps no keys. Collective over
// `ranks` (null: one process); the count is rank 0's. Throws Cancelled
// when `options.cancelled` says so.
std::optional<RepeatCount> serial_repeats(const AuditPlan& plan, const RunOptions& options, Ranks* ranks = nullptr);

// Looks at the records read so far, after 2^10, 2^11, .. records, as
// PractRand reports by length. The looks and the final audit share each
// level once: look j (j = 1 at 2^10 records) is graded at the audit's
// thresholds divided by 2 j (j + 1), and the final audit after J looks at
// what they left, 1/2 + 1/(2 (J + 1)) of them (all of them without a
// look), so that over any number of looks the chance that a fair stream is
// flagged anywhere stays within the thresholds.
std::uint64_t look_records(int look);
Thresholds look_thresholds(const Thresholds& audit, int look);
Thresholds final_thresholds(const Thresholds& audit, int looks);
struct RecordLooks {
  bool enabled = false;
  bool stop_on_fail = false;  // end the read at the first look that FAILs
  std::function<void(std::uint64_t records, const AuditReport&)> look;
};

// The audit of records read from outside: every valid record counted into
// the plan's tallies, in one pass (memory is the tallies). What was counted
// stays when the read throws, so that a caller stopped by a signal can
// still report it.
class RecordAuditor {
 public:
  RecordAuditor(const Job& job, const AuditOptions& audit, RecordLooks looks,
                const std::optional<StreamTestOptions>& stream = std::nullopt);
  RecordAuditor(const RecordAuditor&) = delete;  // its counter holds its tally
  RecordAuditor& operator=(const RecordAuditor&) = delete;
  // Reads `source` to its end (or a look's stop, or `stop()` between
  // batches); throws what the reader throws.
  RecordStats read(const ByteSource& source, const RecordOptions& records, const std::function<bool()>& stop = {});
  // The same over records in memory (read_record_array).
  RecordStats read(const RecordArray& array, const RecordOptions& records, const std::function<bool()>& stop = {});
  std::uint64_t counted() const { return counted_; }
  // The looks made so far (final_thresholds).
  int looks() const { return look_ - 1; }
  // A look FAILed and RecordLooks::stop_on_fail ended the read.
  bool stopped_on_fail() const { return stopped_on_fail_; }
  // The job with its trials the records counted, and their tallies.
  Job job() const;
  RunResult result();
  // The records as a stream, brought up to date; null without stream
  // tests. For AuditOptions::stream.
  std::shared_ptr<const StreamTally> stream();
  // The first kHeadRecords records as read, items in order: what the
  // predictability pass searches (predictability.hpp).
  static constexpr std::size_t kHeadRecords = 16;
  const std::vector<std::vector<int>>& head() const { return head_; }

  // A log cut in consecutive pieces (its files, MPI ranks' byte ranges, a
  // checkpoint and the records after it) is audited as one stream
  // (StreamTally::save, restore, append): save() is this auditor's state as
  // 64-bit words; restore() gives it to a fresh auditor of the same job and
  // options (Error when the words are not one); append(later) adds an
  // auditor that counted the records after these, so that the result
  // equals one auditor's over the whole log.
  std::vector<std::uint64_t> save();
  void restore(std::span<const std::uint64_t> words);
  void append(RecordAuditor& later);

 private:
  // Each record's items through count_dealt; false stops the read.
  RecordBatch count_items(const std::function<bool()>& stop);
  // read(each) with each = count_items(stop), or, with stream tests, the
  // records counted on a second thread while the next ones are read.
  RecordStats pipelined(const std::function<RecordStats(const RecordBatch&)>& read,
                        const std::function<bool()>& stop);
  template <class Range>
  bool count_batch(std::size_t batch, Range&& range);
  // Records by their ranks alone (ranked_): their other kinds are made from
  // the ranks when the tally is read.
  void count_ranks(const std::uint64_t* ranks, std::size_t records);
  bool ranks_from_pairs() const;
  void bring_up_to_date();

  Job job_;
  AuditOptions audit_;
  RecordLooks looks_;
  Tally tally_;
  TallyCounter counter_;
  TrialJob trial_job_;
  std::shared_ptr<StreamTally> stream_;
  bool ranked_;
  std::vector<std::vector<int>> head_;
  void keep_head(const std::uint16_t* record, std::size_t items);
  std::uint64_t counted_ = 0, next_look_ = 1024;
  int look_ = 1;
  bool stopped_on_fail_ = false;
};

}  // namespace melange
