// The bench document tells what a reader must not take as a result: a row
// whose runs spread over more than kNoisySpread of their median is marked
// noisy, with its likely cause from the load average, and a row above the
// Philox limit is a measurement error, its ratios withheld.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "melange/report/bench.hpp"

namespace melange::report {
namespace {

BenchRow row(int n, double median, double low, double high, double limit) {
  BenchRow r;
  r.algorithm = "fisher-yates";
  r.n = n;
  r.backend = r.ran_on = "simd";
  r.median = median;
  r.low = low;
  r.high = high;
  r.words_per_trial = 1;
  r.peer = r.batched_peer = median / 4;
  r.limit = limit;
  r.steady = true;
  return r;
}

BenchDocument document(double load) {
  BenchDocument doc;
  doc.machine.cpu = "test CPU";
  doc.machine.hardware_threads = 2;
  doc.mode = "audit";
  doc.method = "batched";
  doc.seconds = 20;
  doc.repeats = 5;
  doc.elapsed_seconds = 31.4;
  doc.load_before = load;
  doc.steal_share = 0.001;
  doc.rows = {row(4, 1e8, 0.99e8, 1.01e8, 2e8),     // steady, under the limit
              row(8, 1e8, 0.9e8, 1.2e8, 2e8),       // noisy: 30% spread
              row(6, 2.2e8, 2.19e8, 2.21e8, 2e8)};  // above the limit
  return doc;
}

TEST(BenchReport, NoisyRowsAndRowsAboveTheLimitAreToldNotTakenAsResults) {
  const BenchDocument idle = document(0.1);
  EXPECT_FALSE(noisy(idle.rows[0]));
  EXPECT_TRUE(noisy(idle.rows[1]));
  EXPECT_FALSE(above_limit(idle.rows[0]));
  EXPECT_TRUE(above_limit(idle.rows[2]));
  const std::string text = bench_table_text(idle);
  EXPECT_NE(text.find("±15.0%?"), std::string::npos) << text;
  EXPECT_NE(text.find("2.2e+08!"), std::string::npos) << text;
  EXPECT_NE(text.find("> 1!"), std::string::npos) << text;
  EXPECT_NE(text.find("!: 1 row measured above the Philox limit, which no trial rate can pass: a measurement error"),
            std::string::npos) << text;
  EXPECT_NE(text.find("?: 1 row's runs spread over more than 10% of their median: likely the CPU's clock changing "
                      "speed (frequency scaling, turbo; load average 0.1 on 2 hardware threads before the bench, "
                      "0.1% of CPU time stolen while it ran)"),
            std::string::npos) << text;
  EXPECT_NE(text.find("measured in 31 s (--seconds 20)"), std::string::npos) << text;
  // The row above the limit shows no ratio to its peers.
  const std::string error_line = text.substr(text.find("2.2e+08!"), 80);
  EXPECT_EQ(error_line.find("8.8"), std::string::npos) << error_line;
  const std::string loaded = bench_table_text(document(1.9));
  EXPECT_NE(loaded.find("likely other work on the machine (load average 1.9 on 2 hardware threads before the bench"),
            std::string::npos) << loaded;
  BenchDocument shared = document(0.2);
  shared.steal_share = 0.08;
  const std::string stolen = bench_table_text(shared);
  EXPECT_NE(stolen.find("likely a shared host: the hypervisor ran other machines on these CPUs (load average 0.2 on 2 "
                        "hardware threads before the bench, 8.0% of CPU time stolen while it ran)"),
            std::string::npos) << stolen;
  std::ostringstream json;
  write_bench_json(json, idle);
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["elapsed_seconds"], 31.4);
  EXPECT_EQ(j["rows"][0]["noisy"], false);
  EXPECT_EQ(j["rows"][1]["noisy"], true);
  EXPECT_EQ(j["rows"][2]["measurement_error"], true);
  EXPECT_EQ(j["rows"][1]["measurement_error"], false);
}

}  // namespace
}  // namespace melange::report
