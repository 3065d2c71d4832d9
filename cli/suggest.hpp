// "Did you mean": the nearest of a few names to a word that names none.
#pragma once

#include <string>
#include <vector>

namespace melange::cli {

// The candidate nearest to `word` in edit distance (a swap of two adjacent
// characters counts one, so `audti` is one from `audit`), if it is near
// enough to be a slip: at most 2, and less than half the word. "" if none.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'audit'?)", or "" when nothing is near.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace melange::cli
