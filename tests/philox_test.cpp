// Philox4x32-10 against Random123: its published known answers and its code.
#include <Random123/philox.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "melange/philox.hpp"

namespace melange {
namespace {

struct Kat {
  PhiloxCounter ctr;
  PhiloxKey key;
  PhiloxCounter expected;
};

// The three canonical rows of Random123's kat_vectors, so that the test can
// never pass on zero rows.
const Kat kCanonical[] = {
    {{{0, 0, 0, 0}}, {{0, 0}}, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
    {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
     {{0xffffffff, 0xffffffff}},
     {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
    {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
     {{0xa4093822, 0x299f31d0}},
     {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
};

// Every "philox4x32 10" row of the gzipped kat_vectors file.
std::vector<Kat> read_kat_file(const char* path) {
  std::vector<Kat> rows;
  gzFile f = gzopen(path, "rb");
  if (!f) return rows;
  char line[512];
  while (gzgets(f, line, sizeof line)) {
    std::istringstream in(line);
    std::string name;
    int rounds = 0;
    in >> name >> rounds;
    if (name != "philox4x32" || rounds != 10) continue;
    Kat k{};
    in >> std::hex;
    for (auto& w : k.ctr.v) in >> w;
    for (auto& w : k.key.v) in >> w;
    for (auto& w : k.expected.v) in >> w;
    if (in) rows.push_back(k);
  }
  gzclose(f);
  return rows;
}

std::string hex(const PhiloxCounter& c) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%08x %08x %08x %08x", c.v[0], c.v[1], c.v[2], c.v[3]);
  return buf;
}

TEST(Philox, CanonicalKnownAnswers) {
  for (const Kat& k : kCanonical) EXPECT_EQ(hex(philox4x32_10(k.ctr, k.key)), hex(k.expected));
}

TEST(Philox, EveryKnownAnswerInRandom123File) {
  const std::vector<Kat> rows = read_kat_file(MELANGE_KAT_VECTORS);
  ASSERT_GE(rows.size(), 3u) << "no philox4x32 10 rows read from " << MELANGE_KAT_VECTORS
                             << " (install librandom123-doc)";
  int canonical_seen = 0;
  for (const Kat& k : rows) {
    EXPECT_EQ(hex(philox4x32_10(k.ctr, k.key)), hex(k.expected));
    for (const Kat& c : kCanonical) canonical_seen += (c.ctr == k.ctr && c.key == k.key);
  }
  EXPECT_EQ(canonical_seen, 3) << "the file lacks the canonical rows";
}

TEST(Philox, MatchesRandom123OnAMillionRandomInputs) {
  r123::Philox4x32_R<10> reference;
  std::mt19937_64 gen(20261130);
  int mismatches = 0;
  for (int i = 0; i < 1'000'000; ++i) {
    const std::uint64_t a = gen(), b = gen(), c = gen();
    const PhiloxCounter ctr{{std::uint32_t(a), std::uint32_t(a >> 32), std::uint32_t(b),
                             std::uint32_t(b >> 32)}};
    const PhiloxKey key{{std::uint32_t(c), std::uint32_t(c >> 32)}};
    r123::Philox4x32_R<10>::ctr_type rc = {{ctr.v[0], ctr.v[1], ctr.v[2], ctr.v[3]}};
    r123::Philox4x32_R<10>::key_type rk = {{key.v[0], key.v[1]}};
    const auto want = reference(rc, rk);
    const PhiloxCounter got = philox4x32_10(ctr, key);
    for (int w = 0; w < 4; ++w) mismatches += got.v[w] != want.v[w];
    if (mismatches) {
      ADD_FAILURE() << "input " << i << ": ctr " << hex(ctr) << " got " << hex(got);
      break;
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(Philox, RoundCountMatters) {
  // Seven rounds differ from ten: the template parameter is honoured.
  const PhiloxCounter zero{{0, 0, 0, 0}};
  EXPECT_NE(hex(philox4x32_with_rounds<7>(zero, PhiloxKey{{0, 0}})), hex(philox4x32_10(zero, PhiloxKey{{0, 0}})));
}

}  // namespace
}  // namespace melange
