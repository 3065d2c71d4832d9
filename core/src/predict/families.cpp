#include "melange/predict/families.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <utility>

namespace melange::predict {
namespace {

constexpr std::uint64_t k32 = std::uint64_t{1} << 32;

// ---- Generators --------------------------------------------------------------

// glibc's random() behind rand(), TYPE_3: an additive feedback generator of
// 34 words seeded by a Lehmer generator, its first 310 outputs discarded
// (srand(seed); seed 0 is 1).
class GlibcRand {
 public:
  explicit GlibcRand(std::uint32_t seed) {
    std::array<std::int32_t, 34> r{};
    r[0] = static_cast<std::int32_t>(seed == 0 ? 1 : seed);
    for (int i = 1; i < 31; ++i) {
      // 16807 r mod (2^31 - 1), by Schrage's method as glibc computes it.
      const std::int32_t hi = r[i - 1] / 127773, lo = r[i - 1] % 127773;
      std::int32_t word = 16807 * lo - 2836 * hi;
      if (word < 0) word += 2147483647;
      r[i] = word;
    }
    for (int i = 31; i < 34; ++i) r[i] = r[i - 31];
    for (int i = 0; i < 34; ++i) state_[i] = static_cast<std::uint32_t>(r[i]);
    at_ = 34;
    for (int i = 0; i < 310; ++i) step();
  }
  // rand(): 31 bits.
  std::uint32_t next() { return step() >> 1; }

 private:
  std::uint32_t step() {
    const std::uint32_t v = state_[(at_ - 31) % 34] + state_[(at_ - 3) % 34];
    state_[at_ % 34] = v;
    ++at_;
    return v;
  }
  std::array<std::uint32_t, 34> state_{};
  std::uint64_t at_ = 0;
};

// MT19937 seeded by init_genrand(seed) (C++'s std::mt19937(seed), PHP's
// mt_srand), or by init_by_array (CPython's random.seed(int)). The first
// generation is made as it is read: output i needs the seeded words i,
// i + 1 and i + 397 only, so a deck's first 60 outputs cost about 460
// seeding steps and 60 twists, where seeding and twisting whole would cost
// 624 and 624 (the search's time is mostly this).
class Mt19937 {
 public:
  static constexpr int kN = 624, kM = 397;
  explicit Mt19937(std::uint32_t seed) {
    mt_[0] = seed;
    seeded_ = 1;
  }
  explicit Mt19937(std::span<const std::uint32_t> key) {
    Mt19937 base(19650218u);
    base.seed_up_to(kN - 1);
    mt_ = base.mt_;
    int i = 1, j = 0;
    for (int k = std::max<int>(kN, static_cast<int>(key.size())); k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] + static_cast<std::uint32_t>(j);
      ++i;
      ++j;
      if (i >= kN) {
        mt_[0] = mt_[kN - 1];
        i = 1;
      }
      if (j >= static_cast<int>(key.size())) j = 0;
    }
    for (int k = kN - 1; k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) - static_cast<std::uint32_t>(i);
      ++i;
      if (i >= kN) {
        mt_[0] = mt_[kN - 1];
        i = 1;
      }
    }
    mt_[0] = 0x80000000u;
    seeded_ = kN;
  }
  std::uint32_t next() {
    if (at_ == kN) {
      at_ = 0;
      first_generation_ = false;
    }
    if (first_generation_) seed_up_to(at_ < kN - kM ? at_ + kM : std::min(at_ + 1, kN - 1));
    twist(at_);
    std::uint32_t y = mt_[at_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }

 private:
  void seed_up_to(int k) {
    for (; seeded_ <= k; ++seeded_)
      mt_[seeded_] = 1812433253u * (mt_[seeded_ - 1] ^ (mt_[seeded_ - 1] >> 30)) + static_cast<std::uint32_t>(seeded_);
  }
  // Word i of the next generation, in place (words before i are new, after
  // it old, as the whole twist leaves them when it reaches i).
  void twist(int i) {
    const std::uint32_t y = (mt_[i] & 0x80000000u) | (mt_[(i + 1) % kN] & 0x7fffffffu);
    mt_[i] = mt_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
  }
  // Left unset: words are written before they are read (seeded_ says how
  // far), which saves zeroing 2.5 KB a seed.
  std::array<std::uint32_t, kN> mt_;
  int seeded_ = 0;
  int at_ = 0;
  bool first_generation_ = true;
};

// std::minstd_rand(seed): x <- 48271 x mod (2^31 - 1), from seed mod
// (2^31 - 1) (0 becomes 1).
class Minstd {
 public:
  explicit Minstd(std::uint64_t seed) : x_(seed % 2147483647u) {
    if (x_ == 0) x_ = 1;
  }
  std::uint64_t next() { return x_ = x_ * 48271u % 2147483647u; }
  static constexpr std::uint64_t kMin = 1, kMax = 2147483646;

