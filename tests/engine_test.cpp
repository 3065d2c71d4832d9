// Jobs: the result is a pure function of the job, whatever the thread count
// or split; sampled frequencies agree with the exact oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "melange/audit.hpp"
#include "melange/engine.hpp"
#include "melange/record_shape.hpp"
#include "melange/error.hpp"
#include "melange/exact.hpp"
#include "melange/rank.hpp"
#include "melange/records.hpp"
#include "melange/decision_table.hpp"
#include "melange/serve.hpp"
#include "melange/source.hpp"
#include "melange/trial.hpp"
#include "backend_choice.hpp"   // engine-private (melange_engine_internals)
#include "parallel_chunks.hpp"  // engine-private (melange_engine_internals)

namespace melange {
namespace {

Job make(Algorithm a, int n, std::uint64_t trials, std::uint64_t seed = 1, std::uint64_t first = 0,
         BoundedSpec spec = {}) {
  Job j{.seed = seed, .algorithm = a, .spec = spec, .n = n, .first = first, .trials = trials};
  // partial deals all but one item: a deal, whose rank histogram is small.
  if (a == Algorithm::partial) j.k = n - 1;
  // The weighted orders: weights 1, 2, .., n.
  if (draw_kind(a) == DrawKind::keys)
    for (int i = 1; i <= n; ++i) j.weights.push_back(i);
  // riffle: two riffles, far from uniform at any n here; shelf: two passes
  // of 2 shelves (one of 8), likewise.
  if (a == Algorithm::riffle) j.riffles = 2;
  if (a == Algorithm::shelf) j.shelves = 2, j.passes = 2;
  return j;
}

RunOptions threads(int k) {
  RunOptions o;
  o.threads = k;
  o.backend = "scalar";
  return o;
}

std::string counts(const RankHistogram& h) {
  std::ostringstream s;
  for (std::uint64_t r = 0; r < h.bins(); ++r) s << rank_label(r, h.n()) << "=" << h.counts()[r] << " ";
  return s.str();
}

// Every Algorithm the enum names (algorithm_name's switch names each one, or
// the build fails on -Werror=switch) is in kAllAlgorithms, so with_algorithm
// reaches its code; a value outside the list throws instead of running
// Fisher-Yates.
TEST(Algorithms, EveryNamedAlgorithmIsListedAndDispatched) {
  for (int v = 0; v < 256; ++v) {
    const auto a = static_cast<Algorithm>(v);
    const bool listed =
        std::find(std::begin(kAllAlgorithms), std::end(kAllAlgorithms), a) != std::end(kAllAlgorithms);
    EXPECT_EQ(algorithm_name(a) != "?", listed) << "algorithm value " << v << " named " << algorithm_name(a);
    const auto reached = [&] { return with_algorithm(a, [](auto c) { return decltype(c)::value; }); };
    if (listed)
      EXPECT_EQ(reached(), a) << "algorithm value " << v;
    else
      EXPECT_THROW(reached(), Error) << "algorithm value " << v;
  }
}

TEST(Engine, IdenticalForOneTwoAndSevenThreads) {
  for (Algorithm a : kAllAlgorithms) {
    Job job = make(a, 5, 700'001, 99, 12345);
    job.tallies.set(TallyKind::positions, true);
    const Tally one = run(job, threads(1)).tally;
    EXPECT_EQ(one.trials, job.trials);
    EXPECT_EQ(one[TallyKind::ranks].total(), job.trials);
    for (int k : {2, 7}) EXPECT_TRUE(run(job, threads(k)).tally == one) << algorithm_name(a) << " " << k;
  }
}

TEST(Engine, ShortRunsAreSharedByEveryThread) {
  // Units are even shares in whole groups of 64, at least kMinChunk and at
  // most the backend's unit, so that a run shorter than threads x units
  // still keeps every thread busy.
  using internal::chunk_trials;
  EXPECT_EQ(chunk_trials(100'000, 2, 0), 50'048u);
  EXPECT_EQ(chunk_trials(100'000, 1, 0), 100'032u);
  EXPECT_EQ(chunk_trials(10, 2, 0), internal::kMinChunk);
  EXPECT_EQ(chunk_trials(std::uint64_t{1} << 40, 2, 0), internal::kChunkTrials);
  EXPECT_EQ(chunk_trials(std::uint64_t{1} << 40, 2, 4096), 4096u);
  EXPECT_EQ(chunk_trials(1000, 2, 32), 32u);  // a backend unit below kMinChunk wins
  // A large unit is cut into even rounds: 2 x 2 units, not 4M, 4M and 2M.
  EXPECT_EQ(chunk_trials(10'000'000, 2, std::uint64_t{1} << 22), 2'500'032u);
  // And the split never shows in the result, on any backend.
  for (const char* backend : {"scalar", "simd"}) {
    Job job = make(Algorithm::fisher_yates, 7, 5'003, 3, 77);
    job.tallies.set(TallyKind::positions, true);
    RunOptions o = threads(1);
    o.backend = backend;
    const Tally one = run(job, o).tally;
    o.threads = 3;
    EXPECT_TRUE(run(job, o).tally == one) << backend;
  }
}

TEST(Engine, ShortJobsWithoutADecisionTableGiveTheSameTrials) {
  // Under kTableMinTrials trials no table is built and the reference loop
  // runs (DecisionTables); at it, the table does. Either way, on every
  // backend that holds tables: the reference loop's trials, bit for bit.
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::sort_binary_insertion, Algorithm::sort_v8_timsort})
    for (std::uint64_t trials : {std::uint64_t{64}, kTableMinTrials - 1, kTableMinTrials}) {
      Job job = make(a, 8, trials, 5, 977);
      job.tallies.set(TallyKind::positions, true);
      Tally want = Tally::for_job(job);
      tally_trials(job, job.first, job.first + job.trials, want);
      std::vector<std::uint16_t> rows(job.trials * 8), got_rows(job.trials * 8);
      sample_trials(job, job.first, job.first + job.trials, rows.data());
      for (const char* backend : {"scalar", "simd"}) {
        RunOptions o = threads(2);
        o.backend = backend;
        EXPECT_TRUE(run(job, o).tally == want) << algorithm_name(a) << " " << trials << " " << backend;
        fill_records(job, std::span<std::uint16_t>(got_rows), o);
        EXPECT_EQ(got_rows, rows) << algorithm_name(a) << " " << trials << " " << backend;
      }
    }
}

TEST(Engine, AContextKeepsItsBackendsAndTheirTablesAndChangesNoBit) {
  // Calls through one Context reuse its backend (and the decision table it
  // built at the first call of kTableMinTrials), short calls after it
  // included; every call gives the reference loop's trials.
  Context context;
  for (const char* backend : {"simd", "scalar"})
    for (Algorithm a : {Algorithm::fisher_yates, Algorithm::sort_binary_insertion}) {
      RunOptions o = threads(2);
      o.backend = backend;
      o.context = &context;
      for (std::uint64_t trials : {kTableMinTrials, std::uint64_t{100}, kTableMinTrials}) {
        Job job = make(a, 8, trials, 5, 977 + trials);
        Tally want = Tally::for_job(job);
        tally_trials(job, job.first, job.first + job.trials, want);
        std::vector<std::uint16_t> rows(job.trials * 8), got_rows(job.trials * 8);
        sample_trials(job, job.first, job.first + job.trials, rows.data());
        EXPECT_TRUE(run(job, o).tally == want) << algorithm_name(a) << " " << trials << " " << backend;
        fill_records(job, std::span<std::uint16_t>(got_rows), o);
        EXPECT_EQ(got_rows, rows) << algorithm_name(a) << " " << trials << " " << backend;
      }
    }
  // One backend for each name asked, whatever the jobs and calls: the same
  // object each time, where a call without a Context makes its own.
  EXPECT_EQ(context.backends().size(), 2u);
  const Job job = make(Algorithm::fisher_yates, 8, kTableMinTrials, 5, 1);
  EXPECT_EQ(internal::choose_backend(job, "simd", &context).backend,
            internal::choose_backend(job, "simd", &context).backend);
  EXPECT_NE(internal::choose_backend(job, "simd").backend, internal::choose_backend(job, "simd").backend);
}

TEST(Engine, AnySplitOfTheTrialRangeMergesToTheSameTally) {
  Job whole = make(Algorithm::naive_swap, 6, 300'000, 7, 1'000'000);
  whole.tallies.set(TallyKind::positions, true);
  Job left = whole, right = whole;
  left.trials = 123'457;
  right.first = whole.first + left.trials;
  right.trials = whole.trials - left.trials;
  Tally merged = run(left).tally;
  merged.merge(run(right).tally);
  EXPECT_TRUE(merged == run(whole, threads(2)).tally);
}

TEST(Engine, SampleGivesTheReferencePermutationOfEachTrial) {
  const Job job = make(Algorithm::sort_v8_timsort, 9, 1000, 5, 1ull << 40);
  const std::vector<std::uint16_t> perms = sample(job, threads(2)).permutations;
  ASSERT_EQ(perms.size(), 9000u);
  for (std::uint64_t t = 0; t < job.trials; ++t) {
    std::uint16_t a[9];
    iota_items(a, 9);
    PhiloxSource src(job.seed, job.first + t, job.spec);
    shuffle_as<Algorithm::sort_v8_timsort>(a, Shape{9, 9}, src);
    for (int i = 0; i < 9; ++i) ASSERT_EQ(perms[t * 9 + i], a[i]) << "trial " << t;
  }
}

TEST(Engine, SampleAndAuditAgree) {
  Job job = make(Algorithm::fisher_yates, 5, 20'000, 3, 77);
  const auto perms = sample(job).permutations;
  RankHistogram h = rank_histogram(5);
  for (std::uint64_t t = 0; t < job.trials; ++t) h.add(lehmer_rank(&perms[t * 5], 5));
  EXPECT_EQ(h, run(job).tally[TallyKind::ranks]);
}

// Stream version 1 golden tallies: 1000 trials, n = 4, seed 1, under lemire
// and batched (one word a trial at n = 4). A change here is a new stream
// version, never a silent one.
TEST(Engine, GoldenTalliesAndWordsConsumed) {
  struct Golden {
    Algorithm a;
    BoundedSpec spec;
    std::vector<std::uint64_t> counts;
    std::uint64_t words;
  };
  const std::vector<Golden> golden = {
#include "golden_tallies.inc"
  };
  ASSERT_EQ(golden.size(), 15u);
  for (const Golden& g : golden) {
    const Tally t = run(make(g.a, 4, 1000, 1, 0, g.spec)).tally;
    EXPECT_EQ(t[TallyKind::ranks].counts(), g.counts) << algorithm_name(g.a) << ": " << counts(t[TallyKind::ranks]);
    EXPECT_EQ(t.words, g.words) << algorithm_name(g.a);
  }
}

// FNV-1a over a position matrix: one number that changes with any count.
std::uint64_t fingerprint(const PositionMatrix& m) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint64_t c : m.counts())
    for (int b = 0; b < 64; b += 8) h = (h ^ ((c >> b) & 0xff)) * 0x100000001b3ull;
  return h;
}

// Stream version 1 golden tallies under `batched`, the default: every
// algorithm at n = 5, 13 and 52, the last 1000 trials of the index space
// (seed 7), as a fingerprint of the item x position matrix, words read and
// draws made. Every backend is held to the scalar path elsewhere; this holds
// the scalar path to the stream.
TEST(Engine, GoldenBatchedTalliesAtTheTopOfTheIndexSpace) {
  struct Golden {
    Algorithm a;
    int n;
    std::uint64_t fingerprint, words, draws;
  };
  const std::vector<Golden> golden = {
#include "golden_batched.inc"
  };
  // partial deals n - 1; the weighted orders weigh items 1..n; riffle riffles twice; shelf passes 2 shelves twice
  ASSERT_EQ(golden.size(), 30u);
  std::ostringstream now;
  for (const Golden& g : golden) {
    Job job = make(g.a, g.n, 1000, 7, ~std::uint64_t{0} - 999);
    job.tallies.set(TallyKind::ranks, false);
    job.tallies.set(TallyKind::positions, true);
    const Tally t = run(job, threads(1)).tally;
    std::string name(algorithm_name(g.a));
    std::replace(name.begin(), name.end(), '-', '_');
    now << "    {Algorithm::" << name << ", " << g.n << ", 0x" << std::hex
        << fingerprint(t[TallyKind::positions]) << "ull, " << std::dec << t.words << ", " << t.draws << "},\n";
    EXPECT_EQ(fingerprint(t[TallyKind::positions]), g.fingerprint) << algorithm_name(g.a) << " n " << g.n;
    EXPECT_EQ(t.words, g.words) << algorithm_name(g.a) << " n " << g.n;
    EXPECT_EQ(t.draws, g.draws) << algorithm_name(g.a) << " n " << g.n;
  }
  if (HasFailure()) ADD_FAILURE() << "this build's values:\n" << now.str();
}

// Sampled frequencies agree with the exact distribution (p >= 1e-6: fixed
// seeds, so this never flakes).
TEST(Engine, EveryAlgorithmMatchesItsExactDistribution) {
  for (Algorithm a : kAllAlgorithms)
    for (int n : {4, 5}) {
      for (BoundedSpec spec : {BoundedSpec{}, BoundedSpec{Method::modulo, 3}, BoundedSpec{Method::batched, 32}}) {
        if (max_draw_range(a, Shape{n, n}) > (1u << spec.bits)) continue;
        const Job job = make(a, n, 400'000, 2026, 0, spec);
        const Tally t = run(job, threads(2)).tally;
        // weighted-int-power has no exact law (weighted_test.cpp shows what it does).
        if (a == Algorithm::weighted_int_power || (a == Algorithm::weighted && spec.method != Method::batched))
          continue;
        std::vector<Rational> weights;
        for (double w : job.weights) weights.emplace_back(static_cast<int>(w));
        const ExactDistribution model = a == Algorithm::weighted ? plackett_luce_distribution(a, weights)
                                                                 : exact_distribution(a, shape_of(job), spec);
        AuditOptions o;
        o.model = &model;
        const AuditReport r = analyze(job, t, o);
        ASSERT_TRUE(r.rank.has_value());
        EXPECT_GE(r.rank->fit.p_value, 1e-6)
            << algorithm_name(a) << " n=" << n << " " << method_name(spec.method) << "/" << spec.bits
            << " chi2 " << r.rank->fit.statistic << "\n" << counts(t[TallyKind::ranks]);
        const double mean = static_cast<double>(t.words) / job.trials;
        EXPECT_NEAR(mean, model.mean_words, 0.01) << algorithm_name(a);
      }
    }
}

TEST(Engine, FairPassesAndTheOneLinerFails) {
  const Job fair = make(Algorithm::fisher_yates, 4, 1'000'000, 11);
  const AuditReport f = analyze(fair, run(fair, threads(2)).tally);
  EXPECT_EQ(f.verdict, Verdict::pass) << "p " << f.rank->fit.p_value;
  const Job sort = make(Algorithm::sort_binary_insertion, 4, 1'000'000, 11);
  const Tally st = run(sort, threads(2)).tally;
  const AuditReport s = analyze(sort, st);
  EXPECT_EQ(s.verdict, Verdict::fail);
  EXPECT_GT(s.rank->fit.statistic, 100'000) << counts(st[TallyKind::ranks]);
  EXPECT_NEAR(static_cast<double>(st.draws) / 1e6, 4.5, 0.01) << "comparator calls per trial";
  EXPECT_EQ(st.words, 1'000'000u) << "batched: every trial's coins come from one word";
}

TEST(Engine, ModuloBiasIsDetectedAtEightBits) {
  // Fisher-Yates with 8-bit modulo on 7 items: range 7 does not divide 256.
  Job job = make(Algorithm::fisher_yates, 7, 2'000'000, 5, 0, BoundedSpec{Method::modulo, 8});
  job.tallies.set(TallyKind::positions, true);
  const AuditReport r = analyze(job, run(job, threads(2)).tally);
  EXPECT_EQ(r.verdict, Verdict::fail);
}

TEST(Engine, RankTestNeedsFiveExpectedPerBin) {
  Job job = make(Algorithm::fisher_yates, 8, 100'000);  // 2.5 per bin
  job.tallies.set(TallyKind::positions, true);
  const AuditReport r = analyze(job, run(job).tally);
  EXPECT_FALSE(r.rank.has_value());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("position matrix carries the verdict"), std::string::npos) << r.notes[0];
  ASSERT_TRUE(r.position.has_value());
  EXPECT_TRUE(r.verdict.has_value());
}

TEST(Engine, NothingToTestForASingleItem) {
  Job job = make(Algorithm::fisher_yates, 1, 1000);
  job.tallies.set(TallyKind::positions, true);
  const AuditReport r = analyze(job, run(job).tally);
  EXPECT_FALSE(r.verdict.has_value()) << "one order cannot be biased, nor too uniform";
  EXPECT_FALSE(r.rank.has_value());
  EXPECT_FALSE(r.position.has_value());
  EXPECT_EQ(r.notes.size(), 2u);
}

TEST(Engine, BadJobsAreUsageErrors) {
  EXPECT_THROW(run(make(Algorithm::fisher_yates, 0, 10)), UsageError);
  EXPECT_THROW(run(make(Algorithm::fisher_yates, 4, 0)), UsageError);
  EXPECT_THROW(run(make(Algorithm::sort_v8_timsort, 64, 10)), UsageError);
  EXPECT_THROW(run(make(Algorithm::fisher_yates, 13, 10)), UsageError);  // 13! bins > 1 GiB
  EXPECT_THROW(run(make(Algorithm::fisher_yates, 4, 10), threads(0)), UsageError);
  EXPECT_THROW(run(make(Algorithm::fisher_yates, 300, 10, 1, 0, BoundedSpec{Method::modulo, 8})),
               UsageError);
  Job big = make(Algorithm::fisher_yates, 1025, 10);
  big.tallies.set(TallyKind::ranks, false);
  big.tallies.set(TallyKind::positions, true);
  EXPECT_THROW(run(big), UsageError);
  Job overflow = make(Algorithm::fisher_yates, 4, 10, 1, ~std::uint64_t{0} - 3);
  EXPECT_THROW(run(overflow), UsageError);
}

TEST(Engine, ProgressIsReportedAndEnds) {
  std::uint64_t last_done = 0, calls = 0;
  RunOptions o = threads(2);
  o.progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_LE(done, total);
    last_done = done;
    ++calls;
  };
  const Job job = make(Algorithm::fisher_yates, 4, 3'000'000);
  const Tally with = run(job, o).tally;
  EXPECT_EQ(last_done, job.trials);
  EXPECT_GE(calls, 1u);
  EXPECT_TRUE(with == run(job, threads(1)).tally);
}

// Library errors name the library's parameters, not a front end's flags;
// the CLI spells them as its own.
TEST(Errors, SpeakTheLibrarysLanguage) {
  auto usage_error = [](auto&& call) -> UsageError {
    try {
      call();
    } catch (const UsageError& e) {
      return e;
    }
    ADD_FAILURE() << "no UsageError";
    return UsageError("none");
  };
  Job job;
  job.trials = 0;
  const UsageError none = usage_error([&] { validate(job); });
  EXPECT_EQ(none.param(), Param::trials);
  EXPECT_STREQ(none.what(), "trials must be at least 1");
  EXPECT_EQ(none.render([](Param p) { return p == Param::trials ? std::string("--count") : std::string("?"); }),
            "--count must be at least 1");
  job.trials = 2;
  job.first = ~std::uint64_t{0};
  EXPECT_STREQ(usage_error([&] { validate(job); }).what(),
               "first + trials - 1 is past the last trial index, 2^64 - 1");
  // None of the library's messages spells a command-line flag.
  Job big;
  big.n = 12;
  big.trials = 1;
  RunOptions small;
  small.memory_cap = 1 << 20;
  Job bits;
  bits.trials = 1;
  bits.spec = BoundedSpec{Method::lemire, 0};
  RunOptions bad_backend;
  bad_backend.backend = "abacus";
  for (const UsageError& e : {usage_error([&] { run(big, small); }), usage_error([&] { validate(bits); }),
                              usage_error([&] { run(bits, bad_backend); }),
                              usage_error([&] { exact_distribution(Algorithm::naive_swap, 12); })}) {
    EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
    EXPECT_NE(e.param(), Param::none) << e.what();
  }
}

// A record quoted into a message keeps its braces: only the message's own
// tokens are spelled, and the record's "{n}" stays as it was read.
TEST(Errors, QuotedTextKeepsItsBraces) {
  RecordOptions o;
  o.n = 3;
  std::istringstream in("0 1 2\n{n} 1\n");
  try {
    read_record_ranks(in, o, [](const std::uint64_t*, std::size_t) { return true; });
    FAIL() << "a wrong record was read";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.param(), Param::skip_invalid);
    const std::string text = e.render([](Param p) { return "--" + std::string(param_name(p)); });
    EXPECT_NE(text.find("\"{n} 1\""), std::string::npos) << text;
    EXPECT_NE(text.find("pass --skip_invalid to count"), std::string::npos) << text;
    EXPECT_NE(std::string(e.what()).find("\"{n} 1\""), std::string::npos) << e.what();
  }
  // Every parameter's token is spelled, the last one included.
  const Error last(kLastParam, "use {" + std::string(param_name(kLastParam)) + "}");
  EXPECT_EQ(last.render([](Param) { return std::string("X"); }), "use X");
  // A message made without a parameter is given as it is.
  EXPECT_EQ(Error("a {n} b").render([](Param) { return std::string("X"); }), "a {n} b");
}

// `batched` cuts its batches from the schedule greedily (contract §2):
// fisher-yates at n = 52 reads 11 words when nothing is rejected, about
// 11.005 on average; any split, thread count or offset near 2^64 agrees.
TEST(Batched, BatchesOfTheScheduleAndWordsPerTrial) {
  std::vector<int> sizes;
  for (const ScheduleBatch& b : schedule_batches(Algorithm::fisher_yates, Shape{52, 52})) sizes.push_back(b.count);
  EXPECT_EQ(sizes, (std::vector<int>{4, 4, 4, 4, 4, 4, 5, 5, 6, 7, 4}));
  EXPECT_EQ(schedule_batches(Algorithm::fisher_yates, Shape{4, 4}).size(), 1u);
  const BoundedSpec batched{Method::batched, 32};
  auto positions_only = [](Job j) {
    j.tallies.set(TallyKind::ranks, false);
    j.tallies.set(TallyKind::positions, true);
    return j;
  };
  const Tally t = run(positions_only(make(Algorithm::fisher_yates, 52, 200'000, 5, 0, batched)), threads(2)).tally;
  const ExactDistribution e = exact_distribution(Algorithm::fisher_yates, 5, batched);
  double expected = 0;
  for (const ScheduleBatch& b : schedule_batches(Algorithm::fisher_yates, Shape{52, 52}))
    expected += 4294967296.0 / (4294967296.0 - static_cast<double>((std::uint64_t{1} << 32) % b.product));
  const double mean = static_cast<double>(t.words) / t.trials;
  EXPECT_GE(t.words, 11u * t.trials);
  EXPECT_NEAR(mean, expected, 0.002) << "expected " << expected;
  EXPECT_NEAR(expected, 11.005, 0.001);
  EXPECT_LT(e.mean_words, 1.0000001) << "n = 5: one batch of P = 120";
  // Near the top of the index space, any split equals the whole.
  const Job top = positions_only(make(Algorithm::naive_swap, 13, 777, 9, ~std::uint64_t{0} - 776, batched));
  const Tally whole = run(top, threads(1)).tally;
  EXPECT_TRUE(whole == run(top, threads(2)).tally);
  EXPECT_EQ(whole.trials, 777u);
}

}  // namespace
}  // namespace melange

// Records' shape, as both front ends infer it (record_shape.hpp): the CLI
// from a file's first lines or a .npy header, Python from an array's shape.
TEST(RecordShape, RowsGiveNOrDealsAndRefuseWhatContradictsThem) {
  const auto spelled = [](const std::string& text) {
    return melange::spell_tokens(text, [](melange::Param p) { return "--" + std::string(melange::param_name(p)); });
  };
  melange::RecordShape free;
  melange::infer_row_shape(free, 6, "the array's shape", "the array's records");
  EXPECT_EQ(free.n, 6);
  EXPECT_EQ(free.k, 0);
  EXPECT_EQ(spelled(free.inferred), "n 6 from the array's shape");

  melange::RecordShape deal{.n = 52, .n_given = true};
  melange::infer_row_shape(deal, 5, "the array's shape", "the array's records");
  EXPECT_EQ(deal.k, 5);
  EXPECT_EQ(spelled(deal.inferred), "deals of k 5 from the array's shape (5 of the 52 items; --k says otherwise)");

  melange::RecordShape longer{.n = 4, .n_given = true};
  try {
    melange::infer_row_shape(longer, 6, "the first record", "records", " (the first reads \"5 1 2 4 3 0\")");
    ADD_FAILURE() << "rows longer than n were taken";
  } catch (const melange::UsageError& e) {
    EXPECT_EQ(e.param(), melange::Param::n);
    EXPECT_EQ(e.render([](melange::Param p) { return std::string(melange::param_name(p)) + "="; }),
              "records have 6 items (the first reads \"5 1 2 4 3 0\"); n= is 4: drop n= (melange reads it from the "
              "records) or fix it");
  }
  melange::RecordShape wrong_k{.n = 52, .k = 5, .n_given = true};
  EXPECT_THROW(melange::infer_row_shape(wrong_k, 7, "the first record", "records"), melange::UsageError);

  melange::RecordShape text;
  melange::infer_text_shape(text, "# a comment\n3 1 2 4\n2 4 3 1\n");
  EXPECT_EQ(text.n, 4);
  EXPECT_EQ(text.base, 1);
  EXPECT_EQ(spelled(text.inferred),
            "n 4 from the first record; 1-based (the first record holds 1..4, no 0; --base 0 says otherwise)");
  melange::RecordShape letters;
  melange::infer_text_shape(letters, "C A B\nB C A\n");
  EXPECT_EQ(letters.labels, (std::vector<std::string>{"A", "B", "C"}));
  melange::RecordShape binary;
  EXPECT_THROW(melange::require_given_shape(binary, "u8"), melange::UsageError);
}
