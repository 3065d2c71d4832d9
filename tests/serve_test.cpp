// Serving records into the caller's memory (contract §5): every
// algorithm, both item widths, any split of a range into calls, pieces with
// bounded memory, and the bounded integers of one stream.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "melange/backend_table.hpp"
#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/integers.hpp"
#include "melange/serve.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

// One job per algorithm, with its parameters: a deal for partial, weights
// for the weighted orders, three riffles for riffle.
std::vector<Job> every_algorithm(int n) {
  std::vector<Job> jobs;
  for (const Algorithm a : kAllAlgorithms) {
    Job job;
    job.algorithm = a;
    job.n = n;
    job.seed = 0x5eed0000u + static_cast<unsigned>(a);
    job.first = (std::uint64_t{1} << 32) - 1000;  // across the 2^32 boundary of the stream index
    job.trials = 3001;                            // not a whole number of SIMD batches
    if (a == Algorithm::partial) job.k = n / 2 + 1;
    if (draw_kind(a) == DrawKind::keys)
      for (int i = 0; i < n; ++i) job.weights.push_back(1.0 + 0.5 * i);
    if (a == Algorithm::riffle) job.riffles = 3;
    if (a == Algorithm::shelf) job.shelves = 3, job.passes = 2;
    jobs.push_back(job);
  }
  return jobs;
}

// The reference: the scalar trial body, a trial at a time.
std::vector<std::uint16_t> reference(const Job& job) {
  std::vector<std::uint16_t> out(job.trials * static_cast<std::uint64_t>(record_items(job)));
  sample_trials(job, job.first, job.first + job.trials, out.data());
  return out;
}

TEST(Serve, EveryAlgorithmBothWidthsEveryBackendEqualTheReference) {
  for (const int n : {4, 13, 52}) {
    for (Job job : every_algorithm(n)) {
      if (job.n > max_items(job.algorithm)) continue;
      const std::vector<std::uint16_t> want = reference(job);
      for (const char* backend : {"scalar", "auto"})
        for (const int threads : {1, 3}) {
          RunOptions o;
          o.backend = backend;
          o.threads = threads;
          std::vector<std::uint16_t> wide(want.size());
          std::vector<std::uint8_t> narrow(want.size());
          fill_records(job, std::span<std::uint16_t>(wide), o);
          fill_records(job, std::span<std::uint8_t>(narrow), o);
          const std::string where = std::string(algorithm_name(job.algorithm)) + " n " + std::to_string(n) + " " +
                                    backend + " threads " + std::to_string(threads);
          EXPECT_EQ(wide, want) << where;
          EXPECT_TRUE(std::equal(narrow.begin(), narrow.end(), want.begin())) << where;
        }
    }
  }
}

TEST(Serve, AnySplitIntoCallsGivesTheBitsOfOneCall) {
  Job job;
  job.n = 52;
  job.first = 12345;
  job.trials = 5000;
  std::vector<std::uint8_t> whole(job.trials * 52);
  fill_records(job, std::span<std::uint8_t>(whole));
  // Uneven pieces: 1 record, a SIMD batch less one, odd sizes, the rest.
  std::vector<std::uint8_t> pieces(whole.size());
  std::uint64_t done = 0;
  RunOptions two;
  two.threads = 2;
  for (const std::uint64_t size : {std::uint64_t{1}, std::uint64_t{15}, std::uint64_t{17}, std::uint64_t{999},
                                   std::uint64_t{1024}, std::uint64_t{2944}}) {
    Job part = job;
    part.first = job.first + done;
    part.trials = size;
    fill_records(part, std::span<std::uint8_t>(pieces.data() + done * 52, size * 52), two);
    done += size;
  }
  ASSERT_EQ(done, job.trials);
  EXPECT_EQ(pieces, whole);
}

