// The program as a hostile user meets it (contract §7): every bad
// request is refused before any work with one line and exit status 2, and
// leaves its folder exactly as it was; outputs never replace what is not a
// regular file; write errors and signals are errors; memory stays under the
// cap. Each case runs `melange` as a subprocess in a scratch folder.
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "robustness_support.hpp"

namespace melange {
namespace {

namespace fs = std::filesystem;
using testing::ChildRun;
using testing::count_lines;
using testing::furnished;
using testing::kCli;
using testing::run_in;
using testing::scratch_dir;
using testing::slurp;
using testing::snapshot;

struct BadCase {
  const char* args;      // after the executable
  const char* mentions;  // the one line names this
};

// Usage errors: exit 2, one line naming the problem, nothing written.
const BadCase kBadCases[] = {
    {"audit --n 4 --trials 1e3 --svg .", "is a folder"},
    {"audit --n 4 --trials 1e3 --svg sub", "is a folder"},
    {"audit --n 4 --trials 1e3 --json missing/x.json", "does not exist"},
    {"audit --n 4 --trials 1e3 --json x.json --svg missing/x.svg", "does not exist"},
    {"audit --n 4 --trials 1e3 --report afile", "is a file"},
    {"audit --n 4 --trials 1e3 --report missing/deeper", "does not exist"},
    {"audit --n 4 --trials 1e3 --alpha 0", "--alpha"},
    {"audit --n 4 --trials 1e3 --alpha -1", "--alpha"},
    {"audit --n 4 --trials 1e3 --alpha 1", "--alpha"},
    {"audit --n 4 --trials 1e3 --alpha 2", "--alpha"},
    {"audit --n 4 --trials 1e3 --alpha nan", "--alpha"},
    {"audit --n 4 --trials 1e3 --alpha inf", "--alpha"},
    {"audit --n 4 --trials 1e3 --weak 0.7", "--weak"},
    {"audit --n 4 --trials 1e3 --fail nan", "--fail"},
    {"audit --n 4 --trials 1e3 --model .", "--model"},
    {"audit --n 4 --trials 1e3 --model afile", "--model"},
    {"audit --n 4 --trials 1e3 --model missing.json", "--model"},
    {"audit --n 4 --trials 1e3 --json x --svg x", "both write"},
    {"audit --n 4 --trials 1e3 --json x --svg ./sub/../x", "both write"},
    {"audit --n 4 --trials 1e3 --position --csv x.csv --json x-position.csv", "both write"},
    {"audit --n 4 --trials 1e3 --json - --svg -", "standard output"},
    {"audit --n 4 --trials 1e3 --json ''", "--json"},
    {"audit --n 4 --trials 1e3 --seed ''", "--seed"},
    {"audit --n 4 --trials 1e3 --threads ''", "--threads"},
    {"audit --n 4 --trials 1e3 --model ''", "--model"},
    {"audit --n 4 --trials 1e3 --svg ''", "--svg"},
    {"audit --n 4 --trials 1e3 --threads 0", "--threads"},
    {"audit --n 4 --first 18446744073709551615 --trials 2", "2^64 - 1"},
    {"audit --n 4 --first 18446744073709551000 --trials 1e6", "2^64 - 1"},
    {"audit --n 12 --trials 10", "memory cap"},
    {"audit --n 8 --trials 1e3 --memory-cap 500000", "--memory-cap"},
    {"audit --n 4 --trials 1e3 --json "
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
     ".json",
     "longer than"},  // 299 characters, above the 255 a name may have
    {"sample --n 4 --count 18446744073709551616", "--count"},
    {"sample --n 300 --count 10 --format u8", "use u16"},
    {"sample --n 4 --count 10 --format csv", "--format"},
    {"sample --n 4 --count 10 --format u8 --output sub", "is a folder"},
    {"sample --n 4 --count 10 --output same --json same", "same"},
    {"sample --n 4 --count 0", "--count"},
    {"sample --n 4 --first 18446744073709551615 --count 2", "--count"},
    {"sample --n 4 --count 10 --json sub", "is a folder"},
    {"reach --deal 0", "--deal"},
    {"reach --deal -1", "--deal"},
    {"reach --deal 53", "--deal"},
    {"exact --algo naive-swap --n 3 --seed 5", "--seed"},
    {"exact --algo naive-swap --n 3 --svg missing/e.svg", "does not exist"},
    {"words --count 4 --json sub", "is a folder"},
    {"bounded --range 10 --count 4 --json x --json y", "--json"},
    {"version --json missing/v.json", "does not exist"},
    {"reproduce --quick --report afile", "is a file"},
    {"frobnicate", "unknown command 'frobnicate'"},
    {"audit --algo partial --n 52 --k 0 --trials 100", "--k"},
    {"sample --algo partial --n 52 --k 0 --count 10", "--k"},
    {"audit --n 4 --trials 1e3 --checkpoint -", "needs a file"},
    {"audit --n 4 --trials 1e3 --checkpoint /dev/null", "not a regular file"},
    {"audit --n 4 --trials 1e3 --checkpoint-every 5", "add --checkpoint FILE"},
    {"audit --n 4 --trials 1e3 --checkpoint sub", "not a regular file"},
    {"sample --n 300 --count 1e9 --format u16 --output /dev/null --json j.json", "--json lists the records"},
    {"audit records.txt --json records.txt", "is the file --input reads"},
    {"audit records.txt --svg ./sub/../records.txt", "is the file --input reads"},
    {"audit records.txt --stop-on-fail", "add --progressive"},
    {"audit records.txt --labels a,b,c#,d", "cannot hold '#'"},
    {"audit --algo shelf --shelves 3 --passes 0 --n 5 --trials 1e3", "--passes: takes 1 to 8"},
};

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, OneLineExitTwoNothingWritten) {
  const BadCase c = GetParam();
  const fs::path dir = furnished("bad");
  const auto before = snapshot(dir);
  const ChildRun r = run_in(dir, kCli + " " + c.args);
  EXPECT_EQ(r.status, 2) << c.args << "\n" << r.err;
  EXPECT_EQ(count_lines(r.err), 1) << c.args << "\n" << r.err;
  EXPECT_NE(r.err.find(c.mentions), std::string::npos) << c.args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("melange: ", 0), 0u) << r.err;
  EXPECT_TRUE(r.out.empty()) << c.args << "\n" << r.out.substr(0, 200);
  EXPECT_EQ(snapshot(dir), before) << c.args << ": the folder changed";
  // Refused before any work: no tally was ever allocated.
  EXPECT_LT(r.peak_kb, 64 * 1024) << c.args;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Robustness, BadInput, ::testing::ValuesIn(kBadCases));

