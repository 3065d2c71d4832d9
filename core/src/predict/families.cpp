#include "melange/predict/families.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstdint>
#include <utility>

#include "melange/error.hpp"
#include "melange/predict/probe.hpp"

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
  // CPython's seed words: one, or two for a seed past 2^32.
  struct Key {
    std::array<std::uint32_t, 2> words;
    std::size_t size;
  };
  // init_by_array(key): mixes the key into the state init_genrand(19650218)
  // leaves (the same for every key: made once).
  static Mt19937 by_array(const Key& key) {
    static const Mt19937 kBase = [] {
      Mt19937 base(19650218u);
      base.seed_up_to(kN - 1);
      return base;
    }();
    Mt19937 g = kBase;
    std::array<std::uint32_t, kN>& mt = g.mt_;
    const int key_size = static_cast<int>(key.size);
    int i = 1, j = 0;
    for (int k = kN; k > 0; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525u)) + key.words[j] + static_cast<std::uint32_t>(j);
      ++i;
      ++j;
      if (i >= kN) {
        mt[0] = mt[kN - 1];
        i = 1;
      }
      if (j >= key_size) j = 0;
    }
    for (int k = kN - 1; k > 0; --k) {
      mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941u)) - static_cast<std::uint32_t>(i);
      ++i;
      if (i >= kN) {
        mt[0] = mt[kN - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000u;
    return g;
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

// .NET's new Random(seed): Knuth's subtractive generator as .NET Framework
// seeds it (.NET Core keeps it for seeded use; mono runs the same), its
// int arithmetic wrapping as C#'s does. Next(max) = (int)(Sample() * max),
// Sample() = InternalSample() * (1.0 / int.MaxValue), in doubles.
class DotnetRandom {
 public:
  explicit DotnetRandom(std::int32_t seed) {
    const std::int32_t subtraction = seed == INT32_MIN ? INT32_MAX : (seed < 0 ? -seed : seed);
    std::int32_t mj = wrap(std::int64_t{kMSeed} - subtraction), mk = 1;
    a_[55] = mj;
    for (int i = 1; i < 55; ++i) {
      const int ii = 21 * i % 55;
      a_[ii] = mk;
      mk = wrap(std::int64_t{mj} - mk);
      if (mk < 0) mk = wrap(std::int64_t{mk} + kMBig);
      mj = a_[ii];
    }
    for (int k = 1; k < 5; ++k)
      for (int i = 1; i < 56; ++i) {
        a_[i] = wrap(std::int64_t{a_[i]} - a_[1 + (i + 30) % 55]);
        if (a_[i] < 0) a_[i] = wrap(std::int64_t{a_[i]} + kMBig);
      }
  }
  std::uint32_t below(std::uint32_t max) {
    return static_cast<std::uint32_t>(static_cast<std::int32_t>(sample() * (1.0 / kMBig) * max));
  }

 private:
  static constexpr std::int32_t kMBig = INT32_MAX, kMSeed = 161803398;
  static std::int32_t wrap(std::int64_t v) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(v)); }
  std::int32_t sample() {
    if (++next_ >= 56) next_ = 1;
    if (++nextp_ >= 56) nextp_ = 1;
    std::int32_t v = wrap(std::int64_t{a_[next_]} - a_[nextp_]);
    if (v == kMBig) --v;
    if (v < 0) v = wrap(std::int64_t{v} + kMBig);
    a_[next_] = v;
    return v;
  }
  std::array<std::int32_t, 56> a_{};
  int next_ = 0, nextp_ = 21;
};

// ---- Decks a library shuffle writes to -----------------------------------------
// A shuffle swaps positions and says when a position holds its final card
// (settled: a downward Fisher-Yates settles position i as it leaves it); a
// deck may then stop the shuffle (false), as the search's probe does at its
// first card that differs.

// The caller's items: a Dealer's deal, never stopped.
class ItemsDeck {
 public:
  explicit ItemsDeck(std::span<std::uint16_t> items) : a_(items) {}
  std::size_t size() const { return a_.size(); }
  void swap(std::size_t i, std::size_t j) { std::swap(a_[i], a_[j]); }
  bool settled(std::size_t) const { return true; }
  bool all_settled() const { return true; }