TEST(Serve, PiecesComeInOrderWithBoundedMemoryAndStopWhenAsked) {
  Job job;
  job.algorithm = Algorithm::partial;
  job.n = 300;  // uint16 items
  job.k = 7;
  job.trials = 10'001;
  std::vector<std::uint16_t> whole(job.trials * 7);
  fill_records(job, std::span<std::uint16_t>(whole));
  std::vector<std::uint16_t> joined;
  std::uint64_t expect_first = job.first, calls = 0;
  const ServeInfo info = for_each_piece(
      job, 1000,
      RecordPieces<std::uint16_t>([&](std::span<const std::uint16_t> items, std::uint64_t first, std::uint64_t records) {
        EXPECT_EQ(first, expect_first);
        EXPECT_LE(records, 1000u);
        EXPECT_EQ(items.size(), records * 7);
        joined.insert(joined.end(), items.begin(), items.end());
        expect_first += records;
        ++calls;
        return true;
      }));
  EXPECT_EQ(calls, 11u);
  EXPECT_EQ(joined, whole);
  EXPECT_FALSE(info.backend.empty());

  calls = 0;
  for_each_piece(job, 4096, RecordPieces<std::uint16_t>([&](std::span<const std::uint16_t>, std::uint64_t, std::uint64_t) {
                   return ++calls < 2;
                 }));
  EXPECT_EQ(calls, 2u) << "false stops the pieces";
}

TEST(Serve, WrongRequestsAreUsageErrorsBeforeAnyWork) {
  Job job;
  job.n = 300;
  job.trials = 2;
  std::vector<std::uint8_t> bytes(600);
  EXPECT_THROW(fill_records(job, std::span<std::uint8_t>(bytes)), UsageError) << "uint8 holds items up to 255";
  job.n = 4;
  EXPECT_THROW(fill_records(job, std::span<std::uint8_t>(bytes)), UsageError) << "600 items for 2 records of 4";
  try {
    fill_records(job, std::span<std::uint8_t>(bytes.data(), 7));
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("the buffer holds 7 items"), std::string::npos) << e.what();
  }
  job.trials = 0;  // serving nothing is no error
  EXPECT_NO_THROW(fill_records(job, std::span<std::uint8_t>()));
  job.trials = 1;
  EXPECT_THROW(for_each_piece(job, 0, RecordPieces<std::uint8_t>([](auto, auto, auto) { return true; })), UsageError);
  job.n = 0;
  EXPECT_THROW(fill_records(job, std::span<std::uint8_t>()), UsageError);
}

// The integers of one stream are one endless sequence: any split of it
// into fill() calls gives the same values, and the first values are those
// of bounded() on the stream (a batch of one range under `batched`: its
// first digit).
TEST(Serve, IntegersSplitFreelyAndFollowTheStream) {
  for (const Method m : kAllMethods)
    for (const std::uint64_t range : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{10}, std::uint64_t{52},
                                      std::uint64_t{1} << 24, (std::uint64_t{1} << 32) - 5, std::uint64_t{1} << 32}) {
      const BoundedSpec spec{m, 32};
      std::vector<std::uint32_t> one(5000), split(5000);
      fill_integers(77, 3, range, spec, one);
      BoundedIntegers values(77, 3, range, spec);
      std::size_t done = 0;
      for (const std::size_t size : {1u, 6u, 7u, 8u, 100u, 4878u}) {
        values.fill(std::span<std::uint32_t>(split.data() + done, size));
        done += size;
      }
      ASSERT_EQ(done, split.size());
      EXPECT_EQ(split, one) << method_name(m) << " range " << range;
      for (const std::uint32_t v : one) ASSERT_LT(v, range) << method_name(m);
      PhiloxStream words(77, 3);
      EXPECT_EQ(one[0], bounded(words, range, spec)) << method_name(m) << " range " << range;
    }
  // Under batched, range 10 takes 7 values a word (10^7 <= 2^24 < 10^8).
  BoundedIntegers ten(1, 0, 10);
  for (int i = 0; i < 7000; ++i) ten.next();
  EXPECT_GE(ten.words_consumed(), 1000u);
  EXPECT_LE(ten.words_consumed(), 1000u + 20u) << "a batch is rejected with probability < 2^-8";
  EXPECT_THROW(BoundedIntegers(1, 0, 0), UsageError);
  EXPECT_THROW(BoundedIntegers(1, 0, 100, BoundedSpec{Method::lemire, 4}), UsageError);
  // A range above 2^32 fills 64-bit values only: a 32-bit fill would cut them.
  BoundedIntegers wide(1, 0, ValuesUpTo{std::uint64_t{1} << 40});
  std::vector<std::uint32_t> narrow(4);
  EXPECT_THROW(wide.fill(narrow), UsageError);
  EXPECT_EQ(wide.drawn(), 0u) << "refused before any value was drawn";
}

