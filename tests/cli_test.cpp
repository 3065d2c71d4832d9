// The command line as a user meets it: outputs, JSON and errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

#include "cli_support.hpp"
#include "melange/limits.hpp"
#include "melange/stats.hpp"

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
  EXPECT_EQ(j["seed"], "0");
}

TEST(CliBounded, JsonFileAndText) {
  const auto dir = scratch_dir("bounded");
  const auto file = (dir / "b.json").string();
  const auto r = run_cli("bounded --seed 2026 --stream 9 --range 200 --method lemire --bits 8 --count 16 --json " + file);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::slurp(file));
  const std::vector<unsigned> want = {154, 188, 142, 164, 4, 137, 181, 21,
                                      171, 193, 62, 4, 101, 170, 144, 133};
  EXPECT_EQ(j["values"].get<std::vector<unsigned>>(), want);
  EXPECT_EQ(j["method"], "lemire");
  EXPECT_EQ(j["words_consumed"], "20");
  EXPECT_NE(r.out.find("154 188 142 164 4 137 181 21\n"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

// words and bounded start from the same defaults as every other command:
// the fixed job seed and the batched method.
TEST(CliBounded, DefaultsAreEveryCommandsSeedAndMethod) {
  const auto bounded = run_cli("bounded --range 6 --count 4 --json -");
  ASSERT_EQ(bounded.status, 0) << bounded.err;
  const auto b = nlohmann::json::parse(bounded.out);
  EXPECT_EQ(b["seed"], std::to_string(melange::kDefaultSeed));
  EXPECT_EQ(b["method"], "batched");
  const auto words = run_cli("words --count 1 --json -");
  ASSERT_EQ(words.status, 0) << words.err;
  EXPECT_EQ(nlohmann::json::parse(words.out)["seed"], std::to_string(melange::kDefaultSeed));
  const auto sample = run_cli("sample --count 1 --json -");
  ASSERT_EQ(sample.status, 0) << sample.err;
  const auto s = nlohmann::json::parse(sample.out);
  EXPECT_EQ(s["seed"], b["seed"]);
  EXPECT_EQ(s["method"], b["method"]);
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
    // A backend that cannot run says why ("no CUDA device", "not built ...").
    if (!b["available"].get<bool>()) {
      EXPECT_FALSE(b.value("reason", std::string()).empty()) << b.dump();
    }
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
                      "bounded --range 4294967297 --method modulo", "bounded --range 18446744073709551616", "bounded --range 10 --method fast",
                      "bounded --range 10 --count 1000000001", "bounded", "nosuchcommand"));

TEST(CliAudit, JsonHasTheDocumentedKeys) {
  const auto r = run_cli("audit --algo sort-binary-insertion --n 4 --trials 1e5 --seed 9 --position --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"format", "format_version", "verdict", "source", "seed", "algorithm", "method", "bits", "n",
                          "trials", "first", "threads", "histogram", "position", "stats", "backend", "stream_version"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["format"], "melange-audit");
  EXPECT_EQ(j["format_version"], 1);
  EXPECT_EQ(j["source"], "trials");
  for (const char* key : {"chi2", "df", "p_value", "log10_p", "max_min_ratio", "identity_count"})
    EXPECT_TRUE(j["stats"].contains(key)) << key;
  EXPECT_EQ(j["verdict"], "FAIL");
  EXPECT_EQ(j["histogram"].size(), 24u);
  EXPECT_EQ(j["position"].size(), 4u);
  EXPECT_EQ(j["trials"], "100000");
  EXPECT_EQ(j["seed"], "9");
}

TEST(CliAudit, TextShowsEveryOrderForSmallN) {
  const auto r = run_cli("audit --n 3 --trials 6000");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* label : {"ABC", "ACB", "BAC", "BCA", "CAB", "CBA"})
    EXPECT_NE(r.out.find(label), std::string::npos) << label;
  EXPECT_NE(r.out.find("seed 30792288626960229"), std::string::npos) << "default seed printed";
  EXPECT_NE(r.out.find("verdict: PASS"), std::string::npos) << r.out;
}

TEST(CliAudit, ThreadCountDoesNotChangeTheJson) {
  const auto a = nlohmann::json::parse(run_cli("audit --n 5 --trials 300001 --threads 1 --json -").out);
  const auto b = nlohmann::json::parse(run_cli("audit --n 5 --trials 300001 --threads 7 --json -").out);
  ASSERT_TRUE(a["histogram"].is_array());
  EXPECT_EQ(a["histogram"], b["histogram"]);
  EXPECT_EQ(a["stats"]["chi2"], b["stats"]["chi2"]);
}

TEST(CliAudit, ModelFromExactFile) {
  const auto dir = scratch_dir("model");
  const auto model = (dir / "model.json").string();
  ASSERT_EQ(run_cli("exact --algo sort-binary-insertion --n 4 --json " + model).status, 0);
  const auto r = run_cli("audit --algo sort-binary-insertion --n 4 --trials 4e5 --model " + model + " --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["verdict"], "PASS");
  const auto wrong = run_cli("audit --algo sort-binary-insertion --n 5 --trials 1000 --model " + model);
  EXPECT_EQ(wrong.status, 2);
  EXPECT_NE(wrong.err.find("--model is for n = 4"), std::string::npos) << wrong.err;
  std::filesystem::remove_all(dir);
}

// Slips get the name they miss; --quiet works with every command; sizes
// take suffixes.
TEST(CliConventions, DidYouMeanQuietEverywhereAndSizes) {
  for (const auto& [args, hint] : std::vector<std::pair<std::string, std::string>>{
           {"audti --n 4", "(did you mean 'audit'?)"},
           {"audit --trails 1e3", "(did you mean '--trials'?)"},
           {"audit -n 4", "(did you mean '--n'?)"},
           {"audit --algo fisher_yates", "(did you mean 'fisher-yates'?)"},
           {"sample --method lemir", "(did you mean 'lemire'?)"}}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(testing::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(hint), std::string::npos) << args << ": " << r.err;
  }
  EXPECT_EQ(run_cli("audit --zzz").err.find("did you mean"), std::string::npos) << "nothing near, nothing said";
  for (const char* command : {"sample --count 2", "words --count 2", "bounded --range 3 --count 2", "exact --n 3",
                              "reach --n 52", "version"}) {
    const auto r = run_cli(std::string(command) + " --quiet");
    EXPECT_EQ(r.status, 0) << command << ": " << r.err;
  }
  // exact refuses --seed with its reason, and its help does not list it.
  const auto seeded = run_cli("exact --n 3 --seed 5");
  EXPECT_EQ(seeded.status, 2);
  EXPECT_NE(seeded.err.find("uses no seed"), std::string::npos) << seeded.err;
  EXPECT_EQ(run_cli("exact --help").out.find("--seed"), std::string::npos);
  EXPECT_EQ(run_cli("audit --n 4 --trials 1e3 --memory-cap 2G --quiet").status, 0);
  EXPECT_EQ(run_cli("audit --n 4 --trials 1e3 --memory-cap 1.5GiB --quiet").status, 0);
  // A cap under the program's own size is refused naming it: 5000K is
  // 5,120,000 bytes (4.9 MiB), not 5,000,000 (4.8 MiB).
  const auto small = run_cli("audit --n 8 --trials 1e3 --memory-cap 5000K");
  EXPECT_EQ(small.status, 2);
  EXPECT_NE(small.err.find("--memory-cap 4.9 MiB is less"), std::string::npos) << small.err;
  EXPECT_NE(run_cli("audit --n 8 --trials 1e3 --memory-cap 5120000").err.find("--memory-cap 4.9 MiB is less"),
            std::string::npos) << "K is 1024 bytes";
  EXPECT_NE(run_cli("audit --n 8 --trials 1e3 --memory-cap 5000000").err.find("--memory-cap 4.8 MiB is less"),
            std::string::npos);
  const auto bad = run_cli("audit --n 4 --trials 1e3 --memory-cap 2X");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("such as 2G, 512M"), std::string::npos) << bad.err;
  // --first reads 1e6 notation as --trials does, and refuses a fraction.
  EXPECT_EQ(run_cli("sample --n 4 --count 2 --first 1e3").out, run_cli("sample --n 4 --count 2 --first 1000").out);
  EXPECT_EQ(run_cli("sample --n 4 --count 2 --first 0x3e8").out, run_cli("sample --n 4 --count 2 --first 1000").out);
  EXPECT_EQ(run_cli("sample --n 4 --count 2 --first 1.5").status, 2);
}

