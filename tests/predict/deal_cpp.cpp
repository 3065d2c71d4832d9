// Decks dealt by libstdc++'s std::shuffle with std::mt19937(seed) or
// std::minstd_rand(seed): deal_cpp mt|minstd SEED N DECKS.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

template <class G>
void deal(G g, int n, int decks) {
  for (int d = 0; d < decks; ++d) {
    std::vector<int> a(static_cast<std::size_t>(n));
    std::iota(a.begin(), a.end(), 0);
    std::shuffle(a.begin(), a.end(), g);
    for (int i = 0; i < n; ++i) std::printf(i ? " %d" : "%d", a[static_cast<std::size_t>(i)]);
    std::printf("\n");
  }
}

int main(int argc, char** argv) {
  if (argc != 5) return 2;
  const std::string engine = argv[1];
  const unsigned long seed = std::strtoul(argv[2], nullptr, 10);
  const int n = std::atoi(argv[3]), decks = std::atoi(argv[4]);
  if (engine == "mt")
    deal(std::mt19937(static_cast<std::mt19937::result_type>(seed)), n, decks);
  else
    deal(std::minstd_rand(static_cast<std::minstd_rand::result_type>(seed)), n, decks);
}