 private:
  std::uint64_t x_;
};

// ---- Library shuffles --------------------------------------------------------

// libstdc++'s uniform_int_distribution<unsigned long> over [0, range):
// Lemire's nearly divisionless reduction for a generator of exactly 32
// bits, else downscaling by rejection.
template <class G>
std::uint64_t libstdcxx_below(G& g, std::uint64_t range, std::uint64_t gen_min, std::uint64_t gen_max) {
  const std::uint64_t gen_range = gen_max - gen_min;
  if (gen_range == 0xffffffffu) {
    const auto r32 = static_cast<std::uint32_t>(range);
    std::uint64_t product = static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.next() - gen_min)) * r32;
    auto low = static_cast<std::uint32_t>(product);
    if (low < r32) {
      const std::uint32_t threshold = -r32 % r32;
      while (low < threshold) {
        product = static_cast<std::uint64_t>(static_cast<std::uint32_t>(g.next() - gen_min)) * r32;
        low = static_cast<std::uint32_t>(product);
      }
    }
    return product >> 32;
  }
  const std::uint64_t scaling = gen_range / range, past = range * scaling;
  std::uint64_t r;
  do r = g.next() - gen_min;
  while (r >= past);
  return r / scaling;
}

// libstdc++'s std::shuffle: forward, i = 1 .. n-1 swapped with [0, i];
// where the generator's range holds two draws at once, two positions from
// one draw (x / (i + 2), x % (i + 2) over [0, (i + 1)(i + 2))), the first
// alone when n is even.
template <class G>
void libstdcxx_shuffle(std::span<std::uint16_t> a, G& g, std::uint64_t gen_min, std::uint64_t gen_max) {
  const std::size_t n = a.size();
  if (n < 2) return;
  const std::uint64_t gen_range = gen_max - gen_min, urange = n;
  if (gen_range / urange >= urange) {
    std::size_t i = 1;
    if (urange % 2 == 0) {
      std::swap(a[i], a[libstdcxx_below(g, 2, gen_min, gen_max)]);
      ++i;
    }
    while (i != n) {
      const std::uint64_t b0 = i + 1, b1 = i + 2;
      const std::uint64_t x = libstdcxx_below(g, b0 * b1, gen_min, gen_max);
      std::swap(a[i], a[x / b1]);
      ++i;
      std::swap(a[i], a[x % b1]);
      ++i;
    }
    return;
  }
  for (std::size_t i = 1; i < n; ++i) std::swap(a[i], a[libstdcxx_below(g, i + 1, gen_min, gen_max)]);
}

// ---- The families' dealers ----------------------------------------------------

// srand(seed), then for i = n-1 down to 1: j = rand() % (i + 1).
class GlibcDealer final : public Dealer {
 public:
  explicit GlibcDealer(std::uint64_t seed) : g_(static_cast<std::uint32_t>(seed)) {}
  void shuffle(std::span<std::uint16_t> a) override {
    for (std::size_t i = a.size(); i-- > 1;) std::swap(a[i], a[g_.next() % (i + 1)]);
  }

 private:
  GlibcRand g_;
};

// std::shuffle(deck, std::mt19937(seed)).
class CppMtDealer final : public Dealer {
 public:
  explicit CppMtDealer(std::uint64_t seed) : g_(static_cast<std::uint32_t>(seed)) {}
  void shuffle(std::span<std::uint16_t> a) override { libstdcxx_shuffle(a, g_, 0, 0xffffffffu); }

 private:
  Mt19937 g_;
};

