// The scalar reference backend: one trial at a time, exactly the definitions
// in algorithms.hpp over PhiloxSource.
#include <type_traits>
#include <vector>

#include "melange/algorithms.hpp"
#include "melange/backend.hpp"
#include "melange/rank.hpp"

namespace melange {
namespace {

// Calls f(std::integral_constant<Algorithm, A>{}) so that the trial loop is
// compiled once per algorithm with no dispatch inside it.
template <class F>
void with_algorithm(Algorithm a, F&& f) {
  switch (a) {
    case Algorithm::fisher_yates: f(std::integral_constant<Algorithm, Algorithm::fisher_yates>{}); return;
    case Algorithm::naive_swap: f(std::integral_constant<Algorithm, Algorithm::naive_swap>{}); return;
    case Algorithm::sattolo: f(std::integral_constant<Algorithm, Algorithm::sattolo>{}); return;
    case Algorithm::sort_binary_insertion:
      f(std::integral_constant<Algorithm, Algorithm::sort_binary_insertion>{});
      return;
    case Algorithm::sort_v8_timsort: f(std::integral_constant<Algorithm, Algorithm::sort_v8_timsort>{}); return;
  }
}

class ScalarBackend final : public Backend {
 public:
  BackendKind kind() const override { return BackendKind::scalar; }
  bool supports(const Job&) const override { return true; }

  void run_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                 Tally& tally) const override {
    with_algorithm(job.algorithm, [&](auto algo) {
      std::vector<std::uint16_t> a(job.n);
      const bool ranks = job.rank_histogram, positions = job.position_matrix;
      std::uint64_t words = 0;
      for (std::uint64_t t = begin; t != end; ++t) {  // end may wrap to 0 at 2^64
        iota_items(a.data(), job.n);
        PhiloxSource src(job.seed, t, job.spec);
        shuffle(decltype(algo)::value, a.data(), job.n, src);
        if (ranks) tally.ranks.add(lehmer_rank(a.data(), job.n));
        if (positions) tally.positions.add_permutation(a.data());
        words += src.words_consumed();
      }
      tally.trials += end - begin;
      tally.words += words;
    });
  }

  void sample_range(const Job& job, std::uint64_t begin, std::uint64_t end,
                    std::uint16_t* out) const override {
    with_algorithm(job.algorithm, [&](auto algo) {
      for (std::uint64_t t = begin; t != end; ++t, out += job.n) {
        iota_items(out, job.n);
        PhiloxSource src(job.seed, t, job.spec);
        shuffle(decltype(algo)::value, out, job.n, src);
      }
    });
  }
};

}  // namespace

std::unique_ptr<Backend> make_scalar_backend() { return std::make_unique<ScalarBackend>(); }

}  // namespace melange
