// Audit planning and the record-stream audit (engine/include/melange/audit_plan.hpp):
// the tallies and notes every front end gets from one place, and records
// read from memory counted exactly as the same job's own trials.
#include <gtest/gtest.h>

#include <vector>

#include "melange/audit_plan.hpp"
#include "melange/error.hpp"
#include "melange/serve.hpp"
#include "record_pipeline.hpp"

namespace melange {
namespace {

AuditRequest request_for(Algorithm a, int n, int k = 0, std::uint64_t trials = 10000) {
  AuditRequest r;
  r.job.algorithm = a;
  r.job.n = n;
  r.job.k = k;
  r.job.trials = trials;
  r.run.threads = 1;
  return r;
}

TEST(AuditPlan, ChoosesTheTalliesOfAJob) {
  const AuditPlan plain = plan_audit(request_for(Algorithm::fisher_yates, 4));
  EXPECT_TRUE(plain.job.tallies.has(TallyKind::ranks));
  EXPECT_FALSE(plain.job.tallies.has(TallyKind::positions));
  EXPECT_TRUE(plain.notes.empty());

  AuditRequest with_position = request_for(Algorithm::fisher_yates, 4);
  with_position.position = true;
  const AuditPlan both = plan_audit(with_position);
  EXPECT_TRUE(both.job.tallies.has(TallyKind::ranks) && both.job.tallies.has(TallyKind::positions));

  // Five cards of 52: the slot matrix and the poker categories; the
  // 311,875,200 ordered deals do not fit the default cap and are left out
  // with a note that says so.
  const AuditPlan poker = plan_audit(request_for(Algorithm::partial, 52, 5));
  EXPECT_TRUE(poker.job.tallies.has(TallyKind::positions));
  EXPECT_TRUE(poker.job.tallies.has(TallyKind::poker));
  EXPECT_FALSE(poker.job.tallies.has(TallyKind::ranks));
  ASSERT_EQ(poker.notes.size(), 1u);
  EXPECT_NE(poker.notes[0].find("deal histogram left out: its 311,875,200 bins do not fit the memory cap"),
            std::string::npos)
      << poker.notes[0];

  // 21! orders have no 64-bit rank: the matrix carries the verdict.
  AuditRequest big = request_for(Algorithm::fisher_yates, 21);
  big.position = true;
  const AuditPlan wide = plan_audit(big);
  EXPECT_FALSE(wide.job.tallies.has(TallyKind::ranks));
  ASSERT_EQ(wide.notes.size(), 1u);
  EXPECT_NE(wide.notes[0].find("n! orders do not fit 64-bit ranks"), std::string::npos) << wide.notes[0];
}

TEST(AuditPlan, RefusesWhatCannotBeMetInTheLibrarysWords) {
  AuditRequest hands = request_for(Algorithm::fisher_yates, 5);
  hands.hands = true;
  try {
    plan_audit(hands);
    FAIL() << "hands of a whole permutation were planned";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.param(), Param::hand_histogram);
    EXPECT_EQ(std::string(e.what()),
              "hand_histogram tallies the hands of deals: add k below n (with algorithm partial)");
  }
  AuditRequest law = request_for(Algorithm::fisher_yates, 4);
  law.law = ReferenceLaw::plackett_luce;
  EXPECT_THROW(plan_audit(law), UsageError);
  // A checkpointed run's running total beside a tally that fills the cap.
  AuditRequest held = request_for(Algorithm::fisher_yates, 10);
  held.memory_cap = tally_bytes(plan_audit(held).job) + 1024;
  held.held_tallies = 1;
  try {
    plan_audit(held);
    FAIL() << "a running total beside a full cap was planned";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.param(), Param::memory_cap);
    EXPECT_NE(std::string(e.what()).find("raise memory_cap"), std::string::npos) << e.what();
  }
}

// Records of a job, served into memory and audited as records, give the
// tallies the job's own run gives: the rank-only path and the items path.
TEST(RecordAuditor, RecordsInMemoryCountAsTheJobsOwnTrials) {
  for (const bool position : {false, true}) {
    AuditRequest r = request_for(Algorithm::naive_swap, 5, 0, 30000);
    r.position = position;
    const AuditPlan plan = plan_audit(r);
    std::vector<std::uint8_t> records(static_cast<std::size_t>(plan.job.trials) * 5);
    fill_records(plan.job, std::span<std::uint8_t>(records), plan.run);

    AuditRequest from_records = r;
    from_records.records = true;
    const AuditPlan record_plan = plan_audit(from_records);
    RecordAuditor auditor(record_plan.job, AuditOptions{}, RecordLooks{});
    RecordOptions o;
    o.n = 5;
    const RecordStats stats = auditor.read(RecordArray{records.data(), plan.job.trials, 5, 1, false}, o);
    EXPECT_EQ(stats.records, plan.job.trials);
    const RunResult counted = auditor.result();
    const RunResult ran = run(plan.job, plan.run);
    EXPECT_EQ(counted.tally.trials, ran.tally.trials);
    EXPECT_TRUE(counted.tally[TallyKind::ranks] == ran.tally[TallyKind::ranks]) << "position " << position;
    // Records tally the position matrix either way (tested only where the
    // rank test cannot run); the job, only when asked.
    Job with_positions = plan.job;
    with_positions.tallies.set(TallyKind::positions);
    EXPECT_TRUE(counted.tally[TallyKind::positions] == run(with_positions, plan.run).tally[TallyKind::positions])
        << "position " << position;
    EXPECT_EQ(plan.job.tallies.has(TallyKind::positions), position);
  }
}

