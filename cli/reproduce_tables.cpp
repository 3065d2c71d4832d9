#include "reproduce_tables.hpp"

#include <algorithm>
#include <sstream>

#include "melange/report/format.hpp"
#include "svg.hpp"

namespace melange::cli {

std::string table_text(const std::vector<Claim>& claims, std::uint64_t seed, std::uint64_t runs) {
  std::ostringstream o;
  o << "melange reproduce: " << grouped(runs) << " runs per audit, seed " << seed << "\n\n";
  std::size_t w[4] = {5, 14, 22, 8};
  for (const Claim& c : claims) {
    w[0] = std::max(w[0], c.claim.size());
    w[1] = std::max(w[1], c.article.size());
    w[2] = std::max(w[2], c.expected.size());
    w[3] = std::max(w[3], c.measured.size());
  }
  o << pad("claim", w[0]) << " | " << pad("article figure", w[1]) << " | "
    << pad("exact or expected value", w[2]) << " | " << pad("melange", w[3]) << " | agrees\n";
  o << std::string(w[0] + w[1] + w[2] + w[3] + 19, '-') << "\n";
  int agree = 0;
  for (const Claim& c : claims) {
    o << pad(c.claim, w[0]) << " | " << pad(c.article, w[1]) << " | " << pad(c.expected, w[2]) << " | "
      << pad(c.measured, w[3]) << " | " << (c.agrees ? "yes" : "NO") << "\n";
    agree += c.agrees;
  }
  o << "\n" << agree << " of " << claims.size() << " claims agree.\n";
  for (const Claim& c : claims)
    if (!c.note.empty()) o << "  note (" << c.claim << "): " << c.note << "\n";
  return o.str();
}

std::string table_html(const std::vector<Claim>& claims, const AuditView* chart, std::uint64_t seed,
                       std::uint64_t runs) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>melange reproduce</title>\n"
       "<style>body{font-family:sans-serif;max-width:1200px;margin:2em auto;color:#222}"
       "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px}"
       "th{background:#f3f3f3}.yes{color:#1a7f37;font-weight:bold}.no{color:#cf222e;font-weight:bold}"
       "</style></head><body>\n<h1>melange reproduces the article</h1>\n<p>"
    << grouped(runs) << " runs per audit, seed " << seed
    << ". A sampled figure agrees when it lies within five standard deviations of what the exact "
       "model predicts; an exact figure when it is equal.</p>\n<table>\n<tr><th>claim</th><th>article "
       "figure</th><th>exact or expected value</th><th>measured by melange</th><th>agrees</th><th>note</th></tr>\n";
  for (const Claim& c : claims)
    o << "<tr><td>" << xml_escape(c.claim) << "</td><td>" << xml_escape(c.article) << "</td><td>"
      << xml_escape(c.expected) << "</td><td>" << xml_escape(c.measured) << "</td><td class=\""
      << (c.agrees ? "yes\">yes" : "no\">NO") << "</td><td>" << xml_escape(c.note) << "</td></tr>\n";
  o << "</table>\n";
  if (chart) o << "<h2>The one-liner's orders</h2>\n" << audit_svg(*chart) << "\n";
  o << "</body></html>\n";
  return o.str();
}

Json claims_json(const std::vector<Claim>& claims, std::uint64_t seed, std::uint64_t runs, bool quick) {
  Json j = json_header("reproduce");
  j["seed"] = json_u64(seed);
  j["runs"] = runs;
  j["quick"] = quick;
  Json rows = Json::array();
  for (const Claim& c : claims)
    rows.push_back(Json{{"claim", c.claim}, {"article", c.article}, {"expected", c.expected},
                        {"measured", c.measured}, {"agrees", c.agrees}, {"note", c.note}});
  j["claims"] = rows;
  j["all_agree"] = std::all_of(claims.begin(), claims.end(), [](const Claim& c) { return c.agrees; });
  return j;
}

}  // namespace melange::cli