 private:
  std::span<std::uint16_t> a_;
};

// The search's deck: each settled position is held to the first record.
class ProbeDeck {
 public:
  ProbeDeck(const Probe& probe, std::span<std::uint16_t> items) : probe_(probe), a_(items) {}
  std::size_t size() const { return a_.size(); }
  void swap(std::size_t i, std::size_t j) { std::swap(a_[i], a_[j]); }
  bool settled(std::size_t i) const { return probe_.agrees(i, a_[i]); }
  bool all_settled() const {
    for (std::size_t i = 0; i < a_.size(); ++i)
      if (!probe_.agrees(i, a_[i])) return false;
    return true;
  }

 private:
  const Probe& probe_;
  std::span<std::uint16_t> a_;
};

// ---- Library shuffles --------------------------------------------------------

// The downward Fisher-Yates most libraries write: for i = n-1 down to 1,
// swap a[i] with a[below(i + 1)]. False where the deck stopped it.
template <class Deck, class Below>
bool downward_fisher_yates(Deck& deck, Below below) {
  for (std::size_t i = deck.size(); i-- > 1;) {
    deck.swap(i, below(static_cast<std::uint32_t>(i + 1)));
    if (!deck.settled(i)) return false;
  }
  return deck.settled(0);
}

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
// alone when n is even. No position settles before the end.
template <class Deck, class G>
bool libstdcxx_shuffle(Deck& deck, G& g, std::uint64_t gen_min, std::uint64_t gen_max) {
  const std::size_t n = deck.size();
  if (n < 2) return deck.all_settled();
  const std::uint64_t gen_range = gen_max - gen_min, urange = n;
  if (gen_range / urange >= urange) {
    std::size_t i = 1;
    if (urange % 2 == 0) {
      deck.swap(i, libstdcxx_below(g, 2, gen_min, gen_max));
      ++i;
    }
    while (i != n) {
      const std::uint64_t b0 = i + 1, b1 = i + 2;
      const std::uint64_t x = libstdcxx_below(g, b0 * b1, gen_min, gen_max);
      deck.swap(i, x / b1);
      ++i;
      deck.swap(i, x % b1);
      ++i;
    }
  } else {
    for (std::size_t i = 1; i < n; ++i) deck.swap(i, libstdcxx_below(g, i + 1, gen_min, gen_max));
  }
  return deck.all_settled();
}

// ---- The families' dealers ----------------------------------------------------
// A dealer: built from a seed as the library takes it, shuffle(deck) as the
// library shuffles, going on from where its last deal left the generator.

// srand(seed), then for i = n-1 down to 1: j = rand() % (i + 1).
struct GlibcDealer {
  explicit GlibcDealer(std::uint64_t seed) : g(static_cast<std::uint32_t>(seed)) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t m) { return g.next() % m; });
  }
  GlibcRand g;
};

// std::shuffle(deck, std::mt19937(seed)).
struct CppMtDealer {
  explicit CppMtDealer(std::uint64_t seed) : g(static_cast<std::uint32_t>(seed)) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return libstdcxx_shuffle(deck, g, 0, 0xffffffffu);
  }
  Mt19937 g;
};

// std::shuffle(deck, std::minstd_rand(seed)).
struct CppMinstdDealer {
  explicit CppMinstdDealer(std::uint64_t seed) : g(seed) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return libstdcxx_shuffle(deck, g, Minstd::kMin, Minstd::kMax);
  }
  Minstd g;
};

// PHP >= 7.1: mt_srand(seed); shuffle($deck): for i = n-1 down to 1,
// j = mt_rand_range(0, i): the full 32-bit output, a power of two masked,
// else rejected above the last whole multiple and reduced mod (i + 1).
struct PhpMtDealer {
  explicit PhpMtDealer(std::uint64_t seed) : g(static_cast<std::uint32_t>(seed)) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t umax) { return range(umax); });
  }
  std::uint32_t range(std::uint32_t umax) {
    std::uint32_t result = g.next();
    if ((umax & (umax - 1)) == 0) return result & (umax - 1);
    const std::uint32_t limit = 0xffffffffu - (0xffffffffu % umax) - 1;
    while (result > limit) result = g.next();
    return result % umax;
  }
  Mt19937 g;
};

