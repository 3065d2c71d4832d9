// Bounded integers (contract §2): exhaustive proofs over every source
// word at narrow widths, edge cases at 32 bits, errors and stability.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/bounded.hpp"
#include "melange/error.hpp"
#include "melange/source.hpp"
#include "melange/stream.hpp"

namespace melange {
namespace {

// Feeds `first` and then `after` forever, counting the words it hands out.
struct ScriptedWords {
  std::uint32_t first, after;
  int used = 0;
  std::uint32_t next() { return used++ == 0 ? first : after; }
};

// A b-bit source word y placed in the top bits of a 32-bit word.
std::uint32_t word_of(std::uint64_t y, int bits) { return static_cast<std::uint32_t>(y << (32 - bits)); }

struct Walk {
  std::vector<std::uint64_t> accepted;  // per value: source words that end a path there
  std::uint64_t rejected = 0;           // source words that send the loop round again
};

// Every source word as the first word of a draw. A draw that asks for a
// second word rejected the first; it is finished with the largest word,
// which every method accepts, and counted as rejected.
Walk walk_all_words(std::uint64_t s, BoundedSpec spec) {
  Walk w;
  w.accepted.assign(s, 0);
  const std::uint64_t span = std::uint64_t{1} << spec.bits;
  for (std::uint64_t y = 0; y < span; ++y) {
    ScriptedWords src{word_of(y, spec.bits), word_of(span - 1, spec.bits)};
    const std::uint32_t v = bounded(src, s, spec);
    EXPECT_LT(v, s);
    if (src.used == 1) {
      ++w.accepted[v];
    } else {
      EXPECT_EQ(src.used, 2) << "the largest word must be accepted";
      ++w.rejected;
    }
  }
  return w;
}

class Exhaustive : public ::testing::TestWithParam<int> {};

TEST_P(Exhaustive, UnbiasedMethodsGiveEveryValueEqualWeight) {
  const int bits = GetParam();
  const std::uint64_t span = std::uint64_t{1} << bits;
  for (Method m : {Method::lemire, Method::rejection}) {
    for (std::uint64_t s = 1; s <= span; ++s) {
      const BoundedSpec spec{m, bits};
      const Walk w = walk_all_words(s, spec);
      const std::uint64_t t = (span - s) % s;
      ASSERT_EQ(w.rejected, t) << method_name(m) << " s=" << s;
      const std::uint64_t each = (span - t) / s;
      for (std::uint64_t v = 0; v < s; ++v)
        ASSERT_EQ(w.accepted[v], each) << method_name(m) << " s=" << s << " value " << v;
      const DrawLaw law = draw_law(s, spec);
      ASSERT_TRUE(law.uniform());
      ASSERT_EQ(law.words_num * (span - w.rejected), law.words_den * span) << "s=" << s;
    }
  }
}

TEST_P(Exhaustive, BiasedMethodsGiveTheArithmeticCounts) {
  const int bits = GetParam();
  const std::uint64_t span = std::uint64_t{1} << bits;
  for (Method m : {Method::modulo, Method::multiply}) {
    for (std::uint64_t s = 1; s <= span; ++s) {
      const BoundedSpec spec{m, bits};
      const Walk w = walk_all_words(s, spec);
      ASSERT_EQ(w.rejected, 0u);
      // Each value gets floor(2^b/s) or one more; exactly 2^b mod s get one more.
      std::uint64_t heavy = 0;
      for (std::uint64_t v = 0; v < s; ++v) {
        ASSERT_TRUE(w.accepted[v] == span / s || w.accepted[v] == span / s + 1);
        heavy += w.accepted[v] == span / s + 1;
        ASSERT_EQ(w.accepted[v], draw_law(s, spec).weight(v)) << method_name(m) << " s=" << s;
      }
      ASSERT_EQ(heavy, span % s) << method_name(m) << " s=" << s;
      if (m == Method::modulo) {  // the heavy values are the smallest ones
        for (std::uint64_t v = 0; v < s; ++v)
          ASSERT_EQ(w.accepted[v], span / s + (v < span % s)) << "s=" << s;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, Exhaustive, ::testing::Values(8, 12));

TEST(Bounded, ModuloAt8BitsRange52) {
  const Walk w = walk_all_words(52, BoundedSpec{Method::modulo, 8});
  std::map<std::uint64_t, int> values_with;  // preimage count -> how many values
  for (auto c : w.accepted) ++values_with[c];
  EXPECT_EQ(values_with[5], 48);
  EXPECT_EQ(values_with[4], 4);
  EXPECT_EQ(values_with.size(), 2u);
}

TEST(Bounded, EdgeRangesAt32Bits) {
  for (Method m : kAllMethods) {
    const BoundedSpec spec{m, 32};
    for (std::uint32_t x : {0u, 1u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu}) {
      ScriptedWords one{x, 0xffffffffu};
      EXPECT_EQ(bounded(one, 1, spec), 0u);
      ScriptedWords two{x, 0xffffffffu};
      const std::uint32_t coin = bounded(two, 2, spec);
      EXPECT_EQ(coin, m == Method::modulo || m == Method::rejection ? x & 1u : x >> 31);
      ScriptedWords half{x, 0xffffffffu};
      const std::uint32_t h = bounded(half, std::uint64_t{1} << 31, spec);
      EXPECT_EQ(h, m == Method::modulo || m == Method::rejection ? x & 0x7fffffffu : x >> 1);
      ScriptedWords full{x, 0xffffffffu};
      EXPECT_EQ(bounded(full, std::uint64_t{1} << 32, spec), x) << method_name(m);
      EXPECT_EQ(full.used, 1);
    }
  }
}

TEST(Bounded, LemireRejectsOnlyWordZeroAtRange2To32Minus1) {
  const std::uint64_t s = 0xffffffffull;
  const BoundedSpec spec{Method::lemire, 32};
  ScriptedWords zero{0, 5};
  EXPECT_EQ(bounded(zero, s, spec), (5ull * s) >> 32);
  EXPECT_EQ(zero.used, 2);
  for (std::uint32_t x : {1u, 2u, 0x80000000u, 0xffffffffu}) {
    ScriptedWords src{x, 0};
    EXPECT_EQ(bounded(src, s, spec), (std::uint64_t{x} * s) >> 32);
    EXPECT_EQ(src.used, 1);
  }
  // Classic rejection throws away t = 2^32 mod s = 1 word too, the smallest.
  ScriptedWords r{0, 7};
  EXPECT_EQ(bounded(r, s, BoundedSpec{Method::rejection, 32}), 7u);
  EXPECT_EQ(r.used, 2);
}

TEST(Bounded, RangeAboveSourceIsAnError) {
  EXPECT_THROW(validate_bounded(BoundedSpec{Method::modulo, 8}, 257), UsageError);
  EXPECT_NO_THROW(validate_bounded(BoundedSpec{Method::modulo, 8}, 256));
  EXPECT_THROW(validate_bounded(BoundedSpec{Method::lemire, 0}, 1), UsageError);
  EXPECT_THROW(validate_bounded(BoundedSpec{Method::lemire, 33}, 1), UsageError);
  EXPECT_THROW(validate_bounded(BoundedSpec{Method::lemire, 32}, 0), UsageError);
  EXPECT_THROW(validate_bounded(BoundedSpec{Method::lemire, 32}, (std::uint64_t{1} << 32) + 1),
               UsageError);
  EXPECT_NO_THROW(validate_bounded(BoundedSpec{Method::lemire, 32}, std::uint64_t{1} << 32));
}

// Stream version 1 golden output: 16 draws of range 200 from an 8-bit source
// (t = 56, so the unbiased methods reject about one word in five) under seed
// 2026, stream 9. A change here is a new stream version, never a silent one.
struct Golden {
  Method method;
  std::vector<std::uint32_t> values;
  std::uint64_t words;
};

TEST(Bounded, StabilityOfFirstSixteenDrawsAndWordsConsumed) {
  const std::vector<Golden> golden = {
#include "golden_bounded.inc"
  };
  ASSERT_EQ(golden.size(), 4u);
  for (const Golden& g : golden) {
    PhiloxStream words(2026, 9);
    std::vector<std::uint32_t> got;
    for (int i = 0; i < 16; ++i) got.push_back(bounded(words, 200, BoundedSpec{g.method, 8}));
    EXPECT_EQ(got, g.values) << method_name(g.method);
    EXPECT_EQ(words.words_consumed(), g.words) << method_name(g.method);
  }
}

TEST(Bounded, MethodNamesRoundTrip) {
  for (Method m : kAllMethods) EXPECT_EQ(parse_method(method_name(m)), m);
  EXPECT_FALSE(parse_method("lemire2").has_value());
}

// Every Method the enum names (method_name's switch names each one, or the
// build fails on -Werror=switch) is in kAllMethods, so with_method reaches
// its code; a value outside the list throws instead of running another's.
TEST(Bounded, EveryNamedMethodIsListedAndDispatched) {
  for (int v = 0; v < 256; ++v) {
    const auto m = static_cast<Method>(v);
    const bool listed = std::find(std::begin(kAllMethods), std::end(kAllMethods), m) != std::end(kAllMethods);
    EXPECT_EQ(method_name(m) != "?", listed) << "method value " << v << " named " << method_name(m);
    const auto reached = [&] { return with_method(m, [](auto c) { return decltype(c)::value; }); };
    if (listed)
      EXPECT_EQ(reached(), m) << "method value " << v;
    else
      EXPECT_THROW(reached(), Error) << "method value " << v;
  }
}

// ---- batched ----------------------------------------------------------------

// Every word of a narrowed 16-bit source through the same batch routine, with
// products up to 2^8: each tuple of digits comes from exactly as many accepted
// words, and exactly 2^16 mod P words are rejected. So the digits are exactly
// uniform and independent.
TEST(Batched, ExhaustiveOver16BitWordsDigitsAreUniformAndIndependent) {
  const std::vector<std::vector<std::uint64_t>> batches = {
      {3, 4, 5}, {2, 2, 2, 2, 2, 2, 2, 2}, {7, 11}, {256}, {5, 1, 3}, {13, 19}, {6, 6, 7}};
  for (const auto& ranges : batches) {
    std::uint64_t product = 1;
    for (auto r : ranges) product *= r;
    std::map<std::vector<std::uint32_t>, std::uint64_t> tuples;
    std::uint64_t rejected = 0;
    std::vector<std::uint32_t> digits(ranges.size());
    for (std::uint64_t x0 = 0; x0 < (1u << 16); ++x0) {
      if (!internal::batch_digits<16>(x0, ranges.data(), static_cast<int>(ranges.size()), product, digits.data())) {
        ++rejected;
        continue;
      }
      for (std::size_t i = 0; i < ranges.size(); ++i) ASSERT_LT(digits[i], ranges[i]);
      ++tuples[digits];
    }
    EXPECT_EQ(tuples.size(), product) << "every tuple of digits occurs";
    const std::uint64_t each = ((1u << 16) - rejected) / product;
    for (const auto& [tuple, count] : tuples) EXPECT_EQ(count, each) << "product " << product;
    EXPECT_EQ(rejected, (std::uint64_t{1} << 16) % product) << "product " << product;
  }
}

// The digits are the mixed-radix digits of floor(x0 P / 2^32), checked with
// 128-bit arithmetic on random words and ranges.
TEST(Batched, DigitsAreTheMixedRadixDigitsOfTheScaledWord) {
  PhiloxStream words(7, 7);
  for (int trial = 0; trial < 20000; ++trial) {
    std::vector<std::uint64_t> ranges;
    std::uint64_t product = 1;
    while (true) {
      const std::uint64_t r = 1 + words.next() % 300;
      if (!ranges.empty() && product * r > kBatchProduct) break;
      ranges.push_back(r);
      product *= r;
      if (ranges.size() == 6) break;
    }
    const std::uint64_t x0 = words.next();
    std::vector<std::uint32_t> digits(ranges.size());
    internal::batch_digits<32>(x0, ranges.data(), static_cast<int>(ranges.size()), product, digits.data());
    unsigned __int128 q = (static_cast<unsigned __int128>(x0) * product) >> 32, rebuilt = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) rebuilt = rebuilt * ranges[i] + digits[i];
    ASSERT_EQ(static_cast<std::uint64_t>(rebuilt), static_cast<std::uint64_t>(q));
  }
}

// A batch of one range is Lemire's method, word for word.
TEST(Batched, OneAtATimeIsLemire) {
  for (std::uint64_t s : {std::uint64_t{2}, std::uint64_t{52}, std::uint64_t{1000003},
                          std::uint64_t{1} << 31, (std::uint64_t{1} << 32) - 1, std::uint64_t{1} << 32}) {
    PhiloxStream a(3, 4), b(3, 4);
    for (int i = 0; i < 1000; ++i)
      ASSERT_EQ(bounded(a, s, BoundedSpec{Method::batched, 32}), bounded(b, s, BoundedSpec{Method::lemire, 32}));
    EXPECT_EQ(a.words_consumed(), b.words_consumed());
  }
  EXPECT_THROW(validate_bounded(BoundedSpec{Method::batched, 31}, 10), UsageError);
}

}  // namespace
}  // namespace melange

namespace melange {
namespace {

// The batch plan (planned_batches) read instead of cutting batches per trial
// gives the same items and reads the same words, rejections included, for
// every schedule algorithm and shape the GPU reads a plan for.
TEST(Batched, APlannedScheduleGivesTheSameTrials) {
  const BoundedSpec batched{Method::batched, 32};
  std::uint64_t total_rejected = 0;
  for (Algorithm a : {Algorithm::fisher_yates, Algorithm::naive_swap, Algorithm::sattolo, Algorithm::partial})
    for (int n : {2, 3, 9, 13, 52, 100, 128})
      for (int k : {n, n / 2 + 1, 1}) {
        if (a != Algorithm::partial && k != n) continue;
        const Shape shape{n, k};
        const std::vector<PlannedBatch> plan = planned_batches(a, shape);
        ASSERT_FALSE(plan.empty());
        std::uint64_t rejected_words = 0;
        for (std::uint64_t t = 0; t < 3000; ++t) {
          std::vector<std::uint16_t> cut(n), planned(n);
          for (int i = 0; i < n; ++i) cut[i] = planned[i] = static_cast<std::uint16_t>(i);
          BasicPhiloxSource<> lazy(77, t, batched, a, shape);
          BasicPhiloxSource<MethodSet::batched, BatchesAt> read(77, t, batched, a, shape, BatchesAt{plan.data()});
          shuffle(a, cut.data(), shape, lazy);
          shuffle(a, planned.data(), shape, read);
          ASSERT_EQ(planned, cut) << algorithm_name(a) << " n " << n << " k " << k << " trial " << t;
          ASSERT_EQ(read.words_consumed(), lazy.words_consumed()) << algorithm_name(a) << " n " << n << " trial " << t;
          ASSERT_EQ(read.draws_made(), lazy.draws_made());
          rejected_words += lazy.words_consumed() - plan.size();
        }
        total_rejected += rejected_words;
      }
  // Batches are rejected with probability below 2^-8: the redraws ran too.
  EXPECT_GT(total_rejected, 100u);
}

TEST(Batched, ThePlanCarriesEachBatchsThreshold) {
  for (const PlannedBatch& b : planned_batches(Algorithm::fisher_yates, Shape{52, 52})) {
    EXPECT_EQ(b.threshold, (std::uint64_t{1} << 32) % b.product);
    EXPECT_LE(b.product, kBatchProduct);
  }
  EXPECT_EQ(planned_batches(Algorithm::fisher_yates, Shape{52, 52}).size(), 11u);  // contract §2
  EXPECT_TRUE(planned_batches(Algorithm::sort_binary_insertion, Shape{8, 8}).empty());
}

}  // namespace
}  // namespace melange
