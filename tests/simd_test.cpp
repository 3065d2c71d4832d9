// The SIMD backend is bit-identical to the scalar reference: words, tallies,
// sampled permutations and words consumed, for every algorithm with a draw
// schedule and every method, on every architecture this CPU runs, at trial
// offsets and counts that are not multiples of the lane count.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "plan.hpp"  // simd-private (melange_simd_internals)
#include "melange/deal.hpp"
#include "melange/engine.hpp"
#include "melange/simd/backend.hpp"
#include "melange/stream.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

#define REQUIRE_SIMD() \
  if (simd::available_architectures().empty()) GTEST_SKIP() << "this CPU runs no SIMD architecture"

TEST(SimdWords, EqualTheScalarStreams) {
  REQUIRE_SIMD();
  for (std::uint64_t first : {std::uint64_t{0}, std::uint64_t{5}, std::uint64_t{0xfffffffcu},
                              std::uint64_t{0x123456789abcull}}) {
    const std::uint64_t streams = 21;  // two batches of eight and a tail
    std::vector<std::uint32_t> out(streams * 9);
    simd::stream_words(77, first, streams, 9, out.data());
    std::uint32_t checksum = 0;
    for (std::uint64_t s = 0; s < streams; ++s) {
      PhiloxStream ref(77, first + s);
      for (int k = 0; k < 9; ++k) {
        const std::uint32_t w = ref.next();
        ASSERT_EQ(out[s * 9 + k], w) << "stream " << first + s << " word " << k;
        if (k < 4) checksum ^= w;
      }
    }
    EXPECT_EQ(simd::philox_checksum(77, first, streams), checksum);
    for (const std::string& arch : simd::available_architectures())  // the limit pinned to each
      EXPECT_EQ(simd::philox_checksum(77, first, streams, arch), checksum) << arch;
  }
}

// One stream's blocks a lane each, on every architecture this CPU runs:
// the block counter's carry into its high word, group tails and a scalar
// tail all give PhiloxStream's words.
TEST(SimdWords, OneStreamsBlocksEqualTheScalarStream) {
  REQUIRE_SIMD();
  for (const std::string& arch : simd::available_architectures())
    for (const std::uint64_t first_block : {std::uint64_t{0}, std::uint64_t{3}, std::uint64_t{0xfffffff0u}})
      for (const std::uint64_t blocks : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{33}, std::uint64_t{128}}) {
        const std::uint64_t stream = (std::uint64_t{1} << 33) + 5;
        std::vector<std::uint32_t> out(blocks * 4 + 1, 0xdeadbeefu);
        ASSERT_TRUE(simd::stream_blocks_on(arch, 77, stream, first_block, blocks, out.data())) << arch;
        PhiloxStream ref(77, stream, first_block);
        for (std::uint64_t i = 0; i < blocks * 4; ++i)
          ASSERT_EQ(out[i], ref.next()) << arch << " block " << first_block + i / 4 << " word " << i % 4;
        EXPECT_EQ(out[blocks * 4], 0xdeadbeefu) << arch << ": wrote past the blocks";
      }
  std::uint32_t none[4];
  EXPECT_FALSE(simd::stream_blocks_on("no-such-arch", 1, 0, 0, 1, none));
}

// The riffles' sorting network sorts every input: at 16 keys every 0/1
// input (by the 0-1 principle, every input then); at 64, shuffled distinct
// keys of every count up to 64, the slots above them holding keys above
// all others, as the lanes pad a deck.
template <std::size_t Count>
bool network_sorts(const std::array<lanes::Comparator, Count>& network, std::vector<std::uint32_t> keys) {
  for (const auto c : network)
    if (keys[c.low] > keys[c.high]) std::swap(keys[c.low], keys[c.high]);
  return std::is_sorted(keys.begin(), keys.end());
}

