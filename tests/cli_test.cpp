// The command line as a user meets it: outputs, JSON and errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"

namespace melange {
namespace {

using testing::run_cli;
using testing::scratch_dir;

TEST(CliWords, PrintsTheKnownAnswer) {
  const auto r = run_cli("words --seed 0 --stream 0 --count 4");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("6627e8d5 e169c58d bc57ac4c 9b00dbd8\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("seed 0"), std::string::npos) << "parameters are printed";
}

TEST(CliWords, JsonOnStdout) {
  const auto r = run_cli("words --seed 0 --stream 0 --count 5 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["words"][0], "6627e8d5");
  EXPECT_EQ(j["words"][4], "f8e4cca4");
  EXPECT_EQ(j["stream_version"], 1);
  EXPECT_EQ(j["seed"], 0);
}

TEST(CliBounded, JsonFileAndText) {
  const auto dir = scratch_dir("bounded");
  const auto file = (dir / "b.json").string();
  const auto r = run_cli("bounded --seed 2026 --stream 9 --range 200 --bits 8 --count 16 --json " + file);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::slurp(file));
  const std::vector<unsigned> want = {154, 188, 142, 164, 4, 137, 181, 21,
                                      171, 193, 62, 4, 101, 170, 144, 133};
  EXPECT_EQ(j["values"].get<std::vector<unsigned>>(), want);
  EXPECT_EQ(j["method"], "lemire");
  EXPECT_EQ(j["words_consumed"], 20);
  EXPECT_NE(r.out.find("154 188 142 164 4 137 181 21\n"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(CliVersion, ListsBackends) {
  const auto r = run_cli("version --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["backends"].is_array());
  EXPECT_EQ(j["backends"][0]["name"], "scalar");
  EXPECT_EQ(j["backends"][0]["available"], true);
  for (const auto& b : j["backends"]) {
    EXPECT_TRUE(b.contains("compiled"));
    EXPECT_TRUE(b.contains("available"));
  }
  const auto v = run_cli("--version");
  EXPECT_EQ(v.status, 0);
  EXPECT_EQ(v.out.rfind("melange ", 0), 0u) << v.out;
}

// Bad input: one line on stderr, exit status 2, and no output file.
class CliBadInput : public ::testing::TestWithParam<const char*> {};

TEST_P(CliBadInput, OneLineExit2NoFile) {
  const auto dir = scratch_dir("bad");
  const auto file = (dir / "out.json").string();
  const auto r = run_cli(std::string(GetParam()) + " --json " + file);
  EXPECT_EQ(r.status, 2) << GetParam() << "\nstderr: " << r.err;
  EXPECT_EQ(testing::count_lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("melange: ", 0), 0u) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "no temporary file left behind";
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadInput,
    ::testing::Values("words --count -5", "words --count abc", "words --count 2e9",
                      "words --count 1.5", "words --seed -1", "words --frobnicate",
                      "bounded --range 0", "bounded --range 10 --bits 0",
                      "bounded --range 10 --bits 33", "bounded --range 300 --bits 8",
                      "bounded --range 4294967297", "bounded --range 10 --method fast",
                      "bounded --range 10 --count 1000000001", "bounded", "nosuchcommand"));

}  // namespace
}  // namespace melange
