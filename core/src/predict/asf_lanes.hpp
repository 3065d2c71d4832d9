// The ASF shuffle's card at one position for many seeds at once. Its 52
// swaps may move any card until the last, so no position settles early
// and a seed would cost a whole shuffle; instead a lane follows one
// position back through the swaps (the card at p after swap ctr was at
// the swap's other position before it), and only a seed whose card there
// is the one seen is dealt whole.
#pragma once

#include <cstdint>

namespace melange::predict::internal {

inline constexpr int kAsfLanes = 64;

// cards[lane] = the card at `position` (0-based) of the deck ASF deals from
// RandSeed = seeds[lane].
void asf_cards_at(const std::uint32_t (&seeds)[kAsfLanes], int position, std::uint32_t (&cards)[kAsfLanes]);

}  // namespace melange::predict::internal
