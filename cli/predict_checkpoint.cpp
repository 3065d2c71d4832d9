#include "predict_checkpoint.hpp"

#include <fstream>
#include <sstream>

#include "melange/error.hpp"
#include "melange/internal/fnv1a.hpp"
#include "output.hpp"

namespace melange::cli {
namespace {

constexpr const char* kMagic = "melange predict checkpoint 1";
// A checkpoint holds a few lines a family and its matches: anything larger
// is not one (read only up to this).
constexpr std::size_t kMostBytes = std::size_t{64} << 20;

std::string body_of(const Team::Fingerprint& search, const PredictProgress& progress) {
  std::ostringstream o;
  o << kMagic << "\n";
  for (const auto& [key, value] : search) o << "search " << key << " = " << value << "\n";
  for (const PredictProgress::Family& f : progress.families) {
    o << "family next " << f.next << " done " << (f.done ? 1 : 0) << " found " << f.found.size();
    for (std::uint64_t s : f.found) o << " " << s;
    o << "\n";
  }
  return o.str();
}

}  // namespace

void save_predict_checkpoint(const std::string& path, const Team::Fingerprint& search, const PredictProgress& progress) {
  const std::string body = body_of(search, progress);
  Outputs file;
  file.declare("--checkpoint", path);
  file.open(path) << body << "checksum " << internal::fnv1a(body) << "\n";
  file.commit();
}

PredictProgress read_predict_checkpoint(const std::string& path, const Team::Fingerprint& search) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read --resume '" + path + "': give the file a --checkpoint run saved");
  std::string text(kMostBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  const auto sum_at = text.rfind("checksum ");
  if (text.rfind(kMagic, 0) != 0 || text.size() > kMostBytes || sum_at == std::string::npos)
    throw UsageError("--resume '" + path + "' is not a melange predict checkpoint: give the file --checkpoint saved");
  const std::string body = text.substr(0, sum_at);
  if (text.substr(sum_at) != "checksum " + std::to_string(internal::fnv1a(body)) + "\n")
    throw Error("--resume '" + path + "' is damaged (its checksum does not match): start the search afresh");
  std::istringstream lines(body);
  std::string line;
  std::getline(lines, line);  // the magic line
  PredictProgress progress;
  std::size_t at = 0;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "search") {
      const std::string want = at < search.size()
                                   ? "search " + search[at].first + " = " + std::to_string(search[at].second)
                                   : std::string("(nothing)");
      if (line != want)
        throw UsageError("--resume '" + path + "' saved another search (" + line.substr(7) + ", here " +
                         (at < search.size() ? search[at].first + " = " + std::to_string(search[at].second) : "none") +
                         "): give the same records, families, seeds and options, or start afresh");
      ++at;
      continue;
    }
    PredictProgress::Family f;
    std::string next_word, done_word, found_word;
    int done = 0;
    std::size_t count = 0;
    words >> next_word >> f.next >> done_word >> done >> found_word >> count;
    f.done = done != 0;
    for (std::size_t i = 0; i < count && words; ++i) words >> f.found.emplace_back();
    if (kind != "family" || !words || f.found.size() != count)
      throw Error("--resume '" + path + "' is damaged (line '" + line.substr(0, 80) + "'): start the search afresh");
    progress.families.push_back(std::move(f));
  }
  if (at != search.size())
    throw UsageError("--resume '" + path + "' saved another search (fewer families): give the same ones, or start afresh");
  return progress;
}

}  // namespace melange::cli
