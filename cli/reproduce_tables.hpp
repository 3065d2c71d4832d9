// `melange reproduce`'s claims as its outputs give them: the text table,
// the HTML page, the JSON document.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "artifacts.hpp"
#include "output.hpp"

namespace melange::cli {

// One claim of the article, beside its exact or expected value and what
// melange measured.
struct Claim {
  std::string claim, article, expected, measured, note;
  bool agrees = false;
};

std::string table_text(const std::vector<Claim>& claims, std::uint64_t seed, std::uint64_t runs);
// The page; `chart`, where given, is the audit whose orders it draws.
std::string table_html(const std::vector<Claim>& claims, const AuditView* chart, std::uint64_t seed,
                       std::uint64_t runs);
Json claims_json(const std::vector<Claim>& claims, std::uint64_t seed, std::uint64_t runs, bool quick);

}  // namespace melange::cli
