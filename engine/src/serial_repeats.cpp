// The repeats of a --serial job that keeps no histogram of every possible
// record: its trials made again, fingerprinted, and compared across ranks.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "melange/audit_plan.hpp"
#include "melange/error.hpp"
#include "melange/ranks.hpp"
#include "melange/serve.hpp"
#include "melange/stream_tests.hpp"

namespace melange {
namespace {

// Records made at a time: the items of one piece beside the keys.
constexpr std::uint64_t kPiece = std::uint64_t{1} << 16;

// The rank that counts a key: its top bits, scaled to the ranks.
int owner_of(const Fingerprint& key, int ranks) {
  return static_cast<int>((static_cast<unsigned __int128>(key.hi) * static_cast<unsigned>(ranks)) >> 64);
}

// This rank's keys traded for the ones it owns, every rank's.
std::vector<Fingerprint> trade_keys(const std::vector<Fingerprint>& keys, Ranks& ranks) {
  std::vector<std::vector<std::uint64_t>> to_rank(static_cast<std::size_t>(ranks.size()));
  for (const Fingerprint& key : keys) {
    std::vector<std::uint64_t>& to = to_rank[static_cast<std::size_t>(owner_of(key, ranks.size()))];
    to.push_back(key.hi);
    to.push_back(key.lo);
  }
  const std::vector<std::uint64_t> words = ranks.all_to_all(to_rank);
  std::vector<Fingerprint> owned(words.size() / 2);
  for (std::size_t i = 0; i < owned.size(); ++i) owned[i] = Fingerprint{words[2 * i], words[2 * i + 1]};
  return owned;
}

// Keys that equal the key before them, once sorted: the repeats.
std::uint64_t repeats_among(std::vector<Fingerprint>& keys) {
  std::sort(keys.begin(), keys.end());
  std::uint64_t repeats = 0;
  for (std::size_t i = 1; i < keys.size(); ++i) repeats += keys[i] == keys[i - 1];
  return repeats;
}

}  // namespace

std::optional<RepeatCount> serial_repeats(const AuditPlan& plan, const RunOptions& options, Ranks* ranks) {
  if (plan.serial_repeat_bytes == 0) return std::nullopt;
  const Job& job = plan.job;
  const Shape s = shape_of(job);
  const int size = ranks ? ranks->size() : 1, rank = ranks ? ranks->rank() : 0;
  RepeatCount count;
  count.log_outcomes = log_outcomes(s, false);
  // A key is held twice while the ranks trade them.
  const std::uint64_t keys_a_rank = plan.serial_repeat_bytes / (2 * sizeof(Fingerprint));
  count.covered = std::min(job.trials, keys_a_rank * static_cast<std::uint64_t>(size));
  count.capped = count.covered < job.trials;
  const Share share = share_of(job.first, count.covered, rank, size);
  std::vector<Fingerprint> keys;
  keys.reserve(share.trials);
  if (share.trials > 0) {
    Job piece = job;
    piece.first = share.first;
    piece.trials = share.trials;
    piece.tallies = {};
    for_each_piece(piece, kPiece, RecordPieces<std::uint16_t>([&](std::span<const std::uint16_t> items,
                                                                   std::uint64_t, std::uint64_t records) {
                     for (std::uint64_t r = 0; r < records; ++r)
                       keys.push_back(record_fingerprint(items.data() + r * static_cast<std::uint64_t>(s.k), s));
                     return !(options.cancelled && options.cancelled());
                   }),
                   options);
    if (keys.size() < share.trials) throw Cancelled();
  }
  if (ranks && size > 1) keys = trade_keys(keys, *ranks);
  count.repeats = repeats_among(keys);
  if (ranks) {
    const std::uint64_t local[1] = {count.repeats};
    std::uint64_t total[1] = {0};
    ranks->sum_to_root(local, total);
    count.repeats = total[0];
  }
  return count;
}

}  // namespace melange