// CPython: random.seed(seed) (init_by_array of the seed's 32-bit words),
// random.shuffle: for i = n-1 down to 1, j = _randbelow(i + 1) by
// getrandbits(bit_length) and rejection.
struct PythonDealer {
  explicit PythonDealer(std::uint64_t seed) : g(Mt19937::by_array(key_of(seed))) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t n) {
      const int k = std::bit_width(n);
      std::uint32_t r;
      do r = g.next() >> (32 - k);
      while (r >= n);
      return r;
    });
  }
  static Mt19937::Key key_of(std::uint64_t seed) {
    Mt19937::Key key{{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
                     std::size_t{seed >> 32 ? 2u : 1u}};
    return key;
  }
  Mt19937 g;
};

// java.util.Random(seed) and Collections.shuffle(list, rnd): for i = n
// down to 2, swap(i - 1, nextInt(i)).
struct JavaDealer {
  explicit JavaDealer(std::uint64_t seed) : s((seed ^ kMultiplier) & kMask) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t bound) { return next_int(static_cast<std::int32_t>(bound)); });
  }
  static constexpr std::uint64_t kMultiplier = 0x5DEECE66Du, kMask = (std::uint64_t{1} << 48) - 1;
  std::int32_t next(int bits) {
    s = (s * kMultiplier + 0xBu) & kMask;
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(s >> (48 - bits)));
  }
  std::uint32_t next_int(std::int32_t bound) {
    if ((bound & -bound) == bound)
      return static_cast<std::uint32_t>((static_cast<std::int64_t>(bound) * next(31)) >> 31);
    std::int32_t bits, val;
    do {
      bits = next(31);
      val = bits % bound;
    } while (static_cast<std::int32_t>(static_cast<std::uint32_t>(bits) - static_cast<std::uint32_t>(val) +
                                       static_cast<std::uint32_t>(bound - 1)) < 0);
    return static_cast<std::uint32_t>(val);
  }
  std::uint64_t s;
};

// Delphi's Random(i + 1) Fisher-Yates, i = n-1 down to 1.
struct DelphiDealer {
  explicit DelphiDealer(std::uint64_t seed) : r(static_cast<std::uint32_t>(seed)) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t m) { return r.below(m); });
  }
  DelphiRandom r;
};

// ASF Software's Texas Hold'em (1999), as published: for ctr := 1 to 52,
// swap card[ctr] with card[Random(51) + 1] (cards 1..52), seeded by
// Randomize with the milliseconds since midnight. Any card may move until
// the last swap.
struct AsfDealer {
  explicit AsfDealer(std::uint64_t seed) : r(static_cast<std::uint32_t>(seed)) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    for (std::size_t ctr = 1; ctr <= deck.size(); ++ctr) deck.swap(ctr - 1, r.below(51));
    return deck.all_settled();
  }
  DelphiRandom r;
};

// .NET: new Random(seed), then for i = n-1 down to 1: j = Next(i + 1).
struct DotnetDealer {
  explicit DotnetDealer(std::uint64_t seed) : r(static_cast<std::int32_t>(static_cast<std::uint32_t>(seed))) {}
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t m) { return r.below(m); });
  }
  DotnetRandom r;
};

// ---- A dealer as a row's two faces -------------------------------------------

template <class D>
class DealerOf final : public Dealer {
 public:
  explicit DealerOf(std::uint64_t seed) : d_(seed) {}
  void shuffle(std::span<std::uint16_t> items) override {
    ItemsDeck deck(items);
    d_.shuffle(deck);
  }

 private:
  D d_;
};

template <class D>
std::unique_ptr<Dealer> make(std::uint64_t seed) {
  return std::make_unique<DealerOf<D>>(seed);
}

// The seeds first..last whose first deal agrees with the probe. The dealer
// lives on the stack and the deck is reset by a copy: no allocation a seed.
template <class D>
void scan(const Probe& probe, std::uint64_t first, std::uint64_t last, std::vector<std::uint64_t>& matches) {
  std::vector<std::uint16_t> identity(static_cast<std::size_t>(probe.deck_size())), items(identity.size());
  for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<std::uint16_t>(i);
  for (std::uint64_t seed = first;; ++seed) {
    std::copy(identity.begin(), identity.end(), items.begin());
    ProbeDeck deck(probe, items);
    D dealer(seed);
    if (dealer.shuffle(deck)) matches.push_back(seed);
    if (seed == last) break;
  }
}