// std::shuffle(deck, std::minstd_rand(seed)).
class CppMinstdDealer final : public Dealer {
 public:
  explicit CppMinstdDealer(std::uint64_t seed) : g_(seed) {}
  void shuffle(std::span<std::uint16_t> a) override { libstdcxx_shuffle(a, g_, Minstd::kMin, Minstd::kMax); }

 private:
  Minstd g_;
};

// PHP >= 7.1: mt_srand(seed); shuffle($deck): for i = n-1 down to 1,
// j = mt_rand_range(0, i): the full 32-bit output, a power of two masked,
// else rejected above the last whole multiple and reduced mod (i + 1).
class PhpMtDealer final : public Dealer {
 public:
  explicit PhpMtDealer(std::uint64_t seed) : g_(static_cast<std::uint32_t>(seed)) {}
  void shuffle(std::span<std::uint16_t> a) override {
    for (std::size_t left = a.size(); left-- > 1;) {
      const std::size_t j = range(static_cast<std::uint32_t>(left));
      if (j != left) std::swap(a[left], a[j]);
    }
  }

 private:
  std::uint32_t range(std::uint32_t umax) {
    std::uint32_t result = g_.next();
    if (umax == 0xffffffffu) return result;
    ++umax;
    if ((umax & (umax - 1)) == 0) return result & (umax - 1);
    const std::uint32_t limit = 0xffffffffu - (0xffffffffu % umax) - 1;
    while (result > limit) result = g_.next();
    return result % umax;
  }
  Mt19937 g_;
};

// CPython: random.seed(seed) (init_by_array of the seed's 32-bit words),
// random.shuffle: for i = n-1 down to 1, j = _randbelow(i + 1) by
// getrandbits(bit_length) and rejection.
class PythonDealer final : public Dealer {
 public:
  explicit PythonDealer(std::uint64_t seed) : g_(key_of(seed)) {}
  void shuffle(std::span<std::uint16_t> a) override {
    for (std::size_t i = a.size(); i-- > 1;) std::swap(a[i], a[below(static_cast<std::uint32_t>(i + 1))]);
  }

 private:
  static std::vector<std::uint32_t> key_of(std::uint64_t seed) {
    std::vector<std::uint32_t> key{static_cast<std::uint32_t>(seed)};
    if (seed >> 32) key.push_back(static_cast<std::uint32_t>(seed >> 32));
    return key;
  }
  std::uint32_t below(std::uint32_t n) {
    const int k = std::bit_width(n);
    std::uint32_t r;
    do r = g_.next() >> (32 - k);
    while (r >= n);
    return r;
  }
  Mt19937 g_;
};

// java.util.Random(seed) and Collections.shuffle(list, rnd): for i = n
// down to 2, swap(i - 1, nextInt(i)).
class JavaDealer final : public Dealer {
 public:
  explicit JavaDealer(std::uint64_t seed) : s_((seed ^ kMultiplier) & kMask) {}
  void shuffle(std::span<std::uint16_t> a) override {
    for (std::size_t i = a.size(); i > 1; --i) std::swap(a[i - 1], a[next_int(static_cast<std::int32_t>(i))]);
  }

 private:
  static constexpr std::uint64_t kMultiplier = 0x5DEECE66Du, kMask = (std::uint64_t{1} << 48) - 1;
  std::int32_t next(int bits) {
    s_ = (s_ * kMultiplier + 0xBu) & kMask;
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(s_ >> (48 - bits)));
  }
  std::int32_t next_int(std::int32_t bound) {
    if ((bound & -bound) == bound)
      return static_cast<std::int32_t>((static_cast<std::int64_t>(bound) * next(31)) >> 31);
    std::int32_t bits, val;
    do {
      bits = next(31);
      val = bits % bound;
    } while (static_cast<std::int32_t>(static_cast<std::uint32_t>(bits) - static_cast<std::uint32_t>(val) +
                                       static_cast<std::uint32_t>(bound - 1)) < 0);
    return val;
  }
  std::uint64_t s_;
};

// Borland Delphi's Random: RandSeed := RandSeed * 134775813 + 1 (mod
// 2^32), Random(N) = (RandSeed * N) >> 32.
class DelphiRandom {
 public:
  explicit DelphiRandom(std::uint32_t seed) : seed_(seed) {}
  std::uint32_t below(std::uint32_t n) {
    seed_ = seed_ * 134775813u + 1u;
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(seed_) * n) >> 32);
  }

 private:
  std::uint32_t seed_;
};