TEST(RecordAuditor, LooksComeAtPowersOfTwoAndAStopOnFailEndsTheRead) {
  // 5,000 records of the identity: every look FAILs.
  const int n = 4;
  std::vector<std::uint16_t> same(5000 * n);
  for (std::size_t i = 0; i < same.size(); ++i) same[i] = static_cast<std::uint16_t>(i % n);
  AuditRequest r = request_for(Algorithm::fisher_yates, n);
  r.records = true;
  const AuditPlan plan = plan_audit(r);
  RecordOptions o;
  o.n = n;
  for (const bool stop_on_fail : {false, true}) {
    std::vector<std::uint64_t> looked;
    RecordLooks looks;
    looks.enabled = true;
    looks.stop_on_fail = stop_on_fail;
    looks.look = [&](std::uint64_t records, const AuditReport& report) {
      looked.push_back(records);
      EXPECT_EQ(report.verdict, Verdict::fail) << records << " records";
    };
    RecordAuditor auditor(plan.job, AuditOptions{}, looks);
    auditor.read(RecordArray{same.data(), 5000, n, 2, false}, o);
    if (stop_on_fail) {
      EXPECT_EQ(looked, (std::vector<std::uint64_t>{1024}));
      EXPECT_EQ(auditor.counted(), 1024u);
    } else {
      EXPECT_EQ(looked, (std::vector<std::uint64_t>{1024, 2048, 4096}));
      EXPECT_EQ(auditor.counted(), 5000u);
      EXPECT_EQ(auditor.result().tally[TallyKind::ranks].counts()[0], 5000u);
    }
  }
}

TEST(RecordAuditor, AStopOnFailEndsAPipelinedReadAtTheLook) {
  // n = 9 with stream tests: records counted on a second thread. 100,000
  // records of the identity, so the first look FAILs and the read ends
  // there, however far the reader had gone.
  const int n = 9;
  std::vector<std::uint16_t> same(100000 * n);
  for (std::size_t i = 0; i < same.size(); ++i) same[i] = static_cast<std::uint16_t>(i % n);
  AuditRequest r = request_for(Algorithm::fisher_yates, n);
  r.records = true;
  r.position = true;
  const AuditPlan plan = plan_audit(r);
  ASSERT_TRUE(plan.stream.has_value());
  RecordOptions o;
  o.n = n;
  std::vector<std::uint64_t> looked;
  RecordLooks looks;
  looks.enabled = true;
  looks.stop_on_fail = true;
  looks.look = [&](std::uint64_t records, const AuditReport&) { looked.push_back(records); };
  RecordAuditor auditor(plan.job, AuditOptions{}, looks, plan.stream);
  auditor.read(RecordArray{same.data(), 100000, n, 2, false}, o);
  EXPECT_EQ(looked, (std::vector<std::uint64_t>{1024}));
  EXPECT_EQ(auditor.counted(), 1024u);
  EXPECT_EQ(auditor.stream()->records(), 1024u);
}

// The pipeline hands every record on once, in order, in batches of any
// size; a counter that says stop stops the reader; its error is rethrown.
TEST(RecordPipeline, HandsOnEveryRecordInOrderAndStopsWhenTold) {
  const std::size_t width = 7, total = 200003;
  std::vector<std::uint16_t> items(total * width);
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = static_cast<std::uint16_t>(i / width);
  for (const std::uint64_t stop_after : {std::uint64_t{0}, std::uint64_t{50000}}) {
    std::uint64_t seen = 0;
    bool in_order = true;
    internal::RecordPipeline pipe(width, [&](const std::uint16_t* batch, std::size_t records) {
      for (std::size_t r = 0; r < records; ++r, ++seen)
        in_order = in_order && batch[r * width] == static_cast<std::uint16_t>(seen) &&
                   batch[r * width + width - 1] == static_cast<std::uint16_t>(seen);
      return stop_after == 0 || seen < stop_after;
    });
    std::size_t pushed = 0, step = 1;
    bool more = true;
    while (more && pushed < total) {
      const std::size_t batch = std::min(total - pushed, step);
      more = pipe.push(items.data() + pushed * width, batch);
      pushed += batch;
      step = step * 3 % 5003 + 1;  // batch sizes from 1 to 5003
    }
    pipe.finish();
    EXPECT_TRUE(in_order);
    if (stop_after == 0) {
      EXPECT_EQ(seen, total);
    } else {
      // The counter stops in the buffer that passed the mark; the reader learns it late.
      EXPECT_GE(seen, stop_after);
      EXPECT_LT(seen, stop_after + internal::RecordPipeline::kBufferItems / width + 1);
      EXPECT_FALSE(more) << "the reader was never told to stop";
    }
  }
  internal::RecordPipeline failing(width, [](const std::uint16_t*, std::size_t) -> bool {
    throw UsageError(Param::n, "counted badly");
  });
  failing.push(items.data(), 1000);
  EXPECT_THROW(failing.finish(), UsageError);
}