template <class D>
constexpr Dealing dealing() {
  return {make<D>, scan<D>};
}

constexpr std::uint64_t kMillisecondsADay = 86'400'000;

// Seeds are 64-bit numbers, taken as the library takes them: a 32-bit
// family's dealer keeps the low 32 bits, as a C cast of a wider clock does.
const FamilyRow kFamilies[] = {
    {"glibc-rand", "C: srand(seed); rand() % (i + 1) Fisher-Yates (glibc's additive generator)", k32,
     "srand(time(NULL)), srand(getpid()): an unsigned int", dealing<GlibcDealer>()},
    {"delphi", "Delphi: RandSeed := seed; Random(i + 1) Fisher-Yates", k32, "Randomize (the time): a 32-bit RandSeed",
     dealing<DelphiDealer>()},
    {"asf-1999", "ASF Software's poker shuffle (1999): swap card[ctr] with card[Random(51) + 1]", kMillisecondsADay,
     "Randomize: the milliseconds since midnight", dealing<AsfDealer>(), true},
    {"cpp-minstd", "C++: std::shuffle with std::minstd_rand(seed) (libstdc++)", k32,
     "a seed, often the time; taken mod 2^31 - 1", dealing<CppMinstdDealer>()},
    {"cpp-mt19937", "C++: std::shuffle with std::mt19937(seed) (libstdc++)", k32,
     "the time, random_device(): a seed taken mod 2^32", dealing<CppMtDealer>()},
    {"php-mt", "PHP >= 7.1: mt_srand(seed); shuffle()", k32, "mt_srand(seed), or PHP's own: 32 bits",
     dealing<PhpMtDealer>()},
    {"python", "CPython: random.seed(seed); random.shuffle()", k32, "random.seed(an int): up to 64 bits here",
     dealing<PythonDealer>()},
    {"java", "Java: Collections.shuffle(list, new Random(seed))", k32,
     "new Random(a long): 48 bits count; a clock's milliseconds in --clock", dealing<JavaDealer>()},
    {"dotnet", ".NET: new Random(seed); Next(i + 1) Fisher-Yates", std::uint64_t{1} << 31,
     "new Random(an int): -s is s; Environment.TickCount", dealing<DotnetDealer>()},
};

}  // namespace

std::span<const FamilyRow> families() { return kFamilies; }

const FamilyRow* family_named(std::string_view name) {
  for (const FamilyRow& f : kFamilies)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<const FamilyRow*> families_named(const std::vector<std::string>& names) {
  std::vector<const FamilyRow*> out;
  for (const FamilyRow& f : kFamilies)
    if (names.empty()) out.push_back(&f);
  for (const std::string& name : names) {
    const FamilyRow* f = family_named(name);
    if (!f) throw UsageError(Param::family, "unknown {family} '" + token_safe(name) + "': use " + family_names(", "));
    out.push_back(f);
  }
  return out;
}

std::string family_names(std::string_view separator) {
  std::string names;
  for (const FamilyRow& f : kFamilies) {
    if (!names.empty()) names += separator;
    names += f.name;
  }
  return names;
}

std::vector<std::uint16_t> fresh_deck(const FamilyRow& family, int n) {
  std::vector<std::uint16_t> deck(static_cast<std::size_t>(family.fixed_deck ? 52 : n));
  for (std::size_t i = 0; i < deck.size(); ++i) deck[i] = static_cast<std::uint16_t>(i);
  return deck;
}

std::vector<std::vector<std::uint16_t>> deal_decks(const FamilyRow& family, std::uint64_t seed, int n, int decks) {
  const std::unique_ptr<Dealer> dealer = family.dealing.seeded(seed);
  std::vector<std::vector<std::uint16_t>> out;
  for (int d = 0; d < decks; ++d) {
    std::vector<std::uint16_t> deck = fresh_deck(family, n);
    dealer->shuffle(deck);
    out.push_back(std::move(deck));
  }
  return out;
}

}  // namespace melange::predict
