// What melange reads, as a careless or hostile user hands it over (contract
// §4 and §7): records that overflow, carry control bytes or notes,
// .npy headers that lie, and standard input that a command would not read.
// Each case runs `melange` as a subprocess in a scratch folder.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "robustness_support.hpp"

namespace melange {
namespace {

namespace fs = std::filesystem;
using testing::ChildRun;
using testing::count_lines;
using testing::furnished;
using testing::kCli;
using testing::run_in;
using testing::slurp;

void write_file(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

// `cat log.txt | melange audit --n 4` once graded melange's own shuffle and
// said PASS about records it never read. The rule is the command line's,
// not timing's: audit with no input and no job of its own refuses any pipe,
// a producer that starts late or writes nothing included; every other
// command line leaves standard input be, as Unix tools do.
TEST(RobustnessReads, RecordsOnStandardInputAreNotIgnored) {
  const fs::path dir = furnished("stdin");
  write_file(dir / "log.txt", "0 1 2 3\n3 2 1 0\n");
  for (const char* command : {"cat log.txt | ", "printf '1 0 2 3\\n' | ", "(sleep 0.3; cat log.txt) | ", ": | "}) {
    const ChildRun r = run_in(dir, command + kCli + " audit --n 4");
    EXPECT_EQ(r.status, 2) << command << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("'melange audit -'"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // A job of its own, another command, a file, a device or no standard
  // input at all: the command runs as it would from a terminal.
  for (const char* line : {"cat log.txt | MELANGE audit --n 4 --trials 1e3", "cat log.txt | MELANGE audit --algo sattolo",
                           "cat log.txt | MELANGE sample --n 4 --count 3", "MELANGE audit --n 4 < log.txt",
                           "MELANGE sample --n 4 --count 3 < log.txt", "MELANGE audit --n 4 < /dev/null",
                           "MELANGE audit --n 4 <&-", "MELANGE exact --n 3 < log.txt"}) {
    std::string command = line;
    command.replace(command.find("MELANGE"), 7, kCli);
    const ChildRun r = run_in(dir, command);
    EXPECT_EQ(r.status, 0) << command << "\n" << r.err;
  }
  // The classic loop: each line of a regular file is a job.
  write_file(dir / "jobs.txt", "--n 4 --trials 1e3\n--n 5 --trials 2e3\n");
  const ChildRun loop = run_in(dir, "while read -r job; do " + kCli + " audit $job --quiet || exit 9; done < jobs.txt");
  EXPECT_EQ(loop.status, 0) << loop.err;
  EXPECT_NE(loop.out.find("n 5"), std::string::npos) << loop.out;
  for (const char* reader : {" audit --input - --n 4", " audit -", " audit /dev/stdin"}) {
    const ChildRun read = run_in(dir, "cat log.txt | " + kCli + reader);
    EXPECT_EQ(read.status, 0) << reader << ": " << read.err;
    EXPECT_NE(read.out.find("records 2,"), std::string::npos) << reader << ": " << read.out;
  }
  fs::remove_all(dir);
}

// n is read from the first record however long its line: 8 items with
// 12,000 spaces between each (a 96 KB line, past the first 64 KB read).
TEST(RobustnessReads, AFirstRecordLongerThanTheFirstReadGivesN) {
  const fs::path dir = furnished("longline");
  const std::string gap(12000, ' ');
  std::string records;
  for (const char* r : {"0 1 2 3 4 5 6 7", "7 6 5 4 3 2 1 0", "1 0 3 2 5 4 7 6"}) {
    for (const char* c = r; *c; ++c) records += *c == ' ' ? gap : std::string(1, *c);
    records += "\n";
  }
  write_file(dir / "long.txt", records);
  const ChildRun r = run_in(dir, kCli + " audit long.txt --quiet");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("n 8 from the first record"), std::string::npos) << r.out.substr(0, 400);
  fs::remove_all(dir);
}

TEST(RobustnessReads, TextItemsPastInt64AreOutOfRangeAsWritten) {
  const fs::path dir = furnished("bigitems");
  for (const std::string item : {"9223372036854775808", "18446744073709551616", "99999999999999999999999999",
                                 "1000000000000000000"}) {
    write_file(dir / "r.txt", "0 1 2 3\n1 2 3 " + item + "\n");
    const ChildRun r = run_in(dir, kCli + " audit --input r.txt --n 4");
    EXPECT_EQ(r.status, 2) << item << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("record 2 (line 2)"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("item " + item + " is out of range 0..3"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find(": item -"), std::string::npos) << r.err;
  }
  fs::remove_all(dir);
}

TEST(RobustnessReads, ControlBytesInRecordsAreNotEchoedRaw) {
  const fs::path dir = furnished("control");
  const std::string title = "\x1b]0;owned\x07";
  write_file(dir / "r.txt", std::string("0 1 2 3\n1 2 ") + title + "\n0 1\r2 3\n");
  write_file(dir / "nul.txt", std::string("0 1 2 3\n1 2 \0 3\n", 16));
  for (const char* file : {"r.txt", "nul.txt"}) {
    const ChildRun r = run_in(dir, kCli + " audit --n 4 --input " + file);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    for (char c : r.err) EXPECT_FALSE(c != '\n' && static_cast<unsigned char>(c) < 0x20) << file << ": " << r.err;
    EXPECT_NE(r.err.find(file == std::string("r.txt") ? "\\x1b]0" : "\\x00"), std::string::npos) << r.err;
  }
  fs::remove_all(dir);
}

TEST(RobustnessReads, AByteOrderMarkAndNotesAfterARecordAreRead) {
  const fs::path dir = furnished("notes");
  write_file(dir / "r.txt", "\xEF\xBB\xBF" "0 1 2 3  # dealt at 10:02\r\n3 2 1 0 #second\n# a comment line\n1,0,3,2\n");
  const ChildRun r = run_in(dir, kCli + " audit --n 4 --input r.txt --json -");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"trials\": \"3\""), std::string::npos) << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("\"invalid_records\": \"0\""), std::string::npos) << r.out.substr(0, 400);
  fs::remove_all(dir);
}

// An .npy image of `rows` records of 4 uint8 items whose header says `shape`.
std::string npy(const std::string& shape, int rows) {
  std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (" + shape + ", 4), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  for (int r = 0; r < rows; ++r) out += std::string("\x00\x01\x02\x03", 4);
  return out;
}

TEST(RobustnessReads, AnNpyHeaderThatLiesIsRefused) {
  const fs::path dir = furnished("npy");
  write_file(dir / "ok.npy", npy("200", 200));
  write_file(dir / "huge.npy", npy("18446744073709551615", 200));
  write_file(dir / "more.npy", npy("100", 200));
  const ChildRun ok = run_in(dir, kCli + " audit --n 4 --input ok.npy");
  EXPECT_EQ(ok.status, 0) << ok.err;
  const ChildRun huge = run_in(dir, kCli + " audit --n 4 --input huge.npy");
  EXPECT_EQ(huge.status, 2) << huge.err;
  EXPECT_NE(huge.err.find("ends after 200 of its 18446744073709551615 records"), std::string::npos) << huge.err;
  const ChildRun more = run_in(dir, kCli + " audit --n 4 --input more.npy");
  EXPECT_EQ(more.status, 2) << more.err;
  EXPECT_NE(more.err.find("data after the 100 records"), std::string::npos) << more.err;
  for (const ChildRun* r : {&huge, &more}) EXPECT_EQ(count_lines(r->err), 1) << r->err;
  fs::remove_all(dir);
}

// A failed write stops a sample; --json, which lists every record, refuses a
// count it could not hold in a document of sane size.
TEST(RobustnessReads, SampleJsonIsBoundedAndStopsOnAFailedWrite) {
  const fs::path dir = furnished("samplejson");
  const ChildRun full = run_in(dir, kCli + " sample --n 4 --count 4e6 --format u8 --output /dev/null --json /dev/full");
  EXPECT_EQ(full.status, 1) << full.err;
  EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
  const ChildRun head = run_in(dir, kCli + " sample --n 300 --count 1e9 --format u16 --json j.json | head -c 10");
  EXPECT_EQ(head.status, 0);
  EXPECT_NE(head.err.find("--json lists the records"), std::string::npos) << head.err;
  EXPECT_FALSE(fs::exists(dir / "j.json"));
  fs::remove_all(dir);
}

TEST(RobustnessReads, ALoopOfLinksIsRefusedAndKept) {
  const fs::path dir = furnished("loop");
  fs::create_symlink("loop2", dir / "loop");
  fs::create_symlink("loop", dir / "loop2");
  const ChildRun r = run_in(dir, kCli + " audit --n 4 --trials 1e3 --json loop");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("loop of symbolic links"), std::string::npos) << r.err;
  EXPECT_EQ(fs::read_symlink(dir / "loop"), "loop2");
  EXPECT_EQ(fs::read_symlink(dir / "loop2"), "loop");
  fs::remove_all(dir);
}

TEST(RobustnessReads, PathsThatCannotBeLookedAtAreNamed) {
  const fs::path dir = furnished("paths");
  std::string deep;
  while (deep.size() < 5000) deep += "a/";
  const ChildRun longer = run_in(dir, kCli + " audit --n 4 --trials 1e3 --json " + deep + "x.json");
  EXPECT_EQ(longer.status, 2) << longer.err.substr(0, 300);
  EXPECT_NE(longer.err.find("longer than the system allows"), std::string::npos) << longer.err.substr(0, 300);
  EXPECT_EQ(count_lines(longer.err), 1);
  const ChildRun gone = run_in(dir, "mkdir gone && cd gone && rmdir ../gone && " + kCli +
                                        " audit --n 4 --trials 1e3 --json o.json");
  EXPECT_EQ(gone.status, 2) << gone.err;
  EXPECT_NE(gone.err.find("the working folder no longer exists"), std::string::npos) << gone.err;
  EXPECT_EQ(count_lines(gone.err), 1) << gone.err;
  fs::remove_all(dir);
}

TEST(RobustnessReads, AHugeBadValueIsNamedNotEchoed) {
  const fs::path dir = furnished("hugevalue");
  const ChildRun r = run_in(dir, kCli + " audit --trials 10 --n " + std::string(120000, '9'));
  EXPECT_EQ(r.status, 2) << r.err.substr(0, 300);
  EXPECT_EQ(count_lines(r.err), 1);
  EXPECT_LT(r.err.size(), 400u) << r.err.substr(0, 300);
  EXPECT_NE(r.err.find("--n"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace melange
