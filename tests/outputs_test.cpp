// What a person reads: SVG, CSV and HTML files, exit codes, the progress
// line, and `melange reproduce`.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"

namespace melange {
namespace {

using testing::count_lines;
using testing::run_cli;
using testing::scratch_dir;
using testing::slurp;

bool well_formed_xml(const std::string& path) {
  return std::system(("xmllint --noout " + path + " 2>/dev/null").c_str()) == 0;
}

TEST(Svg, AuditChartsAreValidXmlAndTitled) {
  const auto dir = scratch_dir("svg");
  const auto file = (dir / "a.svg").string();
  const auto r = run_cli("audit --algo sort-binary-insertion --n 4 --trials 2e5 --seed 5 --position --svg " + file);
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(well_formed_xml(file)) << slurp(file).substr(0, 300);
  const std::string svg = slurp(file);
  for (const char* part : {"sort-binary-insertion", "batched/32-bit", "n = 4", "200,000 trials",
                           "seed 5", "verdict FAIL", "expected", "ABCD", "DCBA", "standardized"})
    EXPECT_NE(svg.find(part), std::string::npos) << part;
  // Two panels: the rank chart with a bar per order, and the heatmap.
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 100, true);
  std::filesystem::remove_all(dir);
}

TEST(Svg, LargeNAndExactCharts) {
  const auto dir = scratch_dir("svg2");
  const auto big = (dir / "big.svg").string(), exact = (dir / "exact.svg").string();
  ASSERT_EQ(run_cli("audit --n 52 --trials 2e4 --position --svg " + big).status, 0);
  EXPECT_TRUE(well_formed_xml(big));
  EXPECT_NE(slurp(big).find("item x position"), std::string::npos);
  ASSERT_EQ(run_cli("audit --n 7 --trials 1e5 --svg " + big).status, 0);
  EXPECT_TRUE(well_formed_xml(big));
  EXPECT_NE(slurp(big).find("most to least frequent"), std::string::npos) << "sorted curve for n > 5";
  ASSERT_EQ(run_cli("exact --algo naive-swap --n 3 --svg " + exact).status, 0);
  EXPECT_TRUE(well_formed_xml(exact));
  EXPECT_NE(slurp(exact).find("probability"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Csv, RowCountsAndColumns) {
  const auto dir = scratch_dir("csv");
  const auto file = (dir / "t.csv").string();
  ASSERT_EQ(run_cli("audit --n 4 --trials 1e5 --position --csv " + file).status, 0);
  const std::string ranks = slurp(file), matrix = slurp((dir / "t-position.csv").string());
  EXPECT_EQ(ranks.substr(0, ranks.find('\n')), "rank,label,count,expected,residual");
  EXPECT_EQ(count_lines(ranks), 1 + 24);
  EXPECT_EQ(ranks.substr(ranks.find('\n') + 1, 7), "0,ABCD,");
  EXPECT_EQ(matrix.substr(0, matrix.find('\n')), "item,label,position,count,expected,residual");
  EXPECT_EQ(count_lines(matrix), 1 + 16);
  // Without the rank histogram the matrix keeps its own name and columns.
  std::filesystem::remove(file);
  ASSERT_EQ(run_cli("audit --n 52 --trials 1e4 --position --csv " + file).status, 0);
  const std::string big = slurp((dir / "t-position.csv").string());
  EXPECT_EQ(count_lines(big), 1 + 52 * 52);
  EXPECT_EQ(big.substr(0, big.find('\n')), "item,label,position,count,expected,residual");
  EXPECT_FALSE(std::filesystem::exists(file)) << "no orders table without a rank histogram";
  std::filesystem::remove_all(dir);
}

TEST(Report, SelfContainedHtml) {
  const auto dir = scratch_dir("report");
  const auto r = run_cli("audit --algo naive-swap --n 4 --trials 1e5 --seed 3 --position --report " +
                         (dir / "rep").string());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string html = slurp((dir / "rep" / "index.html").string());
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("melange audit --algo naive-swap --n 4 --trials 100000 --seed 3 --first 0"),
            std::string::npos) << "the command line that reproduces the run";
  EXPECT_NE(html.find("Holm"), std::string::npos);
  // The verdict in plain words under it, as the text says it.
  EXPECT_NE(html.find("fell below 1e-06: a fair shuffler does this less than once in 1,000,000 audits"),
            std::string::npos);
  EXPECT_NE(html.find("<li>order BADC comes up"), std::string::npos);
  EXPECT_NE(html.find("The smallest bias each test detects"), std::string::npos);
  // No network: nothing is loaded from elsewhere.
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ExitCodes, EachOneDocumented) {
  EXPECT_EQ(run_cli("audit --n 4 --trials 1e5").status, 0) << "PASS";
  EXPECT_EQ(run_cli("audit --algo sort-binary-insertion --n 4 --trials 1e5").status, 0)
      << "FAIL without --fail-on-bias still exits 0";
  EXPECT_EQ(run_cli("audit --algo sort-binary-insertion --n 4 --trials 1e5 --fail-on-bias").status, 3);
  EXPECT_EQ(run_cli("audit --n 4 --trials 1e5 --fail-on-bias").status, 0);
  EXPECT_EQ(run_cli("audit --n 4 --trials 1e5 --frobnicate").status, 2);
  // An output in a missing folder is a usage error, found before the run.
  const auto missing = run_cli("audit --n 4 --trials 1e3 --json /nonexistent-melange-dir/x.json");
  EXPECT_EQ(missing.status, 2) << missing.err;
  EXPECT_EQ(count_lines(missing.err), 1);
  // A write that fails is a runtime error.
  const auto runtime = testing::run_shell(MELANGE_CLI " words --count 100000 >/dev/full");
  EXPECT_EQ(runtime.status, 1) << runtime.err;
  EXPECT_EQ(count_lines(runtime.err), 1) << runtime.err;
  // Asking for a GPU where there is none: one line, status 1.
  const auto version = nlohmann::json::parse(run_cli("version --json -").out);
  if (!version["backends"][2]["available"].get<bool>()) {
    const auto gpu = run_cli("audit --n 4 --trials 1e3 --backend cuda");
    EXPECT_EQ(gpu.status, 1);
    // "no CUDA device", or the driver's own reason ("no usable CUDA device
    // (CUDA driver version is insufficient ...)"), then what to do.
    EXPECT_EQ(gpu.err.rfind("melange: no ", 0), 0u) << gpu.err;
    EXPECT_NE(gpu.err.find("CUDA device"), std::string::npos) << gpu.err;
    EXPECT_EQ(gpu.err.substr(gpu.err.size() - std::string(": use --backend simd\n").size()), ": use --backend simd\n")
        << gpu.err;
    EXPECT_EQ(count_lines(gpu.err), 1) << gpu.err;
    // bench says the same of the machine, with the same status.
    const auto bench = run_cli("bench --backend cuda --seconds 0.1");
    EXPECT_EQ(bench.status, 1) << bench.err;
    EXPECT_NE(bench.err.find("CUDA device"), std::string::npos) << bench.err;
    EXPECT_EQ(count_lines(bench.err), 1) << bench.err;
  }
  const auto help = run_cli("audit --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("3 with --fail-on-bias"), std::string::npos) << "exit codes in --help";
}

// A run of over a second: sort-binary-insertion on 9 items, one thread.
const char* kLongRun = "audit --algo sort-binary-insertion --n 9 --position --no-rank --trials 1.2e7 --threads 1";

TEST(Progress, NothingWhenStderrIsNotATerminal) {
  const auto r = run_cli(kLongRun);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(Progress, OneLineOnATerminalClearedAtTheEnd) {
  // `script` runs the command on a pseudo-terminal.
  if (testing::run_shell("script -qec true /dev/null").status != 0)
    GTEST_SKIP() << "no pseudo-terminal here";
  const auto tty = testing::run_shell(std::string("script -qec '") + MELANGE_CLI + " " + kLongRun +
                                      " >/dev/null' /dev/null");
  EXPECT_NE(tty.out.find(" trials, "), std::string::npos) << "progress shown: " << tty.out.substr(0, 200);
  EXPECT_NE(tty.out.find("\r\033[K"), std::string::npos) << "and cleared";
  const auto quiet = testing::run_shell(std::string("script -qec '") + MELANGE_CLI + " " + kLongRun +
                                        " --quiet >/dev/null' /dev/null");
  EXPECT_EQ(quiet.out.find(" trials, "), std::string::npos) << quiet.out.substr(0, 200);
}

TEST(Reproduce, QuickAgreesOnEveryClaim) {
  const auto r = run_cli("reproduce --quick --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["all_agree"].get<bool>());
  EXPECT_GE(j["claims"].size(), 20u);
  for (const auto& c : j["claims"]) EXPECT_TRUE(c["agrees"].get<bool>()) << c.dump();
  const auto text = run_cli("reproduce --quick");
  EXPECT_NE(text.out.find("claims agree"), std::string::npos);
  EXPECT_NE(text.out.find("125,397"), std::string::npos);
}

// No claim fails on a correct implementation more than about once in a
// million seeds: 200 seeds here (2,000 in the slow suite) all agree.
TEST(Reproduce, EveryClaimAgreesOverManySeeds) {
  const auto r = run_cli("reproduce --quick --seed 1000 --seeds 200");
  EXPECT_EQ(r.status, 0) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("0 disagreements in 7,200 claims."), std::string::npos) << r.out.substr(0, 2000);
}

}  // namespace
}  // namespace melange