TEST(CliAudit, MemoryCapIsConfigurable) {
  // 10! bins take 29 MB: a 24 MiB cap, the program's own few MiB and its
  // outputs' room taken off, holds no n = 10 histogram, and says what to do
  // with the figure the cap leaves the tallies, not a cap nobody gave.
  const auto over = run_cli("audit --n 10 --trials 1e3 --memory-cap 24M");
  EXPECT_EQ(over.status, 2);
  EXPECT_NE(over.err.find("the memory cap leaves them"), std::string::npos) << over.err;
  EXPECT_EQ(over.err.find("24.0 MiB"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("--memory-cap"), std::string::npos) << over.err;
  EXPECT_NE(over.err.find("--position"), std::string::npos) << "suggests the position matrix";
  EXPECT_EQ(run_cli("audit --n 7 --trials 1e3 --memory-cap 16M").status, 0);
  const auto left_out = run_cli("audit --n 10 --trials 1e3 --memory-cap 24M --position");
  EXPECT_EQ(left_out.status, 0) << "with --position the rank histogram is left out";
  EXPECT_NE(left_out.out.find("rank histogram left out"), std::string::npos) << "and the output says so";
  EXPECT_NE(run_cli("audit --n 22 --trials 1e3 --position").out.find("rank histogram left out"), std::string::npos);
}

TEST(CliExact, JsonDistribution) {
  const auto r = run_cli("exact --algo naive-swap --n 3 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["paths"], 27);
  ASSERT_EQ(j["distribution"].size(), 6u);
  EXPECT_EQ(j["distribution"][1]["label"], "ACB");
  EXPECT_EQ(j["distribution"][1]["numerator"], "5");
  EXPECT_EQ(j["distribution"][1]["denominator"], "27");
  EXPECT_TRUE(j.contains("expected_chi2"));
  EXPECT_TRUE(j.contains("trials_to_detect"));
}

TEST(CliExact, TextHasFractionsAndPower) {
  const auto r = run_cli("exact --algo sort-binary-insertion --n 4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1/16"), std::string::npos);
  EXPECT_NE(r.out.find("1/32"), std::string::npos);
  EXPECT_NE(r.out.find("9/2"), std::string::npos);
  EXPECT_NE(r.out.find("trials to detect"), std::string::npos);
}

// Riffles: the law of the rising sequences for any deck, in closed form.
TEST(CliExact, RiffleGivesTheLawOfRisingSequencesAndTheDistances) {
  const auto r = run_cli("exact --algo riffle --riffles 7 --n 52 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["algorithm"], "riffle");
  EXPECT_EQ(j["riffles"], 7);
  EXPECT_NEAR(j["total_variation"].get<double>(), 0.334, 5e-4) << "Bayer and Diaconis: 0.334";
  ASSERT_EQ(j["rising_sequences"].size(), 52u);
  double total = 0;
  for (const auto& row : j["rising_sequences"]) total += row["probability"].get<double>();
  EXPECT_NEAR(total, 1, 1e-12);
  const auto text = run_cli("exact --algo riffle --riffles 5 --n 52");
  EXPECT_NE(text.out.find("total variation to uniform  0.923733"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("separation from uniform     1\n"), std::string::npos) << text.out;
  for (const char* bad : {"exact --algo riffle --n 52", "exact --algo riffle --riffles 31 --n 52",
                          "exact --algo fisher-yates --riffles 3 --n 5", "exact --algo riffle --riffles 3 --n 5 --svg x.svg",
                          "audit --algo fisher-yates --riffles 3 --n 5", "audit --algo riffle --n 52 --trials 10"}) {
    const auto e = run_cli(bad);
    EXPECT_EQ(e.status, 2) << bad;
    EXPECT_NE(e.err.find("riffle"), std::string::npos) << bad << ": " << e.err;
  }
}

// A casino's log of machine shuffles: 100 decks of 7 riffles are told
// apart from uniform, and consistent with 7 riffles by their rising
// sequences, whose law is exact at 52 cards.
TEST(CliInput, RiffledDecksAgainstUniformAndAgainstSevenRiffles) {
  const auto dir = scratch_dir("input-riffles");
  const std::string records = (dir / "decks.txt").string();
  ASSERT_EQ(run_cli("sample --algo riffle --riffles 7 --n 52 --count 100 --seed 3 > " + records).status, 0);
  const auto uniform = run_cli("audit " + records + " --json -");
  ASSERT_EQ(uniform.status, 0) << uniform.err;
  EXPECT_EQ(nlohmann::json::parse(uniform.out)["verdict"], "FAIL");
  const auto seven = run_cli("audit " + records + " --algo riffle --riffles 7 --model exact --json -");
  ASSERT_EQ(seven.status, 0) << seven.err;
  const auto j = nlohmann::json::parse(seven.out);
  EXPECT_EQ(j["verdict"], "PASS");
  EXPECT_EQ(j["reference"], "exact law of the rising sequences");
  EXPECT_NE(j["stats"]["notes"].dump().find("PASS against 7 riffles, FAIL against 6 riffles"), std::string::npos)
      << "consistent with 7 riffles, not 6: " << j["stats"]["notes"].dump();
  EXPECT_FALSE(j.contains("position")) << "no law of the positions: only R is tested";
  const auto built_in = run_cli("audit --algo riffle --riffles 7 --n 52 --trials 2000 --model exact --serial");
  EXPECT_EQ(built_in.status, 2) << "--serial tests against uniform laws";
  const std::string law = (dir / "law.json").string();
  ASSERT_EQ(run_cli("exact --algo riffle --riffles 7 --n 52 --json " + law).status, 0);
  const auto as_file = run_cli("audit " + records + " --model " + law);
  EXPECT_EQ(as_file.status, 2);
  EXPECT_NE(as_file.err.find("--model exact"), std::string::npos) << as_file.err;
  std::filesystem::remove_all(dir);
}

// The shelf shuffler: the law of the valleys for any deck, in closed form.
TEST(CliExact, ShelfGivesTheLawOfValleysAndTheDistances) {
  const auto r = run_cli("exact --algo shelf --shelves 10 --passes 2 --n 52 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["algorithm"], "shelf");
  EXPECT_EQ(j["shelves"], 10);
  EXPECT_EQ(j["passes"], 2);
  EXPECT_EQ(j["one_pass_shelves"], "200");
  EXPECT_NEAR(j["total_variation"].get<double>(), 0.0103, 1e-4);
  ASSERT_EQ(j["valleys"].size(), 26u);
  double total = 0;
  for (const auto& row : j["valleys"]) total += row["probability"].get<double>();
  EXPECT_NEAR(total, 1, 1e-12);
  // Two passes leave a guesser little more than a fair deck's H_52 = 4.5380.
  EXPECT_NEAR(j["guesses_mean"].get<double>(), 4.5561, 1e-4);
  EXPECT_GE(j["best_guesses_mean"].get<double>(), j["guesses_mean"].get<double>());
  const auto text = run_cli("exact --algo shelf --shelves 10 --n 52");
  EXPECT_NE(text.out.find("10 shelves, 1 pass"), std::string::npos) << "one pass unless told" << text.out;
  EXPECT_NE(text.out.find("mean correct guesses        9.2966 (uniform: 4.5380; the best any guesser can: 9.2966)"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(nlohmann::json::parse(run_cli("exact --algo shelf --shelves 10 --n 65 --json -").out).count("guesses_mean"), 0u)
      << "no guessing means past kShelfGuessingItems cards";
  EXPECT_NE(text.out.find("separation from uniform     1\n"), std::string::npos) << text.out;
  for (const char* bad : {"exact --algo shelf --n 52", "exact --algo shelf --shelves 1 --n 52",
                          "exact --algo shelf --shelves 10 --passes 9 --n 52", "exact --algo fisher-yates --shelves 3 --n 5",
                          "exact --algo shelf --shelves 3 --n 5 --svg x.svg", "audit --algo fisher-yates --passes 2 --n 5",
                          "sample --algo shelf --n 52 --count 3",
                          "exact --algo shelf --shelves 1024 --passes 8 --n 1024"}) {
    const auto e = run_cli(bad);
    EXPECT_EQ(e.status, 2) << bad;
    EXPECT_NE(e.err.find("shel"), std::string::npos) << bad << ": " << e.err;
  }
}

// Under a biased method the shelf machine's draws are uneven: its law is
// the walk of its definition, not the closed form (which gave total
// variation 2/27 = 0.0740741 here), and an audit of the same job against
// that law passes; where the walk is too large, the refusal says why.
TEST(CliExact, AShelfUnderABiasedMethodIsTheWalkNotTheClosedForm) {
  const auto walked = run_cli("exact --algo shelf --shelves 3 --n 4 --method modulo --bits 4 --json -");
  ASSERT_EQ(walked.status, 0) << walked.err;
  const auto j = nlohmann::json::parse(walked.out);
  ASSERT_EQ(j["distribution"].size(), 24u) << "the walk's orders, not the valleys' law";
  double tv = 0;
  for (const auto& e : j["distribution"]) tv += std::abs(e["probability"].get<double>() - 1.0 / 24) / 2;
  EXPECT_NEAR(tv, 0.0758464, 1e-7);
  const auto audit = run_cli("audit --algo shelf --shelves 3 --n 4 --method modulo --bits 4 --model exact "
                             "--trials 1e6 --seed 5 --json -");
  ASSERT_EQ(audit.status, 0) << audit.err;
  EXPECT_EQ(nlohmann::json::parse(audit.out)["verdict"], "PASS") << audit.out;
  const auto closed = run_cli("exact --algo shelf --shelves 4 --n 4 --method modulo --bits 4 --json -");
  EXPECT_EQ(nlohmann::json::parse(closed.out).count("distribution"), 0u) << "4 shelves divide 2^4: the closed form";
  const auto big = run_cli("exact --algo shelf --shelves 3 --n 52 --method modulo --bits 8");
  EXPECT_EQ(big.status, 2);
  EXPECT_NE(big.err.find("closed form assumes uniform draws"), std::string::npos) << big.err;
}

// A casino's log of one pass through a 10-shelf machine: told apart from
// uniform by its valleys and the shelf guesser, consistent with one pass,
// not with two; the report draws the valleys against both laws, and its
// command line names the machine.
TEST(CliInput, ShelvedDecksAgainstUniformAndTheirLaw) {
  const auto dir = scratch_dir("input-shelves");
  const std::string records = (dir / "decks.txt").string();
  ASSERT_EQ(run_cli("sample --algo shelf --shelves 10 --n 52 --count 300 --seed 3 > " + records).status, 0);
  const auto uniform = nlohmann::json::parse(run_cli("audit " + records + " --json -").out);
  EXPECT_EQ(uniform["verdict"], "FAIL");
  EXPECT_EQ(uniform["stats"]["valleys_mean"]["verdict"], "FAIL");
  EXPECT_EQ(uniform["stats"]["shelf_guesses_mean"]["verdict"], "FAIL");
  const std::string report = (dir / "report").string();
  const auto one = run_cli("audit " + records + " --algo shelf --shelves 10 --model exact --json - --report " + report);
  ASSERT_EQ(one.status, 0) << one.err;
  const auto j = nlohmann::json::parse(one.out);
  EXPECT_EQ(j["verdict"], "PASS");
  EXPECT_EQ(j["reference"], "exact law of the valleys");
  EXPECT_NE(j["stats"]["notes"].dump().find("PASS against 1 pass of 10 shelves, FAIL against 2 passes of 10 shelves"),
            std::string::npos)
      << j["stats"]["notes"].dump();
  std::ifstream page(report + "/index.html");
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("--algo shelf --shelves 10 --passes 1 --model exact"), std::string::npos) << "the command names the machine";
  EXPECT_NE(html.find(": valleys"), std::string::npos) << "a chart of the valleys";
  EXPECT_NE(html.find("grey dashes: expected under a uniform shuffle"), std::string::npos);
  const auto two = run_cli("audit " + records + " --algo shelf --shelves 10 --passes 2 --model exact --json -");
  EXPECT_EQ(nlohmann::json::parse(two.out)["verdict"], "FAIL") << "one pass is not two";
  const std::string law = (dir / "law.json").string();
  ASSERT_EQ(run_cli("exact --algo shelf --shelves 10 --n 52 --json " + law).status, 0);
  const auto as_file = run_cli("audit " + records + " --model " + law);
  EXPECT_EQ(as_file.status, 2);
  EXPECT_NE(as_file.err.find("--model exact"), std::string::npos) << as_file.err;
  std::filesystem::remove_all(dir);
}

TEST(CliSample, LinesOfItemIndices) {
  const auto r = run_cli("sample --algo fisher-yates --n 6 --count 5 --seed 3 --first 10");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line[0], '#');
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream items(line);
    std::vector<int> p;
    for (int x; items >> x;) p.push_back(x);
    std::sort(p.begin(), p.end());
    EXPECT_EQ(p, (std::vector<int>{0, 1, 2, 3, 4, 5})) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 5);
  // Trial 12 alone is the third line of the run above.
  const auto one = run_cli("sample --algo fisher-yates --n 6 --count 1 --seed 3 --first 12");
  EXPECT_EQ(one.out.substr(one.out.find('\n') + 1), r.out.substr(0, 0) + [&] {
    std::istringstream again(r.out);
    std::string l;
    for (int i = 0; i < 4; ++i) std::getline(again, l);
    return l + "\n";
  }());
}

TEST(CliSample, JsonNamesTheBackend) {
  const auto r = run_cli("sample --algo sort-binary-insertion --n 4 --count 3 --backend scalar --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "scalar");
  EXPECT_EQ(j["permutations"].size(), 3u);
  EXPECT_EQ(j["permutations"][0].size(), 4u);
}

TEST(CliReach, FiftyTwoCardsAndA128BitState) {
  const auto r = run_cli("reach --n 52 --state-bits 128 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["log2_orders"].get<double>(), 225.58, 0.005);
  EXPECT_FALSE(j["reaches_every_order"].get<bool>());
  EXPECT_NEAR(j["reachable_fraction"].get<double>() / 4.2e-30, 1.0, 0.01);
  const auto text = run_cli("reach --n 52 --state-bits 128 --deal 5");
  EXPECT_NE(text.out.find("311,875,200 ordered, 2,598,960 hands"), std::string::npos) << text.out;
}

INSTANTIATE_TEST_SUITE_P(
    JobCases, CliBadInput,
    ::testing::Values("audit --n 0 --trials 10", "audit --n 13 --trials 10",
                      "audit --algo sort-v8-timsort --n 64 --trials 10 --position",
                      "audit --trials 0", "audit --algo bogosort", "audit --threads 0",
                      "audit --threads -2", "audit --trials 1e3 --model nosuchfile.json",
                      "audit --n 1025 --position --trials 10", "exact --n 10 --algo naive-swap",
                      "exact --algo sort-binary-insertion --n 9", "sample --n 0",
                      "sample --n 300 --format u8", "reach --n 0", "reach --state-bits 0",
                      "audit --n 4 --trials 10 --method modulo --bits 1"));

// `bounded --method batched`: the draws of one range are an endless
// schedule, cut into batches of nine ranges of 6 (6^9 <= 2^24 < 6^10): six
// draws read a single word.
TEST(CliBounded, BatchedReadsSeveralDrawsFromAWord) {
  const auto r = run_cli("bounded --range 6 --count 6 --method batched --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["words_consumed"], "1");
  EXPECT_EQ(j["values"].size(), 6u);
  EXPECT_EQ(run_cli("audit --n 4 --trials 10 --method batched --bits 31").status, 2);
}

}  // namespace
}  // namespace melange

namespace melange {
namespace {

using testing::run_cli;
using testing::run_shell;
using testing::scratch_dir;
using testing::slurp;

// sample --format: text, u8, u16 and npy carry the same records, and each,
// read back by audit --input, gives the built-in audit's histogram.
TEST(CliSample, EveryFormatCarriesTheSameRecords) {
  const auto dir = scratch_dir("sample-formats");
  const std::string job = " --algo sort-v8-timsort --n 5 --count 20000 --seed 21 --first 4294967000";
  const auto builtin = nlohmann::json::parse(
      run_cli("audit --algo sort-v8-timsort --n 5 --trials 20000 --seed 21 --first 4294967000 --json -").out);
  const char* formats[] = {"text", "u8", "u16", "npy"};
  for (int f = 0; f < 4; ++f) {
    const std::string file = (dir / (std::string("r.") + formats[f])).string();
    const auto written = run_cli("sample" + job + " --format " + formats[f] + " --output " + file);
    ASSERT_EQ(written.status, 0) << written.err;
    const auto audited = run_cli("audit --input " + file + " --format " + formats[f] + " --n 5 --json -");
    ASSERT_EQ(audited.status, 0) << audited.err;
    EXPECT_EQ(nlohmann::json::parse(audited.out)["histogram"], builtin["histogram"]) << formats[f];
  }
  const std::string u8 = slurp(dir / "r.u8"), u16 = slurp(dir / "r.u16"), npy = slurp(dir / "r.npy");
  ASSERT_EQ(u8.size(), 100000u);
  ASSERT_EQ(u16.size(), 200000u);
  for (std::size_t i = 0; i < u8.size(); ++i) {
    ASSERT_EQ(u16[2 * i], u8[i]) << i;
    ASSERT_EQ(u16[2 * i + 1], 0) << i;
  }
  EXPECT_EQ(npy.substr(npy.size() - u8.size()), u8) << "npy: a header, then the u8 bytes";
  EXPECT_NE(npy.find("'descr': '|u1', 'fortran_order': False, 'shape': (20000, 5)"), std::string::npos);
  EXPECT_EQ((npy.size() - u8.size()) % 64, 0u) << "the data starts 64-byte aligned";
  // n above 256: npy holds uint16.
  ASSERT_EQ(run_cli("sample --n 300 --count 3 --format npy --output " + (dir / "w.npy").string()).status, 0);
  EXPECT_NE(slurp(dir / "w.npy").find("'descr': '<u2'"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// audit --input: another program's records give the same histogram and
// verdict as the built-in audit of the job that wrote them.
TEST(CliInput, RecordsFromSampleMatchTheBuiltInAudit) {
  const auto dir = scratch_dir("input");
  const std::string records = (dir / "records.txt").string();
  ASSERT_EQ(run_cli("sample --algo sort-v8-timsort --n 5 --count 30000 --seed 9 > " + records).status, 0);
  const auto builtin = run_cli("audit --algo sort-v8-timsort --n 5 --trials 30000 --seed 9 --position --json -");
  const auto from_file = run_cli("audit --input " + records + " --n 5 --position --json -");
  const auto from_pipe = run_shell("cat " + records + " | " MELANGE_CLI " audit --input - --n 5 --position --json -");
  ASSERT_EQ(from_file.status, 0) << from_file.err;
  ASSERT_EQ(from_pipe.status, 0) << from_pipe.err;
  const auto b = nlohmann::json::parse(builtin.out), f = nlohmann::json::parse(from_file.out),
             p = nlohmann::json::parse(from_pipe.out);
  EXPECT_EQ(f["histogram"], b["histogram"]);
  EXPECT_EQ(f["position"], b["position"]);
  EXPECT_EQ(f["verdict"], b["verdict"]);
  EXPECT_EQ(f["stats"]["chi2"], b["stats"]["chi2"]);
  EXPECT_EQ(f["trials"], "30000");
  EXPECT_EQ(f["input"]["format"], "text");
  EXPECT_EQ(p["histogram"], b["histogram"]);
  // Against the exact law of the algorithm that wrote them: a fair test.
  const auto model = run_cli("audit --input " + records + " --n 5 --algo sort-v8-timsort --model exact --json -");
  ASSERT_EQ(model.status, 0) << model.err;
  EXPECT_EQ(nlohmann::json::parse(model.out)["verdict"], "PASS");
  std::filesystem::remove_all(dir);
}

// A log in daily files: several files are one stream, in the order given,
// each with its own header line; the audit equals the one of their
// concatenation, lags and repeats across the files' boundaries included.
// Files of other records, a folder, standard input among files: refused
// before anything is read, and a wrong record names its file.
TEST(CliInput, SeveralFilesAreOneStream) {
  const auto dir = scratch_dir("input-files");
  const std::string all = (dir / "all.txt").string();
  ASSERT_EQ(run_cli("sample --algo riffle --riffles 3 --n 8 --count 30000 --seed 4 --output " + all).status, 0);
  std::vector<std::string> parts;
  for (int p = 0; p < 3; ++p) {
    parts.push_back((dir / ("day" + std::to_string(p) + ".txt")).string());
    const std::string lines = std::to_string(2 + p * 10000) + "," + std::to_string(1 + (p + 1) * 10000) + "p";
    ASSERT_EQ(run_shell("(head -1 " + all + "; sed -n " + lines + " " + all + ") > " + parts.back()).status, 0);
  }
  const std::string files = parts[0] + " " + parts[1] + " " + parts[2];
  const auto whole = run_cli("audit " + all + " --predict-seconds 0 --json -");
  const auto split = run_cli("audit " + files + " --predict-seconds 0 --json -");
  ASSERT_EQ(whole.status, 0) << whole.err;
  ASSERT_EQ(split.status, 0) << split.err;
  auto w = nlohmann::json::parse(whole.out), s = nlohmann::json::parse(split.out);
  EXPECT_EQ(s["input"]["files"], nlohmann::json(parts));
  EXPECT_EQ(s["trials"], "30000");
  EXPECT_EQ(s["verdict"], "FAIL") << "three riffles of the last deck: lag 1";
  for (const char* how : {"input", "reproduce"}) {  // the files' names
    w.erase(how);
    s.erase(how);
  }
  EXPECT_EQ(s, w);
  const auto text = run_cli("audit " + files + " --predict-seconds 0 --quiet");
  EXPECT_NE(text.out.find("records from 3 files, " + parts[0] + " to " + parts[2]), std::string::npos) << text.out;

  const std::string four = (dir / "four.txt").string(), bad = (dir / "bad.txt").string();
  ASSERT_EQ(run_cli("sample --n 4 --count 10 --output " + four).status, 0);
  ASSERT_EQ(run_shell("(cat " + parts[1] + "; echo 1 2 3) > " + bad).status, 0);
  const std::string json = (dir / "out.json").string();
  const std::pair<std::string, std::string> refused[] = {
      {parts[0] + " " + four, "holds other records than"},
      {parts[0] + " " + dir.string(), "is a folder"},
      {parts[0] + " -", "standard input ('-') is one stream of records on its own"},
      {parts[0] + " " + (dir / "none.txt").string(), "cannot read --input"},
      {parts[0] + " " + bad, "in '" + bad + "': record 10001 (line 10002)"},
  };
  for (const auto& [args, words] : refused) {
    const auto r = run_cli("audit " + args + " --predict-seconds 0 --json " + json);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(testing::count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(json)) << args;
  }
  std::filesystem::remove_all(dir);
}

// With --progressive: a line per test after 2^10, 2^11, .. records;
// --stop-on-fail stops at the first FAIL and still writes the outputs for
// what was read.
TEST(CliInput, ProgressiveLinesAndStopOnFail) {
  const auto dir = scratch_dir("input-progressive");
  const std::string json = (dir / "out.json").string();
  const auto fair = run_shell(MELANGE_CLI " sample --n 4 --count 5000 | " MELANGE_CLI " audit --input - --n 4 --progressive");
  ASSERT_EQ(fair.status, 0) << fair.err;
  EXPECT_NE(fair.out.find("  records 2^10 (1,024): rank chi2 "), std::string::npos) << fair.out;
  EXPECT_NE(fair.out.find("  records 2^12 (4,096): "), std::string::npos) << fair.out;
  EXPECT_EQ(fair.out.find("2^13"), std::string::npos) << fair.out;
  const auto biased = run_shell(MELANGE_CLI " sample --algo sort-binary-insertion --n 4 --count 100000 | " MELANGE_CLI
                                " audit --input - --n 4 --progressive --stop-on-fail --json " + json);
  ASSERT_EQ(biased.status, 0) << biased.err;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["trials"], "1024") << "the one-liner fails at the first line";
  EXPECT_EQ(j["verdict"], "FAIL");
  std::filesystem::remove_all(dir);
}

// A file and the same file piped print the same report (the input's name
// aside), and --brief prints the verdict, the tests that did not PASS and
// the plain words in at most 15 lines.
TEST(CliInput, APipedFilePrintsWhatTheFilePrintsAndBriefIsShort) {
  const auto dir = scratch_dir("input-piped");
  const std::string fair = (dir / "fair.txt").string(), biased = (dir / "biased.txt").string();
  ASSERT_EQ(run_shell(MELANGE_CLI " sample --n 52 --count 20000 --output " + fair).status, 0);
  ASSERT_EQ(run_shell(MELANGE_CLI " sample --algo naive-swap --n 8 --count 200000 --output " + biased).status, 0);
  // Each `what` in text as "-".
  const auto dashed = [](const std::string& text, const std::string& what) {
    std::string out;
    std::size_t from = 0;
    for (std::size_t at; (at = text.find(what, from)) != std::string::npos; from = at + what.size())
      out.append(text, from, at - from).append("-");
    return out.append(text, from, std::string::npos);
  };
  const auto unnamed = [&](const std::string& text, const std::string& path) {
    return dashed(dashed(text, path), "standard input");
  };
  for (const std::string& file : {fair, biased}) {
    const auto direct = run_shell(MELANGE_CLI " audit " + file);
    const auto piped = run_shell("cat " + file + " | " MELANGE_CLI " audit -");
    ASSERT_EQ(direct.status, 0) << direct.err;
    ASSERT_EQ(piped.status, 0) << piped.err;
    EXPECT_EQ(unnamed(piped.out, file), unnamed(direct.out, file));
    EXPECT_EQ(piped.out.find("records 2^10"), std::string::npos) << "no progressive lines unless asked";
    const auto brief = run_shell("cat " + file + " | " MELANGE_CLI " audit - --brief");
    ASSERT_EQ(brief.status, 0) << brief.err;
    EXPECT_LE(std::count(brief.out.begin(), brief.out.end(), '\n'), 15) << brief.out;
    EXPECT_NE(brief.out.find("  in plain words: "), std::string::npos) << brief.out;
    EXPECT_NE(brief.out.find("  reproduce with: melange audit -"), std::string::npos) << brief.out;
    const std::string verdict = direct.out.substr(direct.out.rfind("verdict: "));
    EXPECT_EQ(brief.out.substr(brief.out.rfind("verdict: ")), verdict);
    if (file == biased) {
      EXPECT_EQ(verdict, "verdict: FAIL\n");
      EXPECT_NE(brief.out.find("    FAIL: position test, Holm p "), std::string::npos) << brief.out;
      EXPECT_NE(brief.out.find("    FAIL: rising sequence test, Holm p "), std::string::npos) << brief.out;
      EXPECT_NE(brief.out.find("  the fault the tests see: "), std::string::npos) << brief.out;
    }
  }
  std::filesystem::remove_all(dir);
}

// SIGINT on an endless stream ends the read; what was read is reported and
// written, with status 130. (set -m: a background job of a script must not
// ignore SIGINT.)
TEST(CliInput, InterruptReportsWhatWasRead) {
  const auto dir = scratch_dir("input-sigint");
  const std::string json = (dir / "out.json").string(), records = (dir / "r.txt").string();
  ASSERT_EQ(run_cli("sample --n 4 --count 3000 > " + records).status, 0);
  const auto r = run_shell("bash -c 'set -m; (cat " + records + "; sleep 4) | " MELANGE_CLI
                           " audit --input - --n 4 --json " + json +
                           " & pid=$!; sleep 1; kill -INT $pid; wait $pid; echo status=$?; kill -- -$(jobs -p) || true'");
  EXPECT_NE(r.out.find("status=130"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("records 3,000"), std::string::npos) << r.out;
  ASSERT_TRUE(std::filesystem::exists(json));
  EXPECT_EQ(nlohmann::json::parse(slurp(json))["trials"], "3000");
  std::filesystem::remove_all(dir);
}

TEST(CliInput, AWrongRecordStopsBeforeAnythingIsWritten) {
  const auto dir = scratch_dir("input-bad");
  const std::string records = (dir / "records.txt").string(), json = (dir / "out.json").string();
  std::ofstream(records) << "0 1 2 3\n3 2 1 0\n0 1 1 3\n";
  const auto bad = run_cli("audit --input " + records + " --n 4 --json " + json);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(testing::count_lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("record 3 (line 3): \"0 1 1 3\": item 1 appears twice"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(json)) << "nothing is written when the input is rejected";
  // One of three is more than --skip-invalid skips unless told all.
  EXPECT_EQ(run_cli("audit --input " + records + " --n 4 --skip-invalid --json " + json).status, 2);
  const auto skipped = run_cli("audit --input " + records + " --n 4 --skip-invalid=all --json " + json);
  ASSERT_EQ(skipped.status, 0) << skipped.err;
  const auto j = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(j["trials"], "2");
  EXPECT_EQ(j["invalid_records"], "1");
  for (const std::string& args : {"--input " + records + " --n 4 --trials 5", "--input " + records + " --n 4 --k 5",
                                 std::string("--n 4 --skip-invalid"), "--input " + dir.string() + " --n 4",
                                 "--input " + records + "-missing --n 4", "--input " + records + " --n 4 --format csv"}) {
    const auto r = run_cli("audit " + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_EQ(testing::count_lines(r.err), 1) << args << ": " << r.err;
  }
  const auto empty = run_shell("printf '' | " MELANGE_CLI " audit --input - --n 4");
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("no records"), std::string::npos) << empty.err;
  std::filesystem::remove_all(dir);
}

// A biased log piped into `audit --n 4` gets no PASS (it is refused:
// robustness_reads_test has the cases); `audit -` reads it and FAILs it.
TEST(CliInput, APipedBiasedLogGetsNoPass) {
  const std::string biased = "for i in $(seq 3000); do echo 0 1 2 3; done";
  const auto ignored = run_shell(biased + " | " MELANGE_CLI " audit --n 4");
  EXPECT_EQ(ignored.status, 2) << ignored.out;
  EXPECT_EQ(ignored.out.find("PASS"), std::string::npos) << ignored.out;
  const auto read = run_shell(biased + " | " MELANGE_CLI " audit - --quiet");
  EXPECT_EQ(read.status, 0) << read.err;
  EXPECT_NE(read.out.find("verdict: FAIL"), std::string::npos) << read.out;
}

// Input audits speak of records; a p below the smallest double prints as a
// mantissa and an exponent, never as "1e-1269.5".
TEST(CliInput, WordsOfAnInputAudit) {
  const auto few = run_shell(MELANGE_CLI " sample --n 4 --count 300 | " MELANGE_CLI
                             " audit - --quiet");
  ASSERT_EQ(few.status, 0) << few.err;
  EXPECT_NE(few.out.find("(needs about 2,880 records)"), std::string::npos) << few.out;  // 576 pairs of orders, 5 a pair
  EXPECT_EQ(few.out.find(" trials"), std::string::npos) << few.out;
  const auto biased = run_cli("audit --algo sort-binary-insertion --n 4 --trials 1e6 --quiet");
  EXPECT_NE(biased.out.find("p 1.045e-27247,"), std::string::npos) << biased.out;
}

// Where the rank test cannot run, the position test runs without being
// asked, and says so: a biased file at n = 8 with 4.9 records a bin (once
// "verdict: none"), and n = 52 without --position (once a usage error).
// Where the rank test runs, the position test stays out unless asked.
TEST(CliAudit, ThePositionTestStepsInWhereTheRankTestCannot) {
  const auto few = run_shell(MELANGE_CLI " sample --algo naive-swap --n 8 --count 199000 | " MELANGE_CLI
                             " audit - --quiet");
  ASSERT_EQ(few.status, 0) << few.err;
  EXPECT_NE(few.out.find("position test run without being asked: the rank test could not run (too few records a bin)"),
            std::string::npos) << few.out;
  EXPECT_NE(few.out.find("verdict: FAIL"), std::string::npos) << few.out;
  const auto big = run_cli("audit --n 52 --trials 2e4 --quiet");
  ASSERT_EQ(big.status, 0) << big.err;
  EXPECT_NE(big.out.find("position test (52x52)"), std::string::npos) << big.out;
  EXPECT_NE(big.out.find("too many orders for a histogram"), std::string::npos) << big.out;
  const auto enough = run_shell(MELANGE_CLI " sample --n 4 --count 3000 | " MELANGE_CLI " audit - --quiet");
  EXPECT_EQ(enough.out.find("position test"), std::string::npos) << enough.out;
  EXPECT_NE(enough.out.find("rank test (24 orders)"), std::string::npos) << enough.out;
}

// `melange audit FILE` is `--input FILE`; what the flags leave out, the
// records say: n (text: the first record; .npy: its shape), 1-based items,
// a header line, Python's list form; each inference is stated. A given --n
// that the records contradict is refused with what they hold.
TEST(CliInput, RecordsExplainThemselves) {
  const auto dir = scratch_dir("input-infer");
  const auto path = [&](const char* name) { return (dir / name).string(); };
  ASSERT_EQ(run_cli("sample --n 6 --count 3000 --seed 4 --output " + path("six.txt")).status, 0);
  ASSERT_EQ(run_cli("sample --n 6 --count 3000 --seed 4 --format npy --output " + path("six.npy")).status, 0);
  const auto as_input = run_cli("audit --input " + path("six.txt") + " --n 6 --json -");
  const auto as_file = run_cli("audit " + path("six.txt") + " --json -");
  ASSERT_EQ(as_file.status, 0) << as_file.err;
  auto a = nlohmann::json::parse(as_input.out), b = nlohmann::json::parse(as_file.out);
  ASSERT_TRUE(a["histogram"].is_array());
  EXPECT_EQ(a["histogram"], b["histogram"]);
  EXPECT_EQ(b["input"]["inferred"], "n 6 from the first record");
  EXPECT_EQ(nlohmann::json::parse(run_cli("audit " + path("six.npy") + " --json -").out)["input"]["inferred"],
            "n 6 from the array's shape");
  // The same records 1-based, under a header line, as Python lists.
  std::ifstream in(path("six.txt"));
  std::ofstream one(path("one.txt")), header(path("header.csv")), lists(path("lists.txt"));
  header << "first,second,third,fourth,fifth,sixth\n";
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream items(line);
    bool first = true;
    for (int x; items >> x; first = false) {
      one << (first ? "" : " ") << x + 1;
      header << (first ? "" : ",") << x;
      lists << (first ? "[" : ", ") << x;
    }
    one << "\n";
    header << "\n";
    lists << "]\n";
  }
  one.close();
  header.close();
  lists.close();
  for (const char* name : {"one.txt", "header.csv", "lists.txt"}) {
    const auto r = run_cli("audit " + path(name) + " --json -");
    ASSERT_EQ(r.status, 0) << name << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["histogram"], a["histogram"]) << name;
    EXPECT_EQ(j["input"]["base"], std::string(name) == "one.txt" ? 1 : 0) << name;
  }
  const auto text = run_cli("audit " + path("header.csv") + " --quiet");
  EXPECT_NE(text.out.find("read from the records: n 6 from the first record; the first line passed over as a header "
                          "(\"first,second,third,fourth,fifth,sixth\")"),
            std::string::npos)
      << text.out;
  EXPECT_NE(run_cli("audit " + path("one.txt") + " --quiet").out.find("1-based (the first record holds 1..6, no 0"),
            std::string::npos);
  // What a wrong flag gets told.
  const auto wrong_n = run_cli("audit " + path("six.txt") + " --n 4");
  EXPECT_EQ(wrong_n.status, 2);
  EXPECT_NE(wrong_n.err.find("records have 6 items"), std::string::npos) << wrong_n.err;
  EXPECT_NE(wrong_n.err.find("--n is 4"), std::string::npos) << wrong_n.err;
  const auto wrong_npy = run_cli("audit " + path("six.npy") + " --n 5");
  EXPECT_NE(wrong_npy.err.find("the array's records have 6 items; --n is 5"), std::string::npos) << wrong_npy.err;
  const auto u8 = run_cli("audit " + path("six.txt") + " --format u8");
  EXPECT_EQ(u8.status, 2);
  EXPECT_NE(u8.err.find("give --n"), std::string::npos) << u8.err;
  const auto unended = run_shell("printf '1 0 2 3' | " MELANGE_CLI " audit - --quiet");
  EXPECT_EQ(unended.status, 0) << "one record and no line end: " << unended.err;
  EXPECT_NE(unended.out.find("n 4 from the first record"), std::string::npos) << unended.out;
  const auto twice = run_cli("audit " + path("six.txt") + " --input " + path("six.txt"));
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("give the records once"), std::string::npos) << twice.err;
  std::filesystem::remove_all(dir);
}

// Deals say k by their length, given --n; without --n a record of numbers
// past its own length is refused with the flag that fits. A first record
// that fails names the flag that would read it (--base 1, --format), and
// --skip-invalid stops being a repair past 1% of the records.
TEST(CliInput, HintsNameTheFlagThatFits) {
  const auto dir = scratch_dir("input-hints");
  const auto path = [&](const char* name) { return (dir / name).string(); };
  ASSERT_EQ(run_cli("sample --algo partial --n 52 --k 5 --count 20000 --seed 4 --output " + path("deals.txt")).status, 0);
  const auto given_k = run_cli("audit " + path("deals.txt") + " --n 52 --k 5 --json -");
  const auto inferred_k = run_cli("audit " + path("deals.txt") + " --n 52 --json -");
  ASSERT_EQ(inferred_k.status, 0) << inferred_k.err;
  const auto gk = nlohmann::json::parse(given_k.out), ik = nlohmann::json::parse(inferred_k.out);
  EXPECT_EQ(ik["k"], 5);
  EXPECT_EQ(ik["position"], gk["position"]);
  EXPECT_EQ(ik["verdict"], gk["verdict"]);
  EXPECT_NE(ik["input"]["inferred"].get<std::string>().find("deals of k 5 from the first record"), std::string::npos);
  const auto no_n = run_cli("audit " + path("deals.txt"));
  EXPECT_EQ(no_n.status, 2);
  EXPECT_NE(no_n.err.find("the first record has 5 items, the largest"), std::string::npos) << no_n.err;
  EXPECT_NE(no_n.err.find("give --n, its size"), std::string::npos) << no_n.err;

  {
    std::ofstream one(path("one.txt"));
    for (int r = 0; r < 3000; ++r) one << (r % 2 ? "1 2 3 4\n" : "4 3 2 1\n");
  }
  const auto based = run_cli("audit " + path("one.txt") + " --base 0");
  EXPECT_EQ(based.status, 2);
  EXPECT_NE(based.err.find("records that count items from 1 want --base 1"), std::string::npos) << based.err;
  ASSERT_EQ(run_cli("sample --n 8 --count 1000 --format u8 --output " + path("perms.u8")).status, 0);
  std::filesystem::copy_file(path("perms.u8"), path("perms.bin"));
  const auto binary = run_cli("audit " + path("perms.bin"));
  EXPECT_EQ(binary.status, 2);
  EXPECT_NE(binary.err.find("the input is not text"), std::string::npos) << binary.err;
  EXPECT_NE(binary.err.find("--format u8"), std::string::npos) << binary.err;

  // 1 wrong record in 100 is skipped; 2 in 100 are refused unless =all;
  // all of them wrong stops the read early with the share said.
  const auto with_wrong = [&](const char* name, int every) {
    std::ofstream out(path(name));
    for (int r = 0; r < 6000; ++r) out << (r % every == 7 ? "0 1 2 9\n" : r % 2 ? "0 1 2 3\n" : "3 2 1 0\n");
  };
  with_wrong("few.txt", 100);
  with_wrong("many.txt", 50);
  const auto few = run_cli("audit " + path("few.txt") + " --skip-invalid --json -");
  ASSERT_EQ(few.status, 0) << few.err;
  EXPECT_EQ(nlohmann::json::parse(few.out)["invalid_records"], "60");
  const auto many = run_cli("audit " + path("many.txt") + " --skip-invalid");
  EXPECT_EQ(many.status, 2);
  EXPECT_NE(many.err.find("120 of the 6000 records read (2%) are wrong, more than the 1% --skip-invalid skips"),
            std::string::npos) << many.err;
  EXPECT_NE(many.err.find("give --skip-invalid the value all"), std::string::npos) << many.err;
  const auto all = run_cli("audit " + path("many.txt") + " --skip-invalid=all --json -");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(nlohmann::json::parse(all.out)["invalid_records"], "120");
  const auto wrong_base = run_cli("audit " + path("one.txt") + " --base 0 --skip-invalid");
  EXPECT_EQ(wrong_base.status, 2);
  EXPECT_NE(wrong_base.err.find("1024 of the 1024 records read (100%)"), std::string::npos) << wrong_base.err;
  EXPECT_NE(wrong_base.err.find("(records that count items from 1 want --base 1)"), std::string::npos) << wrong_base.err;
  // =all skips any number, most of the records too: no early stop.
  {
    std::ofstream mostly(path("mostly.txt"));
    for (int r = 0; r < 3000; ++r) mostly << (r % 3 == 0 ? "0 1 2 3\n" : "0 1 2 9\n");
  }
  const auto mostly = run_cli("audit " + path("mostly.txt") + " --n 4 --skip-invalid=all --json -");
  ASSERT_EQ(mostly.status, 0) << mostly.err;
  EXPECT_EQ(nlohmann::json::parse(mostly.out)["invalid_records"], "2000");
  std::filesystem::remove_all(dir);
}

// Every verdict says what it means, where the counts stray most (WEAK or
// FAIL), the smallest bias each test would catch and, for a WEAK, the
// records that would settle it; the JSON carries the same under "plain".
TEST(CliPlainWords, VerdictsExplainThemselves) {
  const auto fail = run_cli("audit --algo naive-swap --n 4 --trials 1e5 --quiet");
  ASSERT_EQ(fail.status, 0) << fail.err;
  EXPECT_NE(fail.out.find("in plain words: FAIL: the test's p-value (one test, so uncorrected) fell below 1e-06"),
            std::string::npos) << fail.out;
  // naive-swap's likeliest orders at n = 4 are BADC, BCDA, ACDB, BCAD at 27/256 against 1/24.
  EXPECT_NE(fail.out.find("furthest from expectation:\n    order BADC comes up"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("more often than a fair shuffle allows"), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("rank test: an order "), std::string::npos) << fail.out;
  EXPECT_NE(fail.out.find("% more frequent than 1/24"), std::string::npos) << fail.out;
  EXPECT_LT(fail.out.find("in plain words"), fail.out.find("verdict: FAIL")) << "the verdict line stays last";

  const auto weak = run_cli("audit --method modulo --bits 5 --n 3 --trials 5e3 --seed 1 --json -");
  ASSERT_EQ(weak.status, 0) << weak.err;
  const auto w = nlohmann::json::parse(weak.out);
  ASSERT_EQ(w["verdict"], "WEAK");
  EXPECT_NE(w["plain"]["meaning"].get<std::string>().find("Suspicious, not proven"), std::string::npos);
  const auto settle = std::stoull(w["plain"]["settle_trials"].get<std::string>());
  EXPECT_GT(settle, 5000u);
  EXPECT_NE(w["plain"]["settle"].get<std::string>().find("more trials"), std::string::npos);
  ASSERT_EQ(w["plain"]["detectable"].size(), 1u);
  const double e = w["plain"]["detectable"][0]["effect"];
  EXPECT_NEAR(e, melange::detectable_chi2_effect(5, 1.0 / 5, 5000, 1e-6, melange::kPlainPower), 1e-12);
  EXPECT_EQ(w["stats"]["detectable_effect"], e);
  EXPECT_EQ(w["plain"]["furthest"].size(), 3u);

  // Records 1-based name their items as written; no test: the reason why.
  const auto dir = scratch_dir("plain");
  {
    std::ofstream out(dir / "one.txt");
    for (int r = 0; r < 3000; ++r) out << (r % 3 ? "2 1 3 4\n" : "1 2 3 4\n");
  }
  const auto records = run_cli("audit " + (dir / "one.txt").string() + " --quiet");
  EXPECT_NE(records.out.find("order 2 1 3 4 comes up"), std::string::npos) << records.out;
  const auto none = run_cli("audit --n 4 --trials 100 --quiet");
  EXPECT_NE(none.out.find("in plain words: no test could run on 100 trials: rank test skipped"), std::string::npos)
      << none.out;
  // The fault the flagging tests read: each trial biased, for the naive swap.
  EXPECT_NE(fail.out.find("the fault the tests see: each trial biased (rank)"), std::string::npos) << fail.out;
  // Tests that ran but could not see a doubling: no PASS, and the records a
  // first verdict needs; status 0, as for any verdict but a --fail-on-bias FAIL.
  const auto blind = run_cli("audit --n 52 --position --trials 500 --json - --fail-on-bias");
  ASSERT_EQ(blind.status, 0) << blind.err;
  const auto b = nlohmann::json::parse(blind.out);
  EXPECT_TRUE(b["verdict"].is_null());
  EXPECT_GT(b["records_for_a_verdict"].get<double>(), 2000.0);
  EXPECT_NE(b["plain"]["none_reason"].get<std::string>().find(
                "no verdict on 500 trials: too few for one. No test of cells or orders here could see one made twice "
                "as likely"),
            std::string::npos)
      << b["plain"];
  const auto enough = run_cli("audit --n 52 --position --trials " +
                              std::to_string(static_cast<long long>(b["records_for_a_verdict"].get<double>() * 1.2)) +
                              " --json -");
  EXPECT_EQ(nlohmann::json::parse(enough.out)["verdict"], "PASS");
  std::filesystem::remove_all(dir);
}

// --labels reads records written in names and names the items by them in
// every output; records in letters keep their letters; without labels a
// 52-item audit shows numbers, not card names it was never given.
TEST(CliInput, LabelsNameTheItemsInAndOut) {
  const auto dir = scratch_dir("labels");
  const auto path = [&](const char* name) { return (dir / name).string(); };
  ASSERT_EQ(run_cli("sample --n 3 --count 3000 --seed 8 --output " + path("numbers.txt")).status, 0);
  {
    const char* names[] = {"ace", "king", "queen"};
    std::ifstream in(path("numbers.txt"));
    std::ofstream named(path("named.txt")), letters(path("letters.txt"));
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream items(line);
      int count = 0;
      for (int x; items >> x; ++count) {
        named << (count ? "," : "") << names[x];
        letters << static_cast<char>('A' + x);
      }
      named << "\n";
      letters << "\n";
    }
  }
  const auto plain = nlohmann::json::parse(run_cli("audit " + path("numbers.txt") + " --json -").out);
  const auto named = run_cli("audit " + path("named.txt") + " --labels ace,king,queen --csv " + path("named.csv") +
                             " --svg " + path("named.svg") + " --json " + path("named.json") + " --position");
  ASSERT_EQ(named.status, 0) << named.err;
  const auto j = nlohmann::json::parse(slurp(path("named.json")));
  EXPECT_EQ(j["histogram"], plain["histogram"]) << "the same records, named";
  EXPECT_EQ(j["input"]["inferred"], "n 3 from --labels");
  EXPECT_NE(named.out.find("  king ace queen "), std::string::npos) << named.out;
  EXPECT_NE(slurp(path("named.csv")).find("\n2,king ace queen,"), std::string::npos);
  EXPECT_NE(slurp(path("named-position.csv")).find("\n1,king,0,"), std::string::npos);
  EXPECT_NE(slurp(path("named.svg")).find("item queen at position"), std::string::npos);
  EXPECT_NE(named.out.find("(item "), std::string::npos);
  for (const auto& m : j["stats"]["most_frequent"]) EXPECT_NE(m["label"].get<std::string>().find(' '), std::string::npos);
  const auto letters = run_cli("audit " + path("letters.txt") + " --json -");
  ASSERT_EQ(letters.status, 0) << letters.err;
  EXPECT_EQ(nlohmann::json::parse(letters.out)["stats"]["most_frequent"][0]["label"].get<std::string>().size(), 5u)
      << "letters as written: 'B A C'";
  // Wrong labels: too few, twice, a token that is none of them, no records.
  EXPECT_NE(run_cli("audit " + path("named.txt") + " --labels ace,king").err.find("--labels names 2"), std::string::npos);
  EXPECT_NE(run_cli("audit " + path("named.txt") + " --labels ace,ace,king").err.find("names 'ace' twice"),
            std::string::npos);
  EXPECT_NE(run_cli("audit " + path("named.txt") + " --labels ace,king,jack").err.find("'queen' is not one of the 3 labels"),
            std::string::npos);
  EXPECT_NE(run_cli("audit " + path("named.txt")).err.find("--labels"), std::string::npos)
      << "names without --labels are told about it";
  EXPECT_EQ(run_cli("audit --n 3 --labels ace,king,queen").status, 2) << "labels are for records";
  // 52 items, no labels: numbers in the heatmap, never card names.
  ASSERT_EQ(run_cli("sample --n 52 --count 2000 --output " + path("decks.txt")).status, 0);
  ASSERT_EQ(run_cli("audit " + path("decks.txt") + " --quiet --svg " + path("decks.svg")).status, 0);
  const std::string svg = slurp(path("decks.svg"));
  EXPECT_EQ(svg.find("item As"), std::string::npos);
  EXPECT_NE(svg.find("item 51 at position"), std::string::npos);
  const auto cards = run_cli("audit " + path("decks.txt") + " --labels cards --quiet");
  EXPECT_EQ(cards.status, 2) << "numbers are not card names";
  std::filesystem::remove_all(dir);
}

// Cards as people write them: ranks 2..9, 10 or T, J Q K A in either case,
// suits c d h s in either case or the suit symbols, mixed in one file, read
// as the same cards; a card none of them is told the spellings, not
// --skip-invalid.
TEST(CliInput, CardsAsPeopleWriteThem) {
  const auto dir = scratch_dir("cards");
  const auto path = [&](const char* name) { return (dir / name).string(); };
  ASSERT_EQ(run_cli("sample --algo partial --n 52 --k 5 --count 3000 --seed 9 --output " + path("numbers.txt")).status, 0);
  {
    const char* ranks[][3] = {{"2", "2", "2"}, {"3", "3", "3"}, {"4", "4", "4"}, {"5", "5", "5"}, {"6", "6", "6"},
                              {"7", "7", "7"}, {"8", "8", "8"}, {"9", "9", "9"}, {"T", "10", "t"}, {"J", "j", "J"},
                              {"Q", "q", "Q"}, {"K", "k", "K"}, {"A", "a", "A"}};
    const char* suits[][3] = {{"c", "C", "\u2663"}, {"d", "D", "\u2666"}, {"h", "H", "\u2665"}, {"s", "S", "\u2660"}};
    std::ifstream in(path("numbers.txt"));
    std::ofstream plain(path("plain.txt")), mixed(path("mixed.txt"));
    int line = 0;
    for (std::string text; std::getline(in, text);) {
      if (text.empty() || text[0] == '#') continue;
      std::istringstream items(text);
      int slot = 0;
      for (int c; items >> c; ++slot) {
        const int v = (line + slot) % 3, w = (line * 7 + slot) % 3;
        plain << (slot ? " " : "") << ranks[c % 13][0] << suits[c / 13][0];
        mixed << (slot ? " " : "") << ranks[c % 13][v] << suits[c / 13][w];
      }
      plain << "\n";
      mixed << "\n";
      ++line;
    }
  }
  const auto a = run_cli("audit " + path("plain.txt") + " --labels cards --predict-seconds 0 --json -");
  const auto b = run_cli("audit " + path("mixed.txt") + " --labels cards --predict-seconds 0 --json -");
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  auto x = nlohmann::json::parse(a.out), y = nlohmann::json::parse(b.out);
  EXPECT_EQ(x["trials"], "3000");
  x.erase("input");
  y.erase("input");
  x.erase("reproduce");
  y.erase("reproduce");
  EXPECT_EQ(x, y) << "the same deals, however their cards are written";
  // The reproduce line names every option that changed the result, and
  // run as printed gives the same counts and tests.
  const auto c = run_cli("audit " + path("mixed.txt") +
                         " --labels cards --lag 1,2 --skip-invalid --weak 0.01 --predict-seconds 0 --json -");
  ASSERT_EQ(c.status, 0) << c.err;
  const auto z = nlohmann::json::parse(c.out);
  const std::string line = z["reproduce"].get<std::string>();
  for (const char* flag : {" --labels cards", " --lag 1,2", " --skip-invalid", " --k 5", " --format text", " --weak 0.01",
                           " --predict-seconds 0"})
    EXPECT_NE(line.find(flag), std::string::npos) << flag << " in " << line;
  ASSERT_EQ(line.rfind("melange audit ", 0), 0u) << line;
  const auto again = run_cli(line.substr(std::string("melange ").size()) + " --json -");
  ASSERT_EQ(again.status, 0) << again.err;
  const auto w = nlohmann::json::parse(again.out);
  EXPECT_EQ(w["stats"], z["stats"]);
  EXPECT_EQ(w["reproduce"], z["reproduce"]);
  std::ofstream(path("wrong.txt")) << "10h Jd qS 6\u2665 as\nXx 2c 3c 4c 5c\n";
  const auto wrong = run_cli("audit " + path("wrong.txt") + " --labels cards --predict-seconds 0");
  EXPECT_EQ(wrong.status, 2);
  EXPECT_EQ(testing::count_lines(wrong.err), 1) << wrong.err;
  EXPECT_NE(wrong.err.find("'Xx' is not one of the 52 labels; cards are a rank 2..9, 10 or T"), std::string::npos)
      << wrong.err;
  EXPECT_EQ(wrong.err.find("--skip-invalid"), std::string::npos) << wrong.err;
  std::ofstream(path("twice.txt")) << "10h Th 2c 3c 4c\n";
  EXPECT_NE(run_cli("audit " + path("twice.txt") + " --labels cards --predict-seconds 0").err.find("'Th' appears twice"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// A poker audit: the ten categories in text and JSON, the slot matrix, the
// hands counted; the deal histogram (311,875,200 bins) left out with a note.
TEST(CliDeals, PokerAuditHasCategoriesSlotsAndHands) {
  const auto r = run_cli("audit --algo partial --n 52 --k 5 --trials 4e6 --seed 3 --hands --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["k"], 5);
  ASSERT_EQ(j["poker_categories"].size(), 10u);
  EXPECT_EQ(j["poker_categories"][0]["category"], "royal flush");
  std::uint64_t total = 0;
  for (const auto& c : j["poker_categories"]) total += c["count"].get<std::uint64_t>();
  EXPECT_EQ(total, 4'000'000u);
  EXPECT_EQ(j["position"].size(), 52u);
  EXPECT_EQ(j["position"][0].size(), 5u);
  EXPECT_EQ(j["hand_bins"], 2'598'960);
  EXPECT_FALSE(j.contains("hands")) << "2,598,960 counts stay out of the JSON";
  EXPECT_EQ(j["stats"]["category"]["df"], 9);
  EXPECT_EQ(j["stats"]["position"]["df"], 255);
  EXPECT_EQ(j["verdict"], "PASS");
  const auto text = run_cli("audit --algo partial --n 52 --k 5 --trials 4e6 --seed 3");
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* s : {"poker category", "royal flush", "high card", "slot test (52x5)",
                        "poker category test (10 categories, fair law)", "deal histogram left out"})
    EXPECT_NE(text.out.find(s), std::string::npos) << s << "\n" << text.out;
  // --csv: the slot matrix to FILE-position.csv (no deal histogram, so no
  // FILE), the categories beside it, each with its fixed columns.
  const auto dir = scratch_dir("poker-csv");
  const auto csv = run_cli("audit --algo partial --n 52 --k 5 --trials 4e6 --seed 3 --csv " + (dir / "p.csv").string());
  ASSERT_EQ(csv.status, 0) << csv.err;
  const std::string slots = slurp(dir / "p-position.csv"), categories = slurp(dir / "p-categories.csv");
  EXPECT_EQ(slots.rfind("item,label,position,count,expected,residual\n0,0,0,", 0), 0u) << slots.substr(0, 80);
  EXPECT_FALSE(std::filesystem::exists(dir / "p.csv"));
  EXPECT_EQ(testing::count_lines(slots), 1 + 52 * 5);
  EXPECT_EQ(categories.rfind("category,count,expected,ratio,z\nroyal flush,", 0), 0u) << categories;
  EXPECT_EQ(testing::count_lines(categories), 11);
  std::filesystem::remove_all(dir);
}

TEST(CliDeals, SmallDealsListEveryDealAndTheirHands) {
  const auto r = run_cli("audit --algo partial --n 5 --k 2 --trials 20000 --hands");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* s : {"deal test (20 deals)", "slot test (5x2)", "hand test (10 hands)", "EA ", "first deal (AB)"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
}

TEST(CliDeals, SampleDealsKItemsARow) {
  const auto r = run_cli("sample --algo partial --n 10 --k 3 --count 4 --seed 1");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_NE(line.find("partial, n 10, k 3"), std::string::npos) << line;
  int rows = 0;
  while (std::getline(in, line)) {
    std::istringstream items(line);
    std::vector<int> deal;
    for (int v; items >> v;) deal.push_back(v);
    ASSERT_EQ(deal.size(), 3u) << line;
    std::sort(deal.begin(), deal.end());
    EXPECT_TRUE(std::adjacent_find(deal.begin(), deal.end()) == deal.end()) << line;
    EXPECT_LT(deal.back(), 10);
    ++rows;
  }
  EXPECT_EQ(rows, 4);
  const auto j = nlohmann::json::parse(run_cli("sample --algo partial --n 10 --k 3 --count 4 --seed 1 --json -").out);
  EXPECT_EQ(j["deals"].size(), 4u);
  EXPECT_EQ(j["deals"][0].size(), 3u);
}

// The exact poker categories under an 8-bit modulo source: every path of the
// five draws, in integers out of 2^40.
TEST(CliDeals, ExactPokerCategoriesUnderEightBitModulo) {
  const auto r = run_cli("exact --algo partial --n 52 --k 5 --method modulo --bits 8 --json -");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["total"], std::uint64_t{1} << 40);
  EXPECT_EQ(j["poker_categories"][0]["weight"], 1'569'000);  // royal flush
  EXPECT_EQ(j["poker_categories"][4]["weight"], 2'174'126'520);  // flush
  EXPECT_NEAR(j["poker_categories"][0]["ratio_to_fair"].get<double>(), 0.927, 0.001);
  const auto small = run_cli("exact --algo partial --n 4 --k 2 --method modulo --bits 2");
  ASSERT_EQ(small.status, 0) << small.err;
  for (const char* s : {"partial, n 4, k 2", "deal", "hand", "DA    9                1  1/8", "AD    3         1/4"})
    EXPECT_NE(small.out.find(s), std::string::npos) << s << "\n" << small.out;
}

// Deals another program wrote: k items a record; the same tallies as the
// built-in audit of the job that wrote them.
TEST(CliDeals, InputDealsMatchTheBuiltInAudit) {
  const auto dir = scratch_dir("input-deals");
  const std::string records = (dir / "deals.txt").string();
  ASSERT_EQ(run_cli("sample --algo partial --n 8 --k 3 --count 20000 --seed 4 > " + records).status, 0);
  const auto builtin = run_cli("audit --algo partial --n 8 --k 3 --trials 20000 --seed 4 --hands --json -");
  const auto from_file = run_cli("audit --input " + records + " --n 8 --k 3 --hands --json -");
  ASSERT_EQ(from_file.status, 0) << from_file.err;
  const auto b = nlohmann::json::parse(builtin.out), f = nlohmann::json::parse(from_file.out);
  EXPECT_EQ(f["histogram"], b["histogram"]);
  EXPECT_EQ(f["position"], b["position"]);
  EXPECT_EQ(f["hands"], b["hands"]);
  EXPECT_EQ(f["stats"]["chi2"], b["stats"]["chi2"]);
  EXPECT_EQ(f["k"], 3);
  // A record with a repeated item or the wrong length is named.
  std::ofstream(dir / "bad.txt") << "0 1 2\n3 3 4\n";
  const auto bad = run_cli("audit --input " + (dir / "bad.txt").string() + " --n 8 --k 3");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("record 2 (line 2)"), std::string::npos) << bad.err;
  std::filesystem::remove_all(dir);
}

class CliBadDeals : public ::testing::TestWithParam<const char*> {};

TEST_P(CliBadDeals, OneLineExit2) {
  const auto r = run_cli(GetParam());
  EXPECT_EQ(r.status, 2) << GetParam() << "\nstderr: " << r.err;
  EXPECT_EQ(testing::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--k"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Cases, CliBadDeals,
                         ::testing::Values("audit --algo partial --n 5", "audit --algo partial --n 5 --k 6",
                                           "audit --algo fisher-yates --n 5 --k 3", "audit --n 5 --hands",
                                           "sample --algo partial --n 5 --k 0", "exact --algo partial --n 5",
                                           "exact --algo sattolo --n 5 --k 2"));

// Weighted orders: weights as a list or a file; the Plackett-Luce law as
// exact fractions; the demo formula's audit shows the lightest item first.
TEST(CliWeights, ListFileExactAndTheDemo) {
  const auto dir = scratch_dir("weights");
  const std::string file = (dir / "w.txt").string();
  std::ofstream(file) << "1\n2.5\n4\n";
  const auto from_list = run_cli("audit --algo weighted --n 3 --weights 1,2.5,4 --trials 1e5 --model exact --json -");
  const auto from_file = run_cli("audit --algo weighted --n 3 --weights " + file + " --trials 1e5 --model exact --json -");
  ASSERT_EQ(from_list.status, 0) << from_list.err;
  ASSERT_EQ(from_file.status, 0) << from_file.err;
  const auto l = nlohmann::json::parse(from_list.out), f = nlohmann::json::parse(from_file.out);
  EXPECT_EQ(l["histogram"], f["histogram"]);
  EXPECT_NE(l["verdict"], "FAIL");
  EXPECT_EQ(l["reference"], "exact model");
  const auto exact = run_cli("exact --algo weighted --n 3 --weights 1,2.5,4");
  ASSERT_EQ(exact.status, 0) << exact.err;
  for (const char* s : {"Plackett-Luce", "2/39", "8/21"}) EXPECT_NE(exact.out.find(s), std::string::npos) << s << exact.out;
  const auto demo = run_cli("audit --algo weighted-int-power --n 4 --weights 1,2,3,4 --trials 1e5 --position "
                            "--model plackett-luce");
  ASSERT_EQ(demo.status, 0) << demo.err;
  for (const char* s : {"weights 1,2,3,4", "ABCD  0", "verdict: FAIL"})
    EXPECT_NE(demo.out.find(s), std::string::npos) << s << "\n" << demo.out;
  std::filesystem::remove_all(dir);
}

class CliBadWeights : public ::testing::TestWithParam<const char*> {};

TEST_P(CliBadWeights, OneLineExit2) {
  const auto r = run_cli(GetParam());
  EXPECT_EQ(r.status, 2) << GetParam() << "\nstderr: " << r.err;
  EXPECT_EQ(testing::count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("weight"), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliBadWeights,
    ::testing::Values("audit --algo weighted --n 3 --weights 1,0,2", "audit --algo weighted --n 3 --weights 1,-2,3",
                      "audit --algo weighted --n 3 --weights 1,nan,3", "audit --algo weighted --n 3 --weights 1,inf,3",
                      "audit --algo weighted --n 3 --weights 1,2", "audit --algo weighted --n 3 --weights 1,,2",
                      "audit --algo weighted --n 3 --weights x", "audit --algo weighted --n 3",
                      "audit --algo fisher-yates --n 3 --weights 1,2,3", "sample --algo weighted-int-power --n 2 --weights 1,2,3",
                      "exact --algo weighted --n 3 --weights 1,2", "exact --algo weighted-int-power --n 3 --weights 1,2,3",
                      "audit --algo weighted-int-power --n 3 --weights 1,2,3 --model exact",
                      "audit --n 3 --model plackett-luce --weights 1,2,3"));

}  // namespace
}  // namespace melange