TEST(Robustness, SampleErrorsNameCountNotTrials) {
  const fs::path dir = furnished("count");
  for (const char* args : {"sample --n 4 --count 0", "sample --n 4 --first 18446744073709551615 --count 2"}) {
    const ChildRun r = run_in(dir, kCli + " " + args);
    EXPECT_EQ(r.err.find("--trials"), std::string::npos) << r.err;
  }
  fs::remove_all(dir);
}

// Special files are written in place, never replaced.
TEST(Robustness, FifoIsWrittenNotReplaced) {
  const fs::path dir = furnished("fifo");
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0644), 0);
  const ChildRun r = run_in(dir, "cat pipe > got & " + kCli + " audit --n 4 --trials 1e3 --json pipe; s=$?; wait; exit $s");
  EXPECT_EQ(r.status, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat((dir / "pipe").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO is still a FIFO";
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "got"))["trials"], "1000");
  fs::remove_all(dir);
}

TEST(Robustness, CharacterDeviceIsWrittenNotReplaced) {
  if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root";
  const fs::path dir = furnished("chr");
  // A null device of our own, in the scratch folder (1, 3 is /dev/null's).
  ASSERT_EQ(::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  const ChildRun r = run_in(dir, kCli + " audit --n 4 --trials 1e3 --json null --svg null2 --csv null3");
  EXPECT_EQ(r.status, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat((dir / "null").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device is still a device";
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  fs::remove_all(dir);
}

TEST(Robustness, DevStdoutIsWrittenNotReplaced) {
  const fs::path dir = furnished("stdout");
  const ChildRun r = run_in(dir, kCli + " audit --n 4 --trials 1e3 --seed 9 --json /dev/stdout | cat");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"seed\": \"9\""), std::string::npos) << r.out.substr(0, 300);
  EXPECT_TRUE(fs::is_symlink("/dev/stdout") || fs::is_character_file("/dev/stdout"));
  fs::remove_all(dir);
}

TEST(Robustness, SymlinkKeepsItsLinkAndTheTargetItsMode) {
  const fs::path dir = furnished("link");
  std::ofstream(dir / "target.json") << "old\n";
  ::chmod((dir / "target.json").c_str(), 0640);
  fs::create_symlink("target.json", dir / "link.json");
  fs::create_symlink("fresh.json", dir / "dangling.json");
  const ChildRun r = run_in(dir, kCli + " audit --n 4 --trials 1e3 --json link.json --svg dangling.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.json")) << "the link is not replaced";
  EXPECT_EQ(fs::read_symlink(dir / "link.json"), "target.json");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "target.json"))["trials"], "1000") << "its target is";
  struct stat st {};
  ::stat((dir / "target.json").c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0640u) << "the replaced file keeps its mode";
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.json"));
  EXPECT_NE(slurp(dir / "fresh.json").find("<svg"), std::string::npos) << "a dangling link's target is made";
  // No temporary file is left anywhere.
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().rfind(".melange-", 0), std::string::npos) << e.path();
  fs::remove_all(dir);
}

