// The card shuffles in the lanes (Plan::sorts_keys): the SIMD kernel's
// instance of each card shuffle's lane body, which lives beside its
// definition in core (melange/algorithms/riffle-inl.hpp, shelf-inl.hpp).
// cards_in_lanes (plan.cpp) sends here only the algorithms named below;
// any other card shuffle runs on the scalar path.
#pragma once

#include <cstdint>

#include "kernel_inline.hpp"
#include "melange/algorithms/riffle-inl.hpp"
#include "melange/algorithms/shelf-inl.hpp"
#include "plan.hpp"

namespace melange::simd::internal {

template <class K>
struct LaneCards {
  using u32 = typename K::u32;

  template <Method M, class Item>
  MELANGE_LANE_INLINE static void card_rows(const Plan& p, std::uint64_t first, u32& reject, Item* rows) {
    switch (p.job.algorithm) {
      case Algorithm::riffle: return lanes::RiffleLanes<K>::template rows<M>(p, first, reject, rows);
      case Algorithm::shelf: return lanes::ShelfLanes<K>::template rows<M>(p, first, reject, rows);
      default: throw Error("internal: no lane body for " + std::string(algorithm_name(p.job.algorithm)));
    }
  }
};

}  // namespace melange::simd::internal