// A buffered stream hands out PhiloxStream's words, however its blocks are
// made (the reference, this CPU's SIMD kernel), across refills and from
// any word it is moved on to.
TEST(Serve, ABufferedStreamIsTheStream) {
  for (const BlockFill fill : {BlockFill{nullptr}, fastest_block_fill()}) {
    BufferedStream words(9, 1234, fill);
    PhiloxStream ref(9, 1234);
    // Through fills of 1, 2, 4, .. kBlocks blocks and on.
    for (std::uint64_t i = 0; i < 3 * BufferedStream::kBlocks * 4 + 7; ++i) {
      ASSERT_EQ(words.words_consumed(), i);
      ASSERT_EQ(words.next(), ref.next()) << i;
    }
    EXPECT_EQ(words.words_consumed(), ref.words_consumed());
    for (const std::uint64_t at : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{513}, std::uint64_t{4} << 32}) {
      BufferedStream moved(9, 1234, fill);
      moved.skip_to(at);
      PhiloxStream from(9, 1234, at / 4);
      for (std::uint64_t k = 0; k < at % 4; ++k) from.next();
      EXPECT_EQ(moved.words_consumed(), at);
      for (int k = 0; k < 600; ++k) ASSERT_EQ(moved.next(), from.next()) << "from word " << at << " + " << k;
    }
  }
}

// Ranges above 2^32 (contract §2): Lemire's method on 64-bit words of two
// stream words, the first the high half, redrawn below (2^64 - s) mod s;
// 2^64 takes the word itself. Any split gives one call's values.
TEST(Serve, IntegersAboveTwoToThe32AreLemireOn64BitWords) {
  for (const std::uint64_t last : {std::uint64_t{1} << 32, (std::uint64_t{3} << 62) - 1, std::uint64_t{1} << 63,
                                   ~std::uint64_t{0} - 1, ~std::uint64_t{0}})
    for (const Method m : {Method::batched, Method::lemire}) {
      BoundedIntegers values(5, 8, ValuesUpTo{last}, BoundedSpec{m, 32}, fastest_block_fill());
      PhiloxStream words(5, 8);
      const unsigned __int128 s = static_cast<unsigned __int128>(last) + 1;
      const auto word = [&] {
        const std::uint64_t a = words.next();
        return a << 32 | words.next();
      };
      std::vector<std::uint64_t> split(3000);
      std::size_t done = 0;
      for (const std::size_t size : {1u, 2u, 997u, 2000u}) {
        values.fill_shifted(split.data() + done, size, 0);
        done += size;
      }
      int rejected = 0;
      for (const std::uint64_t got : split) {
        // The 128-bit product's high half, unless its low half is below
        // (2^64 - s) mod s: the definition, in 128-bit arithmetic.
        const unsigned __int128 t = (static_cast<unsigned __int128>(1) << 64) % s;
        unsigned __int128 p = word() * s;
        while (static_cast<std::uint64_t>(p) < t) {
          p = word() * s;
          ++rejected;
        }
        ASSERT_EQ(got, static_cast<std::uint64_t>(p >> 64)) << "last " << last;
        ASSERT_LE(got, last);
      }
      EXPECT_EQ(values.words_consumed(), words.words_consumed()) << "last " << last;
      if (last == std::uint64_t{1} << 63) {
        EXPECT_GT(rejected, 1000) << "half the words are rejected at 2^63 + 1";
      }
    }
  EXPECT_THROW(BoundedIntegers(1, 0, ValuesUpTo{std::uint64_t{1} << 40}, BoundedSpec{Method::modulo, 32}), UsageError);
  EXPECT_THROW(BoundedIntegers(1, 0, ValuesUpTo{std::uint64_t{1} << 40}, BoundedSpec{Method::lemire, 31}), UsageError);
}

}  // namespace
}  // namespace melange