TEST(Robustness, NewFilesGetTheUmasksMode) {
  const fs::path dir = furnished("mode");
  const ChildRun r = run_in(dir, "umask 027; " + kCli + " audit --n 4 --trials 1e3 --json new.json");
  EXPECT_EQ(r.status, 0) << r.err;
  struct stat st {};
  ::stat((dir / "new.json").c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  fs::remove_all(dir);
}

// Write errors are errors: exit 1, one line, and no file put in place.
TEST(Robustness, FailedWritesToStandardOutput) {
  const fs::path dir = furnished("full");
  const auto before = snapshot(dir);
  for (const std::string args :
       {"audit --n 4 --trials 1e3 > /dev/full", "words --count 1000 > /dev/full",
        "audit --n 4 --trials 1e3 --json - > /dev/full", "audit --n 4 --trials 1e3 --json o.json > /dev/full",
        "audit --n 4 --trials 1e3 >&-", "words --count 4 >&-", "sample --n 4 --count 1e5 > /dev/full"}) {
    const ChildRun r = run_in(dir, kCli + " " + args);
    EXPECT_EQ(r.status, 1) << args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find("no reason"), std::string::npos) << args << ": the first failed write's errno is kept\n"
                                                          << r.err;
  }
  EXPECT_EQ(snapshot(dir), before) << "a run that failed leaves no file";
  // A long stream stops at its first failed write and says why, rather
  // than making 9 GB of text for a full disk (the CPU limit is far above
  // what stopping takes, and far below what the whole stream would).
  for (const std::string args : {"words --count 1e9", "bounded --range 6 --count 1e9"}) {
    const ChildRun r = run_in(dir, "ulimit -t 20; " + kCli + " " + args + " > /dev/full");
    EXPECT_EQ(r.status, 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << args << "\n" << r.err;
  }
  fs::remove_all(dir);
}

// The last trial index is 2^64 - 1, and the vector lanes reach it too.
TEST(Robustness, TopOfTheTrialIndexSpace) {
  const fs::path dir = furnished("top");
  const ChildRun one = run_in(dir, kCli + " audit --n 4 --first 18446744073709551615 --trials 1 --json -");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(nlohmann::json::parse(one.out)["histogram"].size(), 24u);
  std::vector<nlohmann::json> runs;
  for (const char* backend : {"scalar", "avx2", "avx512"}) {
    const ChildRun r = run_in(dir, kCli + " audit --n 9 --position --first 18446744073709551597 --trials 19 --json - --backend " + backend);
    if (r.status == 1 && std::string(backend) != "scalar") continue;  // not on this CPU
    ASSERT_EQ(r.status, 0) << backend << ": " << r.err;
    runs.push_back(nlohmann::json::parse(r.out));
  }
  std::uint64_t total = 0;
  for (auto c : runs[0]["histogram"]) total += c.get<std::uint64_t>();
  EXPECT_EQ(total, 19u) << "every trial up to 2^64 - 1 ran";
  for (const auto& j : runs) {
    EXPECT_EQ(j["histogram"], runs[0]["histogram"]);
    EXPECT_EQ(j["position"], runs[0]["position"]);
  }
  const ChildRun sample = run_in(dir, kCli + " sample --n 5 --first 18446744073709551615 --count 1");
  EXPECT_EQ(sample.status, 0) << sample.err;
  EXPECT_EQ(count_lines(sample.out), 2);
  fs::remove_all(dir);
}

TEST(Robustness, SmallerOnes) {
  const fs::path dir = furnished("small");
  const ChildRun deal = run_in(dir, kCli + " reach --deal 12");
  ASSERT_EQ(deal.status, 0) << deal.err;
  EXPECT_NE(deal.out.find("9.886e+19 ordered"), std::string::npos) << deal.out;
  EXPECT_EQ(deal.out.find(" 0 ordered"), std::string::npos);
  // A 250-character name (the limit is 255) is written; its temporary name is short.
  const std::string name(245, 'b');
  const ChildRun longname = run_in(dir, kCli + " audit --n 4 --trials 1e3 --json " + name + ".json");
  EXPECT_EQ(longname.status, 0) << longname.err;
  EXPECT_TRUE(fs::exists(dir / (name + ".json")));
  // Where no GPU is, the error names a backend that works here.
  const auto version = nlohmann::json::parse(run_in(dir, kCli + " version --json -").out);
  if (!version["backends"][2]["available"].get<bool>()) {
    const ChildRun gpu = run_in(dir, kCli + " audit --n 4 --trials 1e3 --backend cuda");
    EXPECT_EQ(gpu.status, 1);
    const auto at = gpu.err.find("use --backend ");
    ASSERT_NE(at, std::string::npos) << gpu.err;
    const std::string other = gpu.err.substr(at + 14, gpu.err.find_first_of(" \n", at + 14) - at - 14);
    EXPECT_EQ(run_in(dir, kCli + " audit --n 4 --trials 1e3 --backend " + other).status, 0) << other;
  }
  fs::remove_all(dir);
}

// Signals: temporaries removed, status 128 + signal. The SVG goes to a FIFO
// nobody reads, so the run is caught, deterministically, after the JSON's
// temporary file is written and before anything is renamed.
void signal_while_writing(int sig, int expected_status) {
  const fs::path dir = furnished("signal-" + std::to_string(sig));
  ASSERT_EQ(::mkfifo((dir / "stuck.svg").c_str(), 0644), 0);
  const auto before = snapshot(dir);
  const ChildRun r = run_in(dir, "exec " + kCli + " audit --n 9 --trials 1e5 --json big.json --svg stuck.svg",
                       [&](pid_t pid) {
                         for (int i = 0; i < 600; ++i) {  // up to a minute
                           bool temp = false;
                           for (const auto& e : fs::directory_iterator(dir))
                             temp = temp || e.path().filename().string().rfind(".melange-", 0) == 0;
                           if (temp) break;
                           std::this_thread::sleep_for(std::chrono::milliseconds(100));
                         }
                         std::this_thread::sleep_for(std::chrono::milliseconds(200));
                         ::kill(pid, sig);
                       });
  EXPECT_EQ(r.status, expected_status) << r.err;
  EXPECT_EQ(snapshot(dir), before) << "no temporary file and no output left behind";
  fs::remove_all(dir);
}

TEST(Robustness, SigintRemovesTemporaries) { signal_while_writing(SIGINT, 130); }
TEST(Robustness, SigtermRemovesTemporaries) { signal_while_writing(SIGTERM, 143); }

// A process killed while it wrote (SIGKILL, a power cut) leaves its
// temporary behind; the next run in that folder removes it, and leaves the
// temporaries of processes that still run.
TEST(Robustness, StaleTemporariesOfDeadProcessesAreRemoved) {
  const fs::path dir = furnished("stale");
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  const std::string stale = ".melange-" + std::to_string(dead) + "-a1b2c3";
  const std::string live = ".melange-" + std::to_string(::getpid()) + "-a1b2c3";
  std::ofstream(dir / stale) << "half a checkpoint";
  std::ofstream(dir / live) << "being written";
  const ChildRun r = run_in(dir, kCli + " audit --n 4 --trials 1e3 --json out.json");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir / stale));
  EXPECT_TRUE(fs::exists(dir / live));
  EXPECT_TRUE(fs::exists(dir / "out.json"));
  fs::remove_all(dir);
}

