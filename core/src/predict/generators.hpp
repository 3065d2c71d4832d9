// The libraries' generators, bit for bit: each seeded as its library seeds
// it, giving outputs as its library does. Internal to the predict families.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace melange::predict::internal {

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
  // The state init_genrand(19650218) leaves, where init_by_array starts
  // (the same for every key: made once).
  static const std::array<std::uint32_t, kN>& by_array_base() {
    static const std::array<std::uint32_t, kN> kBase = [] {
      Mt19937 base(19650218u);
      base.seed_up_to(kN - 1);
      return base.mt_;
    }();
    return kBase;
  }
  // init_by_array(key): mixes the key into by_array_base().
  static Mt19937 by_array(const Key& key) {
    Mt19937 g(0u);
    g.mt_ = by_array_base();
    g.seeded_ = kN;
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

// CPython's random.seed(seed) key: the seed's 32-bit words, low first (one
// word below 2^32).
inline Mt19937::Key python_key(std::uint64_t seed) {
  return {{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)},
          std::size_t{seed >> 32 ? 2u : 1u}};
}

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

}  // namespace melange::predict::internal
