// Reading other programs' permutations (contract §4): every format
// gives the same records, every wrong record is named, and block boundaries
// change nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <vector>

#include "melange/engine.hpp"
#include "melange/error.hpp"
#include "melange/npy.hpp"
#include "melange/rank.hpp"
#include "melange/records.hpp"
#include "melange/trial.hpp"

namespace melange {
namespace {

using Rows = std::vector<std::vector<int>>;

Rows read_all(const std::string& bytes, RecordOptions o, RecordStats* stats = nullptr) {
  std::istringstream in(bytes);
  Rows rows;
  const RecordStats s = read_records(in, o, [&](const std::uint16_t* items, std::size_t records) {
    for (std::size_t r = 0; r < records; ++r) rows.emplace_back(items + r * o.n, items + (r + 1) * o.n);
    return true;
  });
  if (stats) *stats = s;
  return rows;
}

RecordOptions text(int n, int base = 0) {
  RecordOptions o;
  o.n = n;
  o.base = base;
  return o;
}

// The message a wrong record stops the read with.
std::string error_of(const std::string& bytes, RecordOptions o) {
  try {
    read_all(bytes, o);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(Records, TextSeparatorsLettersBasesCommentsAndLineEnds) {
  const Rows want = {{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 0, 3, 2}};
  EXPECT_EQ(read_all("0 1 2 3\n3 2 1 0\n1 0 3 2\n", text(4)), want);
  EXPECT_EQ(read_all("0,1,2,3\n3;2;1;0\n1\t0\t3\t2", text(4)), want) << "no newline at the end";
  EXPECT_EQ(read_all("  0, 1, 2, 3\r\n\r\n# a comment\n3 2 1 0\r\n   \n1 0 3 2\r\n", text(4)), want);
  EXPECT_EQ(read_all("ABCD\nD C B A\nB,A,D,C\n", text(4)), want);
  EXPECT_EQ(read_all("1 2 3 4\n4 3 2 1\n2 1 4 3\n", text(4, 1)), want);
  EXPECT_EQ(read_all("ABCD\n", text(4, 1)), (Rows{{0, 1, 2, 3}})) << "letters are A = 0 whatever the base";
}

// The header at the start of `bytes`, and how many bytes reading it took.
std::pair<NpyArray, std::size_t> read_npy_from(const std::string& bytes) {
  std::size_t at = 0;
  const NpyArray a = read_npy_header([&](char* out, std::size_t size) {
    const std::size_t n = std::min(size, bytes.size() - at);
    std::memcpy(out, bytes.data() + at, n);
    at += n;
    return n;
  });
  return {a, at};
}

// What melange writes as .npy it reads back: every dtype, in a header that
// NumPy's format asks for (a multiple of 64 bytes, ended by a newline).
TEST(Npy, TheHeaderWrittenIsTheHeaderRead) {
  for (const NpyDtype& t : kNpyDtypes) {
    const NpyArray a{t, 123'456'789'012ull, 52};
    const std::string h = npy_header(a);
    EXPECT_EQ(h.size() % 64, 0u) << t.descr;
    EXPECT_EQ(h.back(), '\n') << t.descr;
    const auto [b, read] = read_npy_from(h + "data after the header");
    EXPECT_EQ(read, h.size()) << "the header is read to its end, and no further";
    EXPECT_EQ(b.dtype.descr, t.descr);
    EXPECT_EQ(b.rows, a.rows);
    EXPECT_EQ(b.cols, a.cols);
  }
  std::string fortran = npy_header(NpyArray{kNpyDtypes[1], 4, 4});
  fortran.replace(fortran.find("False"), 5, "True ");
  EXPECT_THROW(read_npy_from(fortran), UsageError);
  EXPECT_THROW(read_npy_from(npy_header(NpyArray{kNpyDtypes[0], 4, 4}).substr(0, 20)), UsageError);
  EXPECT_THROW(read_npy_from("not numpy at all"), UsageError);
}

TEST(Records, EveryWrongRecordIsNamed) {
  struct Case {
    std::string input, says;
  };
  const Case cases[] = {
      {"0 1 2 3\n0 1 2\n", "record 2 (line 2): \"0 1 2\": has 3 items, expected 4"},
      {"0 1 2 3 0\n", "more than 4 items"},
      {"0 1 2 4\n", "item 4 is out of range 0..3"},
      {"0 1 1 3\n", "item 1 appears twice"},
      {"0 1 x 3\n", "'x' is not an item number"},
      {"0 1 -2 3\n", "'-2' is not an item number"},
      {"0 1 2.5 3\n", "'2.5' is not an item number"},
      {"ABCE\n", "letter E is beyond the 4 items A..D"},
      {"abcd\n", "'a' is not an item (letters are A, B, C, ...)"},
      {"# only a comment\n\n", "the input holds no records"},
      {"", "the input holds no records"},
  };
  for (const Case& c : cases) {
    const std::string e = error_of(c.input, text(4));
    EXPECT_NE(e.find(c.says), std::string::npos) << "input: " << c.input << "\nmessage: " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << "one line: " << e;
  }
  // A long record is cut at 80 characters in the message.
  std::string long_line = "0 1 2 3";
  for (int i = 0; i < 100; ++i) long_line += " 0";
  const std::string e = error_of(long_line + "\n", text(4));
  EXPECT_NE(e.find("0 1 2 3 0 0"), std::string::npos) << e;
  EXPECT_NE(e.find("...\""), std::string::npos) << e;
  EXPECT_LT(e.size(), 250u) << e;
}

TEST(Records, SkipInvalidCountsAndSkips) {
  RecordOptions o = text(3);
  o.skip_invalid = true;
  RecordStats stats;
  // Two wrong in five is past the share skip_invalid skips by default.
  EXPECT_NE(error_of("0 1 2\n0 1\n2 1 0\n9 9 9\n1 2 0\n", o).find("2 of the 5 records read (40%) are wrong"),
            std::string::npos);
  o.max_invalid_share = 1;
  const Rows rows = read_all("0 1 2\n0 1\n2 1 0\n9 9 9\n1 2 0\n", o, &stats);
  EXPECT_EQ(rows, (Rows{{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}));
  EXPECT_EQ(stats.records, 3u);
  EXPECT_EQ(stats.invalid, 2u);
  EXPECT_NE(stats.first_invalid.find("record 2 (line 2)"), std::string::npos) << stats.first_invalid;
  EXPECT_NE(error_of("0 1\n", o).find("no valid record"), std::string::npos);
}

TEST(Records, BlockBoundariesChangeNothing) {
  std::string input;
  Rows want;
  for (int r = 0; r < 500; ++r) {
    std::vector<int> row = {r % 5, (r + 1) % 5, (r + 2) % 5, (r + 3) % 5, (r + 4) % 5};
    for (int i = 0; i < 5; ++i) input += std::to_string(row[i]) + (i < 4 ? ", " : (r % 3 ? "\n" : "\r\n"));
    if (r % 7 == 0) input += "# comment line\n";
    want.push_back(row);
  }
  for (std::size_t block : {std::size_t{64}, std::size_t{65}, std::size_t{1000}, std::size_t{1} << 20}) {
    RecordOptions o = text(5);
    o.block_bytes = block;
    EXPECT_EQ(read_all(input, o), want) << "block " << block;
  }
  RecordOptions tiny = text(5);
  tiny.block_bytes = 64;  // a line longer than the block is refused, not split
  EXPECT_NE(error_of("0" + std::string(100, ' ') + "1 2 3 4\n", tiny).find("line 1 is longer than 64 bytes"),
            std::string::npos);
}

// Records come in batches; a false from the consumer stops the read after
// the batch it was handed.
TEST(Records, BatchesAndStoppingWhenAsked) {
  std::string input;
  for (int r = 0; r < 100'000; ++r) input += r % 2 ? "0 1\n" : "1 0\n";
  std::istringstream in(input);
  std::vector<std::size_t> batches;
  const RecordStats s = read_records(in, text(2), [&](const std::uint16_t*, std::size_t records) {
    batches.push_back(records);
    return batches.size() < 2;
  });
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0], 2'048u) << "2^12 items a batch";
  EXPECT_LT(s.records, 100'000u);
  std::istringstream all(input);
  std::size_t total = 0;
  EXPECT_EQ(read_records(all, text(2), [&](const std::uint16_t*, std::size_t records) {
              total += records;
              return true;
            }).records,
            100'000u);
  EXPECT_EQ(total, 100'000u);
}

// Little-endian bytes of the rows, `width` bytes an item.
std::string binary(const Rows& rows, int width) {
  std::string out;
  for (const auto& row : rows)
    for (int v : row)
      for (int b = 0; b < width; ++b) out.push_back(static_cast<char>((static_cast<std::uint64_t>(v) >> (8 * b)) & 0xff));
  return out;
}

std::string npy(const Rows& rows, const std::string& descr, int width, int version = 1,
                const std::string& order = "False") {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': (" +
                     std::to_string(rows.size()) + ", " + std::to_string(rows.empty() ? 0 : rows[0].size()) + "), }";
  const std::size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + dict.size() + 1) % 64) dict.push_back(' ');
  dict.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(static_cast<char>(version));
  out.push_back(0);
  const std::size_t len = dict.size();
  for (std::size_t b = 0; b < (version == 1 ? 2u : 4u); ++b) out.push_back(static_cast<char>((len >> (8 * b)) & 0xff));
  return out + dict + binary(rows, width);
}

// The same records from `melange sample`, in every format, give the same
// tallies as the job that made them.
TEST(Records, EveryFormatGivesTheSameTallyAsTheJob) {
  Job job;
  job.algorithm = Algorithm::sort_binary_insertion;
  job.n = 5;
  job.trials = 20'000;
  job.tallies.set(TallyKind::positions, true);
  RunOptions scalar;
  scalar.backend = "scalar";
  const Tally want = run(job, scalar).tally;
  const auto perms = sample(job, scalar).permutations;
  Rows rows;
  for (std::size_t r = 0; r < job.trials; ++r) rows.emplace_back(perms.begin() + r * 5, perms.begin() + r * 5 + 5);

  std::string as_text, as_letters;
  for (const auto& row : rows) {
    for (int i = 0; i < 5; ++i) {
      as_text += std::to_string(row[i] + 1) + (i < 4 ? " " : "\n");
      as_letters.push_back(static_cast<char>('A' + row[i]));
    }
    as_letters.push_back('\n');
  }
  struct Input {
    std::string bytes;
    RecordFormat format;
    int base;
  };
  const Input inputs[] = {{as_text, RecordFormat::text, 1},
                          {as_letters, RecordFormat::text, 0},
                          {binary(rows, 1), RecordFormat::u8, 0},
                          {binary(rows, 2), RecordFormat::u16, 0},
                          {npy(rows, "|u1", 1), RecordFormat::npy, 0},
                          {npy(rows, "<u2", 2, 2), RecordFormat::npy, 0},
                          {npy(rows, "<i4", 4, 3), RecordFormat::npy, 0},
                          {npy(rows, "<i8", 8), RecordFormat::npy, 0}};
  for (const Input& input : inputs) {
    RecordOptions o = text(5, input.base);
    o.format = input.format;
    o.block_bytes = 4096;
    Tally got = Tally::for_job(job);
    TallyCounter counter{got};
    const TrialJob tj = trial_job(job);
    std::istringstream in(input.bytes);
    const RecordStats s = read_records(in, o, [&](const std::uint16_t* items, std::size_t records) {
      for (std::size_t r = 0; r < records; ++r) count_trial(tj, items + r * 5, 0, 0, counter);
      return true;
    });
    got.trials = s.records;
    EXPECT_EQ(s.records, job.trials) << record_format_name(input.format);
    EXPECT_EQ(got[TallyKind::ranks].counts(), want[TallyKind::ranks].counts()) << record_format_name(input.format);
    EXPECT_EQ(got[TallyKind::positions].counts(), want[TallyKind::positions].counts()) << record_format_name(input.format);
  }
}

TEST(Records, BinaryAndNpyFaults) {
  const Rows rows = {{0, 1, 2}, {2, 1, 0}};
  RecordOptions u8 = text(3);
  u8.format = RecordFormat::u8;
  EXPECT_NE(error_of(binary(rows, 1) + std::string("\x01\x02", 2), u8).find("ends inside record 3: 2 of its 3 bytes"),
            std::string::npos);
  EXPECT_NE(error_of(binary({{0, 1, 5}}, 1), u8).find("item 5 is out of range 0..2"), std::string::npos);
  RecordOptions big = text(300);
  big.format = RecordFormat::u8;
  EXPECT_NE(error_of("", big).find("use u16"), std::string::npos);

  RecordOptions o = text(3);
  o.format = RecordFormat::npy;
  EXPECT_EQ(read_all(npy(rows, "<u2", 2), o), rows);
  EXPECT_NE(error_of("not numpy at all", o).find("no NumPy magic string"), std::string::npos);
  EXPECT_NE(error_of(npy(rows, ">u2", 2), o).find("dtype '>u2'"), std::string::npos);
  EXPECT_NE(error_of(npy(rows, "<f8", 8), o).find("dtype '<f8'"), std::string::npos);
  EXPECT_NE(error_of(npy(rows, "<u2", 2, 1, "True"), o).find("Fortran order"), std::string::npos);
  EXPECT_NE(error_of(npy({{0, 1}, {1, 0}}, "<u2", 2), o).find("have 2 items, but n is 3"), std::string::npos);
  std::string cut = npy(rows, "<u2", 2);
  cut.resize(cut.size() - 6);
  EXPECT_NE(error_of(cut, o).find("ends after 1 of its 2 records"), std::string::npos) << error_of(cut, o);
  EXPECT_NE(error_of(npy({{0, -1, 2}}, "<i4", 4), o).find("item -1 is out of range"), std::string::npos);
}

// read_record_ranks (a table lookup for binary n <= 6, read_records and
// lehmer_rank otherwise) gives the ranks of the records read_records hands
// on, with the same stats and the same errors, in every format, base and
// block size, with wrong records among the right ones.
TEST(Records, RanksAreTheRanksOfTheRecords) {
  for (int n = 1; n <= 8; ++n) {
    Rows rows;
    std::uint64_t x = 12345;
    for (int r = 0; r < 3000; ++r) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      std::vector<int> row = lehmer_unrank((x >> 20) % factorial(n), n);
      if (r % 97 == 5 && n > 1) row[1] = row[0];        // repeated item
      if (r % 89 == 7) row[n - 1] = n + (r % 3);        // out of range
      rows.push_back(row);
    }
    for (const RecordFormat format : {RecordFormat::text, RecordFormat::u8, RecordFormat::u16, RecordFormat::npy})
      for (const int base : {0, 1})
        for (const std::size_t block : {std::size_t{64}, std::size_t{1} << 20}) {
          Rows based = rows;
          for (auto& row : based)
            for (int& v : row) v += base;
          std::string bytes;
          if (format == RecordFormat::text) {
            for (const auto& row : based)
              for (int i = 0; i < n; ++i) bytes += std::to_string(row[i]) + (i + 1 < n ? " " : "\n");
          } else {
            const int width = format == RecordFormat::u8 ? 1 : 2;
            bytes = format != RecordFormat::npy ? binary(based, width)
                    : n % 2                     ? npy(based, "<i4", 4)  // signed: read as read_records does
                                                : npy(based, "<u2", 2);
          }
          const std::string where = "n " + std::to_string(n) + " " + std::string(record_format_name(format)) +
                                    " base " + std::to_string(base) + " block " + std::to_string(block);
          RecordOptions o = text(n, base);
          o.format = format;
          o.block_bytes = block;
          EXPECT_NE(error_of(bytes, o), "") << where;
          EXPECT_EQ(error_of(bytes, o), [&] {
            try {
              std::istringstream in(bytes);
              read_record_ranks(in, o, [](const std::uint64_t*, std::size_t) { return true; });
            } catch (const UsageError& e) {
              return std::string(e.what());
            }
            return std::string();
          }()) << where;

          o.skip_invalid = true;
          o.max_invalid_share = 1;
          RecordStats want_stats, got_stats;
          std::vector<std::uint64_t> want, got;
          for (const auto& row : read_all(bytes, o, &want_stats)) want.push_back(lehmer_rank(row, n));
          std::istringstream in(bytes);
          got_stats = read_record_ranks(in, o, [&](const std::uint64_t* ranks, std::size_t records) {
            got.insert(got.end(), ranks, ranks + records);
            return true;
          });
          EXPECT_EQ(got, want) << where;
          EXPECT_EQ(got_stats.records, want_stats.records) << where;
          EXPECT_EQ(got_stats.invalid, want_stats.invalid) << where;
          EXPECT_EQ(got_stats.first_invalid, want_stats.first_invalid) << where;
          EXPECT_GT(got_stats.invalid, 0u) << where;
        }
  }
  RecordOptions deal = text(5);
  deal.k = 2;
  std::istringstream in("0 1\n");
  EXPECT_THROW(read_record_ranks(in, deal, [](const std::uint64_t*, std::size_t) { return true; }), UsageError);
  std::istringstream wide("0 1\n");
  EXPECT_THROW(read_record_ranks(wide, text(21), [](const std::uint64_t*, std::size_t) { return true; }), UsageError);
}

TEST(Records, FormatsByNameAndPath) {
  EXPECT_EQ(parse_record_format("u16"), RecordFormat::u16);
  EXPECT_FALSE(parse_record_format("csv").has_value());
  EXPECT_EQ(record_format_for_path("deals.npy"), RecordFormat::npy);
  EXPECT_EQ(record_format_for_path("/x/y.u8"), RecordFormat::u8);
  EXPECT_EQ(record_format_for_path("log.txt"), RecordFormat::text);
  EXPECT_EQ(record_format_for_path("-"), RecordFormat::text);
  EXPECT_EQ(record_format_for_path("counts.u16"), RecordFormat::u16);
  // Every row: its name parses back, its ending implies it, and a record of
  // a fixed-width format is its items at that width.
  for (const RecordFormatRow& row : kRecordFormats) {
    EXPECT_EQ(parse_record_format(row.name), row.format) << row.name;
    if (!row.ending.empty()) {
      EXPECT_EQ(record_format_for_path("r" + std::string(row.ending)), row.format) << row.name;
    }
  }
  EXPECT_EQ(record_format_names(", "), "text, u8, u16, npy");
  RecordOptions o = text(3);
  o.format = RecordFormat::u16;
  EXPECT_EQ(read_all(std::string("\x02\x00\x00\x00\x01\x00", 6), o), (Rows{{2, 0, 1}}));
  o.format = RecordFormat::u8;
  EXPECT_EQ(read_all(std::string("\x02\x00\x01", 3), o), (Rows{{2, 0, 1}}));
}

}  // namespace
}  // namespace melange

namespace melange {
namespace {

// What the first lines of a text say: items, letters, 1-based, a header.
TEST(SniffText, ReadsTheFirstRecordAsTheReaderWould) {
  const TextSniff plain = sniff_text("# made by a tool\n\n2 0 1 3\n1 0 2 3\n");
  EXPECT_EQ(plain.items, 4);
  EXPECT_FALSE(plain.one_based);
  EXPECT_FALSE(plain.header);
  const TextSniff one = sniff_text("3 1 2 4\r\n");
  EXPECT_EQ(one.items, 4);
  EXPECT_TRUE(one.one_based);
  const TextSniff list = sniff_text("[1, 3, 0, 2]\n");
  EXPECT_EQ(list.items, 4);
  const TextSniff quoted = sniff_text("\"1\",\"0\",\"2\"\n");
  EXPECT_EQ(quoted.items, 3);
  const TextSniff letters = sniff_text("BDAC\n");
  EXPECT_EQ(letters.items, 4);
  EXPECT_TRUE(letters.letters);
  const TextSniff header = sniff_text("pos0,pos1,pos2\n2,0,1\n");
  EXPECT_EQ(header.items, 3);
  EXPECT_TRUE(header.header);
  EXPECT_EQ(header.first, "pos0,pos1,pos2");
  EXPECT_EQ(sniff_text("this is not\nrecords at all\n1 0\n").items, 0) << "two lines that are not records: no guess";
  EXPECT_EQ(sniff_text("0 1 2").items, 0) << "a line the head cuts is not read";
}

// A header line is passed over once; brackets and quotes separate items.
TEST(TextRecords, HeaderAndBracketsAndQuotes) {
  RecordOptions o;
  o.n = 3;
  o.header = true;
  std::istringstream in("# note\nfirst,second,third\n[2, 0, 1]\n\"0\",\"1\",\"2\"\n");
  std::vector<std::uint16_t> seen;
  const RecordStats stats = read_records(in, o, [&](const std::uint16_t* items, std::size_t records) {
    seen.insert(seen.end(), items, items + records * 3);
    return true;
  });
  EXPECT_EQ(stats.records, 2u);
  EXPECT_EQ(seen, (std::vector<std::uint16_t>{2, 0, 1, 0, 1, 2}));
}

}  // namespace
}  // namespace melange