TEST(SimdPlan, TheSortingNetworkSortsEveryInput) {
  constexpr auto sixteen = lanes::sorting_network<16>();
  EXPECT_EQ(sixteen.size(), 63u) << "Batcher's count for 16 keys";
  for (std::uint32_t bits = 0; bits < (1u << 16); ++bits) {
    std::vector<std::uint32_t> keys(16);
    for (int i = 0; i < 16; ++i) keys[i] = bits >> i & 1u;
    ASSERT_TRUE(network_sorts(sixteen, keys)) << "0/1 input " << bits;
  }
  constexpr auto network = lanes::sorting_network<simd::internal::kCardItems>();
  EXPECT_EQ(network.size(), 543u) << "Batcher's count for 64 keys";
  std::mt19937 gen(11);
  for (int n = 1; n <= simd::internal::kCardItems; ++n) {
    std::vector<std::uint32_t> keys(simd::internal::kCardItems, ~0u);
    for (int i = 0; i < n; ++i) keys[i] = static_cast<std::uint32_t>(i);
    for (int round = 0; round < 200; ++round) {
      std::shuffle(keys.begin(), keys.begin() + n, gen);
      ASSERT_TRUE(network_sorts(network, keys)) << "n " << n << " round " << round;
    }
  }
}

// The algorithm table's fixes_slots_in_turn (which the GPU threads read)
// agrees with what the SIMD plan finds by reading the schedule itself.
TEST(SimdPlan, TheRowsSayWhichSchedulesFixTheirSlots) {
  for (const melange::AlgorithmRow& row : melange::kAlgorithmRows) {
    if (row.draws != melange::DrawKind::schedule) {
      EXPECT_FALSE(row.fixes_slots_in_turn) << row.name;
      continue;
    }
    for (int n : {5, 52}) {
      melange::Job job;
      job.algorithm = row.algorithm;
      job.n = n;
      job.k = row.deals ? 3 : 0;
      EXPECT_EQ(simd::internal::make_plan(job).fixes_slots, row.fixes_slots_in_turn) << row.name << " n " << n;
    }
  }
}

TEST(SimdPlan, DivisionByInvariantIntegersIsExact) {
  std::mt19937 gen(7);
  auto check = [&](std::uint32_t d) {
    const simd::internal::Divisor div(d);
    auto quotient = [&](std::uint32_t y) {
      const auto t = static_cast<std::uint32_t>((std::uint64_t{div.m} * y) >> 32);
      return (t + ((y - t) >> div.sh1)) >> div.sh2;
    };
    for (std::uint32_t y : {0u, 1u, d - 1, d, d + 1, 0x7fffffffu, 0xfffffffeu, 0xffffffffu, static_cast<std::uint32_t>(gen()), static_cast<std::uint32_t>(gen())})
      ASSERT_EQ(quotient(y), y / d) << "d=" << d << " y=" << y;
  };
  for (std::uint32_t d = 1; d <= 70000; ++d) check(d);
  for (std::uint32_t d : {0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu}) check(d);
}

// The decks in a register share one among four (two) while the draws,
// taken in reverse, have swapped only positions below 16 (32).
TEST(SimdPlan, DecksShareARegisterWhileTheLastDrawsStayLow) {
  const auto below = [](Algorithm a, int n, std::uint32_t bound) {
    Job j;
    j.algorithm = a;
    j.n = n;
    return simd::internal::last_draws_below(simd::internal::make_plan(j).draws, bound);
  };
  EXPECT_EQ(below(Algorithm::fisher_yates, 52, 16), 15u) << "i = 15 down to 1, j <= i";
  EXPECT_EQ(below(Algorithm::fisher_yates, 52, 32), 31u);
  EXPECT_EQ(below(Algorithm::sattolo, 52, 16), 15u) << "i = 15 down to 1, j < i";
  EXPECT_EQ(below(Algorithm::fisher_yates, 13, 16), 12u) << "every draw";
  EXPECT_EQ(below(Algorithm::naive_swap, 52, 32), 0u) << "its j reaches every slot on every draw";
  EXPECT_EQ(below(Algorithm::naive_swap, 16, 16), 16u);
  EXPECT_EQ(below(Algorithm::naive_swap, 17, 16), 0u);
  // Draws as (range, position), in schedule order.
  const auto schedule = [](std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> draws) {
    std::vector<simd::internal::DrawPlan> plan;
    for (auto [range, position] : draws) plan.push_back({range, position, 0, simd::internal::Divisor(range)});
    return simd::internal::last_draws_below(plan, 16);
  };
  EXPECT_EQ(schedule({{3, 2}, {17, 1}, {2, 1}}), 1u) << "a range above stops the count";
  EXPECT_EQ(schedule({{3, 16}, {16, 15}, {2, 1}}), 2u) << "so does a position";
  EXPECT_EQ(schedule({{17, 16}, {16, 15}}), 1u) << "range 16: j <= 15";
}