// Delphi's Random(i + 1) Fisher-Yates, i = n-1 down to 1.
class DelphiDealer final : public Dealer {
 public:
  explicit DelphiDealer(std::uint64_t seed) : r_(static_cast<std::uint32_t>(seed)) {}
  void shuffle(std::span<std::uint16_t> a) override {
    for (std::size_t i = a.size(); i-- > 1;) std::swap(a[i], a[r_.below(static_cast<std::uint32_t>(i + 1))]);
  }

 private:
  DelphiRandom r_;
};

// ASF Software's Texas Hold'em (1999), as published: for ctr := 1 to 52,
// swap card[ctr] with card[Random(51) + 1] (cards 1..52), seeded by
// Randomize with the milliseconds since midnight.
class AsfDealer final : public Dealer {
 public:
  explicit AsfDealer(std::uint64_t seed) : r_(static_cast<std::uint32_t>(seed)) {}
  void shuffle(std::span<std::uint16_t> a) override {
    for (std::size_t ctr = 1; ctr <= a.size(); ++ctr) std::swap(a[ctr - 1], a[r_.below(51)]);
  }

 private:
  DelphiRandom r_;
};

template <class D>
std::unique_ptr<Dealer> make(std::uint64_t seed) {
  return std::make_unique<D>(seed);
}

constexpr std::uint64_t kMillisecondsADay = 86'400'000;

const FamilyRow kFamilies[] = {
    {"glibc-rand", "C: srand(seed); rand() % (i + 1) Fisher-Yates (glibc's additive generator)", k32,
     "srand(time(NULL)), srand(getpid()), any unsigned int", make<GlibcDealer>},
    {"delphi", "Delphi: RandSeed := seed; Random(i + 1) Fisher-Yates", k32, "Randomize (the time), any 32-bit seed",
     make<DelphiDealer>},
    {"asf-1999", "ASF Software's poker shuffle (1999): swap card[ctr] with card[Random(51) + 1]", kMillisecondsADay,
     "Randomize: the milliseconds since midnight", make<AsfDealer>, true},
    {"cpp-minstd", "C++: std::shuffle with std::minstd_rand(seed) (libstdc++)", k32, "a 32-bit seed, often the time",
     make<CppMinstdDealer>},
    {"cpp-mt19937", "C++: std::shuffle with std::mt19937(seed) (libstdc++)", k32,
     "a 32-bit seed: the time, random_device()", make<CppMtDealer>},
    {"php-mt", "PHP >= 7.1: mt_srand(seed); shuffle()", k32, "mt_srand(seed), or PHP's own 32-bit seed",
     make<PhpMtDealer>},
    {"python", "CPython: random.seed(seed); random.shuffle()", k32, "random.seed(an int below 2^32)",
     make<PythonDealer>},
    {"java", "Java: Collections.shuffle(list, new Random(seed))", k32,
     "new Random(seed) with a seed below 2^32 (a clock's in --clock)", make<JavaDealer>},
};

}  // namespace

std::span<const FamilyRow> families() { return kFamilies; }

const FamilyRow* family_named(std::string_view name) {
  for (const FamilyRow& f : kFamilies)
    if (f.name == name) return &f;
  return nullptr;
}

std::string family_names(std::string_view separator) {
  std::string names;
  for (const FamilyRow& f : kFamilies) {
    if (!names.empty()) names += separator;
    names += f.name;
  }
  return names;
}

std::vector<std::vector<std::uint16_t>> deal_decks(const FamilyRow& family, std::uint64_t seed, int n, int decks) {
  const std::unique_ptr<Dealer> dealer = family.seeded(seed);
  std::vector<std::vector<std::uint16_t>> out;
  for (int d = 0; d < decks; ++d) {
    std::vector<std::uint16_t> deck(static_cast<std::size_t>(family.fixed_deck ? 52 : n));
    for (std::size_t i = 0; i < deck.size(); ++i) deck[i] = static_cast<std::uint16_t>(i);
    dealer->shuffle(deck);
    out.push_back(std::move(deck));
  }
  return out;
}

}  // namespace melange::predict
