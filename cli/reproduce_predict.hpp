// reproduce's claim about ASF Software's Texas Hold'em (1999): its shuffle
// was seeded with the milliseconds since midnight, so the five cards a
// player sees (two in the hand, three on the flop) name the deck among a
// day's 86,400,000.
#pragma once

#include <cstdint>

#include "reproduce_tables.hpp"

namespace melange::cli {

// The deck ASF deals at the millisecond `seed` mod 86,400,000 after
// midnight, searched for from its first five cards over the whole day.
Claim asf_claim(std::uint64_t seed, int threads, bool quiet);

}  // namespace melange::cli