// A lane's swap writes the slot's item out where no later draw can reach
// the slot (kernel.hpp's slot_fixing_batch): the plan says so, and which
// slots stay open to the end.
TEST(SimdPlan, ADrawFixesItsSlotWhereNoLaterDrawReachesIt) {
  const auto plan = [](Algorithm a, int n) {
    Job j;
    j.algorithm = a;
    j.n = n;
    return simd::internal::make_plan(j);
  };
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::sattolo}) {
    const simd::internal::Plan p = plan(a, 1024);
    EXPECT_TRUE(p.fixes_slots) << algorithm_name(a);
    EXPECT_EQ(p.open_slots, std::vector<std::uint32_t>{0}) << algorithm_name(a) << ": no draw fixes slot 0";
  }
  EXPECT_FALSE(plan(Algorithm::naive_swap, 1024).fixes_slots) << "its j reaches every slot on every draw";
  // Draws as (range, position), in schedule order.
  const auto fixes = [](std::initializer_list<std::pair<std::uint32_t, std::uint32_t>> draws) {
    std::vector<simd::internal::DrawPlan> plan;
    for (auto [range, position] : draws) plan.push_back({range, position, 0, simd::internal::Divisor(range)});
    return simd::internal::draws_fix_their_slots(plan, 4);
  };
  EXPECT_TRUE(fixes({{4, 3}, {3, 2}, {2, 1}}));
  EXPECT_TRUE(fixes({{4, 3}, {2, 1}})) << "slot 2 stays open";
  EXPECT_FALSE(fixes({{3, 2}, {3, 1}})) << "a later range of 3 reaches slot 2";
  EXPECT_FALSE(fixes({{3, 2}, {2, 2}})) << "slot 2 drawn again";
}

// The rows that make a group's batched digits four words side by side
// (plan.hpp's DigitRows) give each draw its digit and leave each word's x
// where its batch alone would (internal::batch_digits): the rows past a
// word's end multiply by 1 and write only the spare slot.
TEST(SimdPlan, DigitRowsMakeEveryBatchsDigitsAndLeaveItsX) {
  std::mt19937_64 random(17);
  int words_checked = 0;
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::sattolo, Algorithm::naive_swap})
    for (int n : {2, 5, 13, 52, 255, 1000}) {
      const Job job{.algorithm = a, .n = n, .tallies = {TallyKind::positions}};
      const simd::internal::Plan p = simd::internal::make_plan(job);
      const simd::internal::DigitRows& rows = p.digit_rows;
      constexpr std::size_t kWords = simd::internal::DigitRows::kWords;
      ASSERT_EQ(rows.blocks.size(), (p.words.size() + kWords - 1) / kWords) << algorithm_name(a) << " n " << n;
      for (int round = 0; round < 100; ++round) {
        std::vector<std::uint32_t> digits(p.draws.size() + 1, ~0u);  // the last: the spare slot
        for (std::size_t b = 0; b < rows.blocks.size(); ++b) {
          const simd::internal::DigitRows::Block& block = rows.blocks[b];
          std::uint64_t x[kWords], x0[kWords];
          for (std::size_t w = 0; w < kWords; ++w) x0[w] = x[w] = random() & 0xffffffffu;
          for (std::size_t r = 0; r < block.rows; ++r)
            for (std::size_t w = 0; w < kWords; ++w) {
              const simd::internal::DigitRows::Row& row = rows.rows[block.first_row + r];
              const std::uint64_t m = x[w] * row.s[w];
              digits[row.out[w]] = static_cast<std::uint32_t>(m >> 32);
              x[w] = m & 0xffffffffu;
            }
          for (std::size_t w = 0; w < kWords && b * kWords + w < p.words.size(); ++w) {
            const simd::internal::WordPlan& word = p.words[b * kWords + w];
            std::vector<std::uint64_t> ranges;
            for (std::uint32_t d = 0; d < word.count; ++d) ranges.push_back(p.draws[word.first + d].s);
            std::vector<std::uint32_t> expected(word.count);
            const bool accepted = melange::internal::batch_digits<32>(
                x0[w], ranges.data(), static_cast<int>(word.count), word.product, expected.data());
            for (std::uint32_t d = 0; d < word.count; ++d)
              ASSERT_EQ(digits[word.first + d], expected[d])
                  << algorithm_name(a) << " n " << n << " word " << b * kWords + w << " draw " << d;
            ASSERT_EQ(x[w], (x0[w] * word.product) & 0xffffffffu)
                << algorithm_name(a) << " n " << n << " word " << b * kWords + w << ": x from " << x0[w];
            ASSERT_EQ(x[w] >= block.threshold[w], accepted)
                << algorithm_name(a) << " n " << n << " word " << b * kWords + w << ": x " << x[w] << " from "
                << x0[w] << ", threshold " << block.threshold[w];
            ++words_checked;
          }
        }
      }
    }
  EXPECT_GT(words_checked, 10'000);
}

