// The first record as the search checks it: position by position, while a
// library's shuffle settles them, so that a seed is dropped at its first
// card that differs (a whole deck: after one draw, 51 seeds in 52) instead
// of after a whole shuffle.
#pragma once

#include <cstdint>
#include <vector>

namespace melange::predict {

// A card not seen (a '?' in a record).
inline constexpr int kUnseen = -1;

class Probe {
 public:
  // `deck`: the cards the family deals (n, or 52 for a fixed deck);
  // `record`: the first cards dealt, kUnseen where one was not seen.
  Probe(int deck, const std::vector<int>& record) : want_(static_cast<std::size_t>(deck), kBelowTheDeal),
                                                    shown_(static_cast<std::size_t>(deck), 0) {
    for (std::size_t pos = 0; pos < record.size(); ++pos) {
      want_[pos] = record[pos];
      if (record[pos] != kUnseen) shown_[static_cast<std::size_t>(record[pos])] = 1;
    }
  }
  int deck_size() const { return static_cast<int>(want_.size()); }
  // The first position the record shows a card at (its card: want(p)), or
  // -1 where it shows none.
  int first_seen() const {
    for (std::size_t pos = 0; pos < want_.size(); ++pos)
      if (want_[pos] >= 0) return static_cast<int>(pos);
    return -1;
  }
  int want(int pos) const { return want_[static_cast<std::size_t>(pos)]; }
  // Whether `card` at position `pos` agrees with the record: the card seen
  // there, any card where none was seen, and below the deal any card the
  // record does not show elsewhere.
  bool agrees(std::size_t pos, std::uint16_t card) const {
    const int want = want_[pos];
    if (want >= 0) return want == card;
    return want == kUnseen || !shown_[card];
  }

 private:
  static constexpr int kBelowTheDeal = -2;
  std::vector<int> want_;             // by position: a card, kUnseen or kBelowTheDeal
  std::vector<unsigned char> shown_;  // by card: the record shows it
};

}  // namespace melange::predict
