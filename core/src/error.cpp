#include "melange/error.hpp"

#include <cstdint>

namespace melange {
namespace {

// Replaces each {name} naming a Param by spell(param); other text stays.
std::string substitute(const std::string& text, const std::function<std::string(Param)>& spell) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, 2, "{{") == 0) {  // a brace of quoted text (token_safe)
      out += '{';
      i += 2;
      continue;
    }
    const std::size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    bool replaced = false;
    if (close != std::string::npos) {
      const std::string_view name(text.data() + i + 1, close - i - 1);
      for (int v = 1; v <= static_cast<int>(kLastParam); ++v)
        if (const auto p = static_cast<Param>(v); param_name(p) == name) {
          out += spell(p);
          i = close + 1;
          replaced = true;
          break;
        }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

std::string plain(Param p) { return std::string(param_name(p)); }

}  // namespace

std::string_view param_name(Param p) {
  switch (p) {
    case Param::none: return "";
    case Param::n: return "n";
    case Param::trials: return "trials";
    case Param::first: return "first";
    case Param::seed: return "seed";
    case Param::threads: return "threads";
    case Param::bits: return "bits";
    case Param::method: return "method";
    case Param::range: return "range";
    case Param::backend: return "backend";
    case Param::memory_cap: return "memory_cap";
    case Param::position_matrix: return "position_matrix";
    case Param::state_bits: return "state_bits";
    case Param::deal: return "deal";
    case Param::model: return "model";
    case Param::k: return "k";
    case Param::hand_histogram: return "hand_histogram";
    case Param::poker_categories: return "poker_categories";
    case Param::weights: return "weights";
    case Param::algorithm: return "algorithm";
    case Param::base: return "base";
    case Param::skip_invalid: return "skip_invalid";
    case Param::lags: return "lags";
    case Param::serial: return "serial";
    case Param::riffles: return "riffles";
    case Param::shelves: return "shelves";
    case Param::passes: return "passes";
    case Param::labels: return "labels";
    case Param::format: return "format";
    case Param::family: return "family";
  }
  return "";
}

std::string spell_tokens(const std::string& text, const std::function<std::string(Param)>& spell) {
  return substitute(text, spell);
}

std::string token_safe(std::string_view text) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '{') out += '{';
  }
  return out;
}

Error::Error(const std::string& message) : std::runtime_error(message), param_(Param::none) {}

Error::Error(Param param, std::string message)
    : std::runtime_error(substitute(message, plain)), param_(param), template_(std::move(message)) {}

std::string Error::render(const std::function<std::string(Param)>& spell) const {
  if (param_ == Param::none) return what();
  return substitute(template_, spell);
}

}  // namespace melange