struct Case {
  Algorithm algorithm;
  int n;
  BoundedSpec spec;
  int k = 0;        // partial: items dealt
  int riffles = 0;  // riffle
  int shelves = 0, passes = 0;  // shelf
};

std::vector<Case> cases() {
  std::vector<Case> c;
  const BoundedSpec specs[] = {{Method::lemire, 32},   {Method::modulo, 32},  {Method::rejection, 32},
                               {Method::multiply, 32}, {Method::modulo, 8},   {Method::lemire, 7},
                               {Method::rejection, 6}, {Method::multiply, 6}, {Method::lemire, 3},
                               {Method::batched, 32}};
  // Every algorithm with a schedule: a new one is covered here by itself.
  for (Algorithm a : kAllAlgorithms)
    if (draw_kind(a) == DrawKind::schedule && a != Algorithm::partial)
      for (int n : {3, 4, 5, 8, 13, 52, 64, 65})  // 64: the widest deck a register holds
      for (BoundedSpec s : specs)
        if (max_draw_range(a, Shape{n, n}) <= (std::uint64_t{1} << s.bits)) c.push_back({a, n, s});
  // Deals of every size class: one item, a few, all of them (k = n draws a
  // last range of 1), and poker's 5 of 52 with hands and categories.
  for (int n : {3, 8, 13, 52})
    for (int k : {1, 3, 5, n})
      for (BoundedSpec s : specs)
        if (k <= n && static_cast<std::uint64_t>(n) <= (std::uint64_t{1} << s.bits))
          c.push_back({Algorithm::partial, n, s, k});
  // Riffles, sorted in the lanes up to 64 cards and 26 riffles: one riffle
  // (digits of one bit, 32 to a batch), seven, and the most that fit.
  for (int n : {2, 3, 8, 13, 52, 64})
    for (int riffles : {1, 7, simd::internal::kRiffleDigitBits})
      for (BoundedSpec s : specs)
        if (riffles <= s.bits) c.push_back({Algorithm::riffle, n, s, 0, riffles});
  // Shelf machines, sorted in the lanes up to 64 cards: two shelves (a
  // batch of many draws), ten once and twice, and the most shelves and passes.
  for (int n : {2, 3, 8, 13, 52, 64})
    for (auto [shelves, passes] : {std::pair{2, 1}, {10, 1}, {10, 2}, {kMaxShelves, kMaxPasses}})
      for (BoundedSpec s : specs)
        if (static_cast<std::uint64_t>(shelves) <= (std::uint64_t{1} << s.bits))
          c.push_back({Algorithm::shelf, n, s, 0, 0, shelves, passes});
  // Every coin algorithm through its decision table: one word under
  // `batched`, a word a coin otherwise (whatever the bits).
  for (Algorithm a : kAllAlgorithms)
    if (draw_kind(a) == DrawKind::coins)
      for (int n : {2, 3, 4, 5, 8})
        for (BoundedSpec s : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::lemire, 32},
                              BoundedSpec{Method::modulo, 8}})
          c.push_back({a, n, s});
  return c;
}