// Write errors name their cause, even when it happened long before the
// file was closed.
TEST(Robustness, WriteErrorsSayWhy) {
  const fs::path dir = furnished("why");
  const ChildRun big = run_in(dir, "trap '' XFSZ; ulimit -f 10; " + kCli + " audit --n 8 --trials 1e5 --json big.json");
  EXPECT_EQ(big.status, 1) << big.err;
  EXPECT_NE(big.err.find("File too large"), std::string::npos) << big.err;
  const ChildRun pipe = run_in(dir, "trap '' PIPE; " + kCli + " sample --n 8 --count 1e6 | head -c 10 >/dev/null");
  EXPECT_NE(pipe.err.find("standard output failed: Broken pipe"), std::string::npos) << pipe.err;
  fs::remove_all(dir);
}

TEST(Robustness, SigintClearsTheProgressLine) {
  if (testing::run_shell("script -qec true /dev/null").status != 0) GTEST_SKIP() << "no pseudo-terminal here";
  const std::string job = kCli + " audit --algo sort-binary-insertion --n 9 --position --no-rank --trials 1e10 --threads 1";
  // set -m: a job started with & keeps SIGINT (a plain shell ignores it there).
  const auto tty = testing::run_shell("script -qec 'set -m; " + job + " >/dev/null & sleep 2.5; kill -INT $!; wait $!; echo status=$?' /dev/null");
  EXPECT_NE(tty.out.find(" trials, "), std::string::npos) << "progress shown: " << tty.out.substr(0, 200);
  const auto cleared = tty.out.rfind("\r\033[K");
  const auto shown = tty.out.rfind(" trials, ");
  ASSERT_NE(cleared, std::string::npos);
  EXPECT_GT(cleared, shown) << "the line is cleared after it was last drawn";
  EXPECT_NE(tty.out.find("status=130"), std::string::npos) << tty.out.substr(tty.out.size() > 200 ? tty.out.size() - 200 : 0);
}

