// Writes a red-team shuffler's records as text, one record a line, for
// `melange audit --input -`:
//   melange_redteam NAME N K RECORDS [SEED]
// NAME is one of shufflers.hpp's kShufflerNames; K = N for whole decks.
#include <charconv>
#include <cstdio>
#include <iostream>
#include <string>

#include "shufflers.hpp"

namespace {

bool parse(const char* text, std::uint64_t& out) {
  const std::string_view s(text);
  return std::from_chars(s.data(), s.data() + s.size(), out).ec == std::errc{} && !s.empty();
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t n = 0, k = 0, records = 0, seed = 1;
  if (argc < 5 || !parse(argv[2], n) || !parse(argv[3], k) || !parse(argv[4], records) ||
      (argc > 5 && !parse(argv[5], seed)) || n < 2 || n > 1024 || k < 1 || k > n) {
    std::cerr << "usage: melange_redteam NAME N K RECORDS [SEED]; NAME is one of:";
    for (std::string_view name : melange::redteam::kShufflerNames) std::cerr << ' ' << name;
    std::cerr << "\n";
    return 2;
  }
  auto shuffler = melange::redteam::make_shuffler(argv[1], static_cast<int>(n), static_cast<int>(k), seed);
  if (!shuffler.next) {
    std::cerr << "melange_redteam: no shuffler named '" << argv[1] << "'\n";
    return 2;
  }
  std::vector<std::uint16_t> record(k);
  std::string line;
  for (std::uint64_t r = 0; r < records; ++r) {
    shuffler.next(record.data());
    line.clear();
    for (std::size_t i = 0; i < k; ++i) {
      if (i) line += ' ';
      line += std::to_string(record[i]);
    }
    line += '\n';
    if (std::fwrite(line.data(), 1, line.size(), stdout) != line.size()) return 1;  // the reader stopped
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