TEST(RecordAuditor, ArrayRecordsGetTheChecksOfAFile) {
  const std::vector<std::int64_t> rows = {0, 1, 2, 2, 1, 0, 1, 0, 2};
  const std::vector<std::int64_t> bad = {0, 1, 2, 1, 1, 0};  // record 2 repeats item 1
  RecordOptions o;
  o.n = 3;
  int seen = 0;
  EXPECT_EQ(read_record_array(RecordArray{rows.data(), 3, 3, 8, true}, o,
                              [&](const std::uint16_t*, std::size_t batch) {
                                seen += static_cast<int>(batch);
                                return true;
                              })
                .records,
            3u);
  EXPECT_EQ(seen, 3);
  try {
    read_record_array(RecordArray{bad.data(), 2, 3, 8, true}, o, [](const std::uint16_t*, std::size_t) { return true; });
    FAIL() << "a repeated item was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("record 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_record_array(RecordArray{rows.data(), 3, 4, 8, true}, o,
                                 [](const std::uint16_t*, std::size_t) { return true; }),
               UsageError);
}

}  // namespace
}  // namespace melange

namespace melange {
namespace {

// The repeats of the job's trials as a stream of records sees them: each
// record fed in trial order to a StreamTally of its own.
std::uint64_t stream_repeats(const Job& job, std::uint64_t records) {
  Job first = job;
  first.trials = records;
  first.tallies = {};
  std::vector<std::uint16_t> items(records * static_cast<std::uint64_t>(job.n));
  fill_records(first, std::span<std::uint16_t>(items));
  StreamTally stream(shape_of(job), StreamTestOptions{{1}, std::uint64_t{1} << 30, false});
  for (std::uint64_t r = 0; r < records; ++r) stream.add(items.data() + r * static_cast<std::uint64_t>(job.n));
  stream.flush();
  return stream.repeats().repeats;
}

TEST(SerialRepeats, AreTheStreamsRepeatsOnAnyThreadsAndWithinTheCap) {
  // n = 12 keeps no rank histogram beside the position matrix: the repeats
  // come from the trials' fingerprints (12! = 479,001,600: about 42 repeats
  // among 200,003 trials).
  AuditRequest r = request_for(Algorithm::fisher_yates, 12, 0, 200'003);
  r.job.first = 3;
  r.job.seed = 5;
  r.serial = true;
  r.position = true;
  r.rank = false;
  const AuditPlan plan = plan_audit(r);
  ASSERT_GT(plan.serial_repeat_bytes, 0u);
  const std::uint64_t want = stream_repeats(plan.job, plan.job.trials);
  EXPECT_GT(want, 20u);
  for (int threads : {1, 2}) {
    RunOptions o = plan.run;
    o.threads = threads;
    const std::optional<RepeatCount> got = serial_repeats(plan, o);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->repeats, want) << threads << " threads";
    EXPECT_EQ(got->covered, plan.job.trials);
    EXPECT_FALSE(got->capped || got->exact);
  }
  // Room for 50,000 keys (held twice): the first 50,000 trials.
  AuditPlan small = plan;
  small.serial_repeat_bytes = 50'000 * 2 * sizeof(Fingerprint);
  const std::optional<RepeatCount> capped = serial_repeats(small, plan.run);
  ASSERT_TRUE(capped.has_value());
  EXPECT_TRUE(capped->capped);
  EXPECT_EQ(capped->covered, 50'000u);
  EXPECT_EQ(capped->repeats, stream_repeats(plan.job, 50'000));
  // With a rank histogram the repeats come from it, not from fingerprints.
  AuditRequest ranked = request_for(Algorithm::fisher_yates, 6, 0, 1000);
  ranked.serial = true;
  EXPECT_EQ(plan_audit(ranked).serial_repeat_bytes, 0u);
  EXPECT_FALSE(serial_repeats(plan_audit(ranked), plan.run).has_value());
}

}  // namespace
}  // namespace melange