// Memory stays under --memory-cap, whatever the thread count and outputs.
constexpr long kDefaultCapKb = 1 << 20;  // 1 GiB

TEST(Robustness, RankHistogramOfElevenItemsUnderTheCap) {
  const fs::path dir = furnished("mem11");
  long peak[3] = {};
  const char* threads[] = {"1", "2", "16"};
  for (int i = 0; i < 3; ++i) {
    const ChildRun r = run_in(dir, "exec " + kCli + " audit --n 11 --trials 1e5 --threads " + threads[i]);
    ASSERT_EQ(r.status, 0) << r.err;
    peak[i] = r.peak_kb;
    EXPECT_LT(r.peak_kb, kDefaultCapKb) << threads[i] << " threads";
    if (i == 2) {
      EXPECT_NE(r.out.find("threads: each holds"), std::string::npos) << "says why fewer threads ran";
    }
  }
  std::printf("peak memory of audit --n 11: %ld kB (1 thread), %ld kB (2), %ld kB (16 asked)\n", peak[0],
              peak[1], peak[2]);
  // A tight cap runs one thread and stays under it.
  const ChildRun tight = run_in(dir, "exec " + kCli + " audit --n 11 --trials 1e5 --threads 2 --memory-cap 5e8");
  ASSERT_EQ(tight.status, 0) << tight.err;
  EXPECT_NE(tight.out.find("1 of 2 threads"), std::string::npos) << tight.out;
  EXPECT_LT(tight.peak_kb, 500000000 / 1024);
  fs::remove_all(dir);
}

