// Sampling in the vector kernel: rows of whole permutations or deals, as
// 16-bit items or bytes, from whichever path the job takes (packed, wide,
// card shuffles, tables); lanes that rejected are resampled by the scalar
// reference.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_packed-inl.hpp"
#include "kernel_tables-inl.hpp"
#include "kernel_wide-inl.hpp"

namespace melange::simd::internal {

template <class Arch>
struct SamplingPath {
  using D = LaneDraws<Arch>;
  using L = typename D::L;
  using u32 = typename D::u32;
  static constexpr int kLanes = D::kLanes;
  using P = PackedPath<Arch>;
  using W = WidePath<Arch>;
  using T = TablePath<Arch>;
  using Cards = LaneCards<D>;

  template <class Item>
  static void sample_table_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Item* out) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    const int n = p.job.n;
    const auto rows = [&](auto&& perms_at) {
      for (std::uint64_t t = begin; t != full; t += kLanes) {
        Item* row = out + (t - begin) * n;
        u32 reject(0u);
        const u32 index = p.table.kind == TableIndex::batch ? T::template table_indices<TableIndex::batch>(p, t, reject)
                                                            : T::template table_indices<TableIndex::coins>(p, t, reject);
        P::store_rows(perms_at(index), n, row);
        if (p.table.kind == TableIndex::batch && L::any(reject)) D::resample_rejected(p, t, reject, row);
      }
    };
    // A one-batch table of n <= 4 (24 entries) fits AVX-512's registers.
    if (p.table.kind == TableIndex::batch && p.table.product <= L::kSmallTable) {
      const auto small = L::small_table(p.table.perms, p.table.product);
      rows([&](const u32& index) { return L::lookup(small, index); });
    } else {
      rows([&](const u32& index) { return L::gather(p.table.perms, index); });
    }
    if (full != end) D::scalar_rows(p, full, end, out + (full - begin) * n, true);
  }

  // Rows of 16-bit items; bytes only where the permutation is packed (the
  // sample() below narrows the wide paths' rows).
  template <Method M, class Item>
  static void sample_range(const Plan& p, std::uint64_t begin, std::uint64_t end, Item* out) {
    const std::uint64_t full = begin + (end - begin) / kLanes * kLanes;
    const Shape shape = shape_of(p.job);
    const auto n = static_cast<std::size_t>(shape.n), width = static_cast<std::size_t>(shape.k);
    std::vector<std::uint16_t> identity(n);
    iota_items(identity.data(), p.job.n);
    std::vector<std::uint32_t, xsimd::aligned_allocator<std::uint32_t, 64>> digits(p.draws.size() * kLanes);
    // A deal's lanes shuffle all n items here; their last k go to the rows.
    std::vector<std::uint16_t> dealing(shape.whole() ? 0 : n * kLanes);
    for (std::size_t c = 0; c < dealing.size(); ++c) dealing[c] = static_cast<std::uint16_t>(c % n);
    for (std::uint64_t t = begin; t != full; t += kLanes) {
      Item* row = out + (t - begin) * width;
      u32 reject(0u);
      if (packed(p.job)) {
        u32 perm;
        D::with_packed_n(p.job.n, [&](auto n) { perm = P::template packed_batch<M, n()>(p, t, reject); });
        P::store_rows(perm, p.job.n, row);
      } else if (p.sorts_keys) {
        Cards::template card_rows<M>(p, t, reject, row);
      } else if constexpr (sizeof(Item) == 2) {
        if (shape.whole()) {
          W::template wide_batch<M>(p, t, reject, row, identity.data(), digits.data());  // lanes' rows are the output rows
        } else {
          W::template wide_batch<M>(p, t, reject, dealing.data(), nullptr, digits.data());
          for (int l = 0; l < kLanes; ++l)
            std::memcpy(row + l * width, dealing.data() + l * n + shape.first_dealt(), width * sizeof *row);
          W::undo_swaps(p, dealing.data(), digits.data());
        }
      }
      if (p.may_reject && L::any(reject)) D::resample_rejected(p, t, reject, row);
    }
    if (full != end) D::scalar_rows(p, full, end, out + (full - begin) * width);
  }

  template <class Item>
  static void sample_items(const Plan& p, std::uint64_t begin, std::uint64_t end, Item* out) {
    if (p.table.perms) return sample_table_range(p, begin, end, out);
    with_method(p.job.spec.method, [&](auto m) { sample_range<decltype(m)::value>(p, begin, end, out); });
  }
};

}  // namespace melange::simd::internal
