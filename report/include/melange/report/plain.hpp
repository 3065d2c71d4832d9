// An audit in plain words: what its verdict means, where the counts stray
// furthest from expectation, what the tests could have seen, and what would
// settle a WEAK. The text, the JSON and the HTML report all say these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "melange/report/audit.hpp"

namespace melange::report {

struct DetectableLine {
  std::string test;   // the test's key in the JSON's "stats" ("rank", "lag1_position")
  std::string title;  // "rank test", "lag-1 relabeled position test"
  double effect = 0;  // the relative effect (0.024 for 2.4%)
  std::string words;  // "an order 2.4% more frequent than 1/24"
};

struct FurthestLine {
  Departure departure;
  std::string words;  // "item 1 lands at position 0 35% more often than a fair shuffle allows (8,423 against 6,250.0)"
};

struct PlainWords {
  std::string meaning;                     // what this verdict means here: thresholds, tails, Holm
  std::vector<FurthestLine> furthest;      // the bins furthest from expectation (WEAK/FAIL)
  std::vector<DetectableLine> detectable;  // the smallest effect each test detects
  std::string detectable_level;            // "power 0.9 at 1e-06 over 9 tests"
  double settle_trials = 0;                // WEAK: trials (records) in all that would settle it; 0: none
  std::string settle;                      // and in words
  std::string none_reason;                 // verdict none: why no test could run
  std::string fault;                       // WEAK/FAIL: the kind of fault the tests that saw it read
};

PlainWords plain_words(const Job& job, const AuditReport& report, const InputInfo* input);

// "2.4%", "0.31%", "140%": an effect as a percentage, two significant digits.
std::string percent(double effect);

}  // namespace melange::report