Job job_for(const Case& c, std::uint64_t seed, std::uint64_t first, std::uint64_t trials) {
  Job j{.seed = seed, .algorithm = c.algorithm, .spec = c.spec, .n = c.n, .first = first, .trials = trials,
        .tallies = {TallyKind::positions}};
  j.tallies.set(TallyKind::ranks, c.n <= 8);
  j.riffles = c.riffles;
  j.shelves = c.shelves;
  j.passes = c.passes;
  // A record's own statistics, counted from the wide path's rows: for
  // riffles every one, and rising sequences wherever the items are wide.
  j.tallies.set(TallyKind::rises, c.algorithm != Algorithm::partial && c.n > kPackedItems);
  if (draw_kind(c.algorithm) == DrawKind::cards)
    for (TallyKind k : {TallyKind::rises, TallyKind::valleys, TallyKind::guesses, TallyKind::shelf_guesses})
      j.tallies.set(k);
  if (c.algorithm == Algorithm::partial) {
    j.k = c.k;
    j.tallies.set(TallyKind::ranks, deal_count(c.n, c.k) != 0 && deal_count(c.n, c.k) <= 200'000);
    j.tallies.set(TallyKind::hands, c.k < c.n);
    j.tallies.set(TallyKind::poker, c.n == 52 && c.k == 5);
  }
  return j;
}

RunOptions on(const std::string& k, int threads) {
  RunOptions o;
  o.backend = k;
  o.threads = threads;
  return o;
}

TEST(SimdEquality, TalliesMatchTheScalarReference) {
  REQUIRE_SIMD();
  int compared = 0;
  for (const Case& c : cases())
    for (std::uint64_t seed : {std::uint64_t{1}, std::uint64_t{0xdeadbeefcafef00dull}})
      for (auto [first, trials] : {std::pair<std::uint64_t, std::uint64_t>{0, 20'003},
                                   {13, 4'099}, {0xfffffff9ull, 1'001}}) {
        // Card shuffles: many draws a deck, and every record kind counted.
        const std::uint64_t share = draw_kind(c.algorithm) == DrawKind::cards ? 16 : c.n > 8 ? 4 : 1;
        const Job job = job_for(c, seed, first, trials / share);
        const RunResult ref = run(job, on("scalar", 1));
        for (const std::string& arch : simd::available_architectures())
        for (int threads : {1, 2}) {
          const RunResult got = run(job, on(arch, threads));
          ASSERT_EQ(got.backend, "simd");
          ASSERT_EQ(got.arch, arch);
          ASSERT_TRUE(got.tally == ref.tally)
              << algorithm_name(c.algorithm) << " n=" << c.n << " " << method_name(c.spec.method)
              << "/" << c.spec.bits << " seed " << seed << " first " << first << " threads "
              << threads << ": words " << got.tally.words << " vs " << ref.tally.words;
          ++compared;
        }
      }
  EXPECT_GT(compared, 500);
}

// Jobs that count positions alone: up to 64 items on VBMI each lane's
// inverse permutation is built in a register and counted in bit planes
// (lanes_avx512vbmi.hpp, deck_counters_avx512.hpp); elsewhere, and from 65
// items to 255 everywhere, Fisher-Yates and Sattolo count each slot's item
// as a draw fixes it (kernel_wide-inl.hpp's count_slots: items as bytes,
// rows 64 apart up to 64 items and 256 beyond), and the naive swap takes
// the wide path. Every swap schedule (naive-swap's j reaches every slot),
// methods that reject often (their lanes resume on the scalar path from the
// first word they rejected, at any word, several times a trial), calls long
// enough to drain the planes' 16s many times, a range that starts inside a
// lane group, one shorter than a group, and ranges of one to three groups
// (count_slots draws each group's successor between its swaps, the first
// group before them).
TEST(SimdEquality, PositionsAloneMatchTheScalarReference) {
  REQUIRE_SIMD();
  int compared = 0;
  for (Algorithm a : kAllAlgorithms)
    if (draw_kind(a) == DrawKind::schedule && a != Algorithm::partial)
      for (int n : {2, 9, 13, 17, 52, 63, 64, 65, 130, 255})  // 17: naive-swap reaches position 16 on every draw
        for (BoundedSpec s : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::lemire, 7},
                              BoundedSpec{Method::rejection, 6}, BoundedSpec{Method::modulo, 32}})
          if (max_draw_range(a, Shape{n, n}) <= (std::uint64_t{1} << s.bits))
            for (auto [first, trials] : {std::pair<std::uint64_t, std::uint64_t>{0, n > 64 ? 20'001 : 70'001},
                                         {0xfffffff9ull, 1'001}, {5, 7}, {0, 16}, {1, 40}}) {
              const Job job{.seed = 11, .algorithm = a, .spec = s, .n = n, .first = first, .trials = trials,
                            .tallies = {TallyKind::positions}};
              const RunResult ref = run(job, on("scalar", 1));
              for (const std::string& arch : simd::available_architectures())
                for (int threads : {1, 2}) {
                  const RunResult got = run(job, on(arch, threads));
                  ASSERT_EQ(got.arch, arch);
                  ASSERT_TRUE(got.tally == ref.tally)
                      << algorithm_name(a) << " n=" << n << " " << method_name(s.method) << "/" << s.bits
                      << " first " << first << " on " << arch << ", threads " << threads << ": words "
                      << got.tally.words << " vs " << ref.tally.words;
                  ++compared;
                }
            }
  EXPECT_GT(compared, 100);
}

// The wide path counts positions in 16-bit cells: one call long enough for
// a cell to pass 65,535 (position 0 holds each of 9 items 1/9 of the time)
// must flush them in time. The engine's chunks are shorter, so the backend
// is called directly. At n = 9 the slots are counted as they are fixed
// (count_slots) on the architectures without VBMI.
TEST(SimdEquality, TheWidePathsCellsAreFlushedBeforeTheyWrap) {
  REQUIRE_SIMD();
  const Job job{.seed = 7, .algorithm = Algorithm::fisher_yates, .n = 9, .trials = 700'000,
                .tallies = {TallyKind::positions}};
  Tally ref = Tally::for_job(job);
  tally_trials(job, 0, job.trials, ref);
  const std::vector<std::uint64_t>& cells = ref[TallyKind::positions].counts();
  EXPECT_GT(*std::max_element(cells.begin(), cells.end()), std::uint64_t{0xFFFF});
  for (const std::string& arch : simd::available_architectures()) {
    Tally got = Tally::for_job(job);
    simd::make_backend(arch)->run_range(job, 0, job.trials, got);
    EXPECT_TRUE(got == ref) << arch << ": words " << got.words << " vs " << ref.words;
  }
}

// From 256 items the wide path stages whole groups' rows and counts them a
// block of positions at a time (WideCounters): a run of several stages, a
// stage cut short by the end of a call, rows in blocks that do not divide
// n, and lanes resumed after a rejection (batched, lemire/11). Fisher-Yates
// and Sattolo fix their slots (slot_fixing_batch writes the slots); the
// naive swap's rows are staged by WideCounters::add_group.
TEST(SimdEquality, TheWidePathsStagedRowsMatchTheScalarReference) {
  REQUIRE_SIMD();
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::sattolo, Algorithm::naive_swap})
    for (int n : {256, 300, 1024})
      for (BoundedSpec s : {BoundedSpec{Method::batched, 32}, BoundedSpec{Method::lemire, 11}}) {
        const Job job{.seed = 5, .algorithm = a, .spec = s, .n = n, .first = 3,
                      .trials = 2'100, .tallies = {TallyKind::positions}};
        const RunResult ref = run(job, on("scalar", 1));
        for (const std::string& arch : simd::available_architectures())
          for (int threads : {1, 2})
            ASSERT_TRUE(run(job, on(arch, threads)).tally == ref.tally)
                << algorithm_name(a) << " n=" << n << " " << method_name(s.method) << " on " << arch << ", threads "
                << threads << ": words " << run(job, on(arch, threads)).tally.words << " vs " << ref.tally.words;
      }
}

TEST(SimdEquality, SampledPermutationsMatchTheScalarReference) {
  REQUIRE_SIMD();
  for (const Case& c : cases()) {
    // Enough trials for a decision table where the job has one (kTableMinTrials).
    const Job job = job_for(c, 31337, 1'000'003, c.n <= kMaxTableItems ? kTableMinTrials + 517 : 517);
    const auto ref = sample(job, on("scalar", 1)).permutations;
    for (const std::string& arch : simd::available_architectures())
    for (int threads : {1, 2})
      ASSERT_EQ(sample(job, on(arch, threads)).permutations, ref)
          << algorithm_name(c.algorithm) << " n=" << c.n << " k=" << c.k << " " << method_name(c.spec.method)
          << "/" << c.spec.bits;
  }
}

// Fisher-Yates at n = 8 under `batched` runs through a one-batch decision
// table (P = 8!); a word rejected there (P x0 mod 2^32 < 2^32 mod P, about
// 1 in 220,000) sends its lane to the scalar path. Streams that reject are
// searched for, then run inside lane groups on every architecture.
TEST(SimdEquality, RejectedBatchesInTheTablePathMatchTheScalarReference) {
  REQUIRE_SIMD();
  Case c{Algorithm::fisher_yates, 8, {Method::batched, 32}};
  const std::uint64_t seed = 5, threshold = (std::uint64_t{1} << 32) % 40320;
  std::vector<std::uint64_t> rejecting;
  for (std::uint64_t t = 0; rejecting.size() < 3; ++t) {
    PhiloxStream s(seed, t);
    if (static_cast<std::uint32_t>(std::uint64_t{s.next()} * 40320) < threshold) rejecting.push_back(t);
  }
  for (std::uint64_t t : rejecting) {
    const Job job = job_for(c, seed, t - std::min<std::uint64_t>(t, 37), kTableMinTrials);  // a table's worth
    // The reference loop itself, draw by draw: no table.
    Tally ref = Tally::for_job(job);
    tally_trials(job, job.first, job.first + job.trials, ref);
    std::vector<std::uint16_t> ref_rows(job.trials * c.n);
    sample_trials(job, job.first, job.first + job.trials, ref_rows.data());
    for (const std::string& arch : simd::available_architectures()) {
      const RunResult got = run(job, on(arch, 1));
      EXPECT_TRUE(got.tally == ref) << arch << " stream " << t << ": words " << got.tally.words << " vs "
                                    << ref.words;
      EXPECT_EQ(sample(job, on(arch, 1)).permutations, ref_rows) << arch << " stream " << t;
    }
    EXPECT_GT(ref.words, job.trials) << "a rejected word is counted";
  }
}

TEST(SimdBackend, IsTheDefaultAndFallsBackWithANote) {
  REQUIRE_SIMD();
  Job fy;
  fy.trials = 100;
  EXPECT_EQ(run(fy).backend, "simd") << "auto picks the SIMD backend for Fisher-Yates";
  EXPECT_EQ(run(fy).arch, simd::available_architectures().front()) << "on the widest architecture";
  Job sort = fy;
  sort.algorithm = Algorithm::sort_binary_insertion;
  sort.n = kMaxTableItems + 1;  // no decision table: the coins are drawn one by one
  const RunResult r = run(sort, on("simd", 1));
  EXPECT_EQ(r.backend, "scalar");
  EXPECT_NE(r.note.find("scalar path"), std::string::npos) << r.note;
  EXPECT_TRUE(r.tally == run(sort, on("scalar", 1)).tally);
}

// A table job's call ends with a flush that walks the table: from n = 7 the
// backend asks for calls of at least 64 trials an entry, so that the walk
// weighs little; other jobs keep the engine's unit (0).
TEST(SimdBackend, TableJobsAskForCallsLongEnoughForTheirFlush) {
  REQUIRE_SIMD();
  const auto simd_backend = simd::make_backend();
  ASSERT_TRUE(simd_backend);
  Job job;
  job.trials = 1;
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::sort_binary_insertion}) {
    job.algorithm = a;
    job.n = 8;
    EXPECT_GE(simd_backend->preferred_chunk(job), 64u * 40'320) << algorithm_name(a);
    job.n = 7;
    EXPECT_GE(simd_backend->preferred_chunk(job), 64u * 5'040) << algorithm_name(a);
    for (int n : {4, 52}) {
      job.n = n;
      EXPECT_EQ(simd_backend->preferred_chunk(job), 0u) << algorithm_name(a) << " n=" << n;
    }
  }
}

TEST(SimdBackend, InventoryReportsIt) {
  const auto inv = backend_inventory();
  ASSERT_EQ(inv[1].name, "simd");
  EXPECT_TRUE(inv[1].compiled);
  EXPECT_EQ(inv[1].available, !simd::available_architectures().empty());
  EXPECT_EQ(inv[1].archs, simd::available_architectures());
}

// Every algorithm either has a draw schedule, and then a SIMD kernel the
// backend takes, or draws coins and runs in the lanes through its decision
// table up to kMaxTableItems, on the scalar path above. An algorithm added
// with neither fails this test.
TEST(SimdBackend, EveryAlgorithmHasAKernelOrIsACoinAlgorithm) {
  REQUIRE_SIMD();
  const auto simd_backend = simd::make_backend();
  ASSERT_TRUE(simd_backend);
  for (Algorithm a : kAllAlgorithms) {
    Job job;
    job.algorithm = a;
    job.n = 6;
    job.k = a == Algorithm::partial ? 4 : 0;
    job.trials = 1;
    if (draw_kind(a) == DrawKind::schedule) {
      EXPECT_GT(scheduled_draws(a, shape_of(job)), 0) << algorithm_name(a) << " has an empty schedule";
      EXPECT_TRUE(simd_backend->supports(job)) << algorithm_name(a) << " has a schedule but no SIMD kernel";
      // The plan the kernels run is the schedule, draw for draw.
      const auto plan = simd::internal::make_plan(job);
      ASSERT_EQ(plan.draws.size(), static_cast<std::size_t>(scheduled_draws(a, shape_of(job))));
      for (int k = 0; k < scheduled_draws(a, shape_of(job)); ++k) {
        EXPECT_EQ(plan.draws[k].s, scheduled_draw(a, shape_of(job), k).range);
        EXPECT_EQ(plan.draws[k].i, scheduled_draw(a, shape_of(job), k).position);
      }
    } else if (draw_kind(a) == DrawKind::keys) {
      // Floating point keys: the scalar code computes them (contract §3).
      for (int i = 0; i < job.n; ++i) job.weights.push_back(1.0 + i);
      EXPECT_FALSE(simd_backend->supports(job)) << algorithm_name(a);
    } else if (draw_kind(a) == DrawKind::cards) {
      // The card shuffles sort their keys in the lanes up to kCardItems
      // cards (riffles up to kRiffleDigitBits riffles); larger decks run on
      // the reference path.
      if (a == Algorithm::riffle) {
        job.riffles = 3;
        EXPECT_TRUE(simd_backend->supports(job)) << algorithm_name(a);
        job.n = simd::internal::kCardItems + 1;
        EXPECT_FALSE(simd_backend->supports(job)) << algorithm_name(a) << " at n " << job.n;
        job.n = simd::internal::kCardItems;
        job.riffles = simd::internal::kRiffleDigitBits + 1;
        EXPECT_FALSE(simd_backend->supports(job)) << algorithm_name(a) << " of " << job.riffles << " riffles";
      } else {
        job.shelves = 10, job.passes = 1;
        EXPECT_TRUE(simd_backend->supports(job)) << algorithm_name(a);
        job.n = simd::internal::kCardItems + 1;
        EXPECT_FALSE(simd_backend->supports(job)) << algorithm_name(a) << " at n " << job.n;
      }
    } else {
      EXPECT_TRUE(uses_coins(a)) << algorithm_name(a) << " has neither a schedule, coins nor keys";
      EXPECT_TRUE(simd_backend->supports(job)) << algorithm_name(a) << " has no table at n 6";
      job.n = kMaxTableItems + 1;
      EXPECT_FALSE(simd_backend->supports(job)) << algorithm_name(a) << " at n " << job.n;
    }
  }
}

}  // namespace
}  // namespace melange