// --memory-cap bounds the whole process, the program's own resident bytes
// included: a cap the program fills is refused with the least that would
// do, and at that least and above it every job stays under its cap.
TEST(Robustness, TheCapBoundsTheWholeProcess) {
  const fs::path dir = furnished("whole");
  const ChildRun tiny = run_in(dir, "exec " + kCli + " audit --n 9 --trials 1e5 --memory-cap 2M");
  ASSERT_EQ(tiny.status, 2) << tiny.out;
  const auto at = tiny.err.find("give at least ");
  ASSERT_NE(at, std::string::npos) << tiny.err;
  const long least_mib = std::stol(tiny.err.substr(at + 14));
  ASSERT_GT(least_mib, 2) << tiny.err;
  for (const char* job : {"--n 9 --trials 1e6 --threads 2", "--algo riffle --riffles 3 --n 9 --trials 1e6 --threads 2",
                          "--n 8 --trials 1e6 --serial", "--n 10 --trials 2e5 --position --json a.json --svg a.svg"}) {
    // The program's resident size moves by a few hundred KiB from run to
    // run: one MiB above the least it named is above it in any run.
    for (const long cap_mib : {least_mib + 1, least_mib + 8, 48L}) {
      const ChildRun r = run_in(dir, "exec " + kCli + " audit " + job + " --memory-cap " +
                                         std::to_string(cap_mib) + "M --quiet");
      // A tight cap may refuse a histogram that does not fit; 48 MiB runs them all.
      if (cap_mib < 48 && r.status == 2) EXPECT_NE(r.err.find("raise --memory-cap"), std::string::npos) << r.err;
      else EXPECT_EQ(r.status, 0) << job << " --memory-cap " << cap_mib << "M: " << r.err;
      EXPECT_LE(r.peak_kb, cap_mib * 1024) << job << " --memory-cap " << cap_mib << "M";
    }
  }
  fs::remove_all(dir);
}

TEST(Robustness, OutputsThatGrowWithNFactorialStaySmall) {
  const fs::path dir = furnished("big");
  const ChildRun r = run_in(dir, "exec " + kCli + " audit --n 10 --trials 2e5 --threads 2 --svg a.svg --report rep --json a.json --csv a.csv");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_LT(fs::file_size(dir / "a.svg"), 5u << 20);
  EXPECT_LT(fs::file_size(dir / "rep" / "index.html"), 5u << 20);
  EXPECT_EQ(count_lines(slurp(dir / "a.csv")), 1 + 3628800);
  EXPECT_NE(slurp(dir / "a.svg").find("drawn through 2,000 of the 3,628,800 orders"), std::string::npos);
  // Tally 29 MB a thread; the outputs add little beside it.
  EXPECT_LT(r.peak_kb, 160 * 1024) << "outputs are streamed";
  const ChildRun wide = run_in(dir, "exec " + kCli + " audit --n 1024 --position --trials 2000 --svg w.svg --report wrep");
  ASSERT_EQ(wide.status, 0) << wide.err;
  EXPECT_LT(fs::file_size(dir / "w.svg"), 5u << 20);
  EXPECT_NE(slurp(dir / "w.svg").find("block of the 1024 x 1024 matrix"), std::string::npos);
  fs::remove_all(dir);
}

TEST(Robustness, StreamsKeepMemoryFlat) {
  const fs::path dir = furnished("flat");
  // Binary records stream too: 1.5e9 items, past the old 1e9-item limit,
  // in a process of a few MB.
  const ChildRun binary = run_in(dir, "exec " + kCli + " sample --n 52 --count 3e7 --format u8 --threads 2 | wc -c");
  ASSERT_EQ(binary.status, 0) << binary.err;
  EXPECT_EQ(binary.out, "1560000000\n");
  EXPECT_LT(binary.peak_kb, 64 * 1024);
  // JSON rows are written as they are made: a file far larger than the
  // process, which stays at a few MB whatever --count is.
  const ChildRun sample = run_in(dir, "exec " + kCli + " sample --n 4 --count 1e6 --first 7 --json s.json");
  ASSERT_EQ(sample.status, 0) << sample.err;
  EXPECT_LT(sample.peak_kb, 64 * 1024);
  const ChildRun last = run_in(dir, kCli + " sample --n 4 --first 1000006 --count 1 --json -");
  {
    const auto j = nlohmann::json::parse(slurp(dir / "s.json"));
    ASSERT_EQ(j["permutations"].size(), 1000000u);
    EXPECT_EQ(j["permutations"][999999], nlohmann::json::parse(last.out)["permutations"][0])
        << "the pieces join up: row 999,999 is trial 1,000,006";
  }
  const ChildRun words = run_in(dir, "exec " + kCli + " words --count 2e7 --json w.json");
  ASSERT_EQ(words.status, 0) << words.err;
  EXPECT_LT(words.peak_kb, 64 * 1024);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace melange
