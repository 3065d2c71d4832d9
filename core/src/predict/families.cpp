#include "melange/predict/families.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "melange/error.hpp"
#include "melange/predict/probe.hpp"
#include "generators.hpp"
#include "mt_lanes.hpp"
#include "shuffles.hpp"
#include "trace_lanes.hpp"

namespace melange::predict {
namespace {

using namespace internal;

constexpr std::uint64_t k32 = std::uint64_t{1} << 32;

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

// std::shuffle(deck, std::mt19937(seed)), over any source of its words.
template <class G>
struct CppMt {
  template <class Deck>
  bool shuffle(Deck& deck) {
    return libstdcxx_shuffle(deck, g, 0, 0xffffffffu);
  }
  G g;
};
struct CppMtDealer : CppMt<Mt19937> {
  explicit CppMtDealer(std::uint64_t seed) : CppMt<Mt19937>{Mt19937(static_cast<std::uint32_t>(seed))} {}
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
template <class G>
struct PhpMt {
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t m) {
      for (;;)
        if (const std::optional<std::uint32_t> j = accept(g.next(), m)) return *j;
    });
  }
  // The draw below m one word gives, or none where PHP rejects the word.
  static std::optional<std::uint32_t> accept(std::uint32_t word, std::uint32_t m) {
    if ((m & (m - 1)) == 0) return word & (m - 1);
    if (word > 0xffffffffu - (0xffffffffu % m) - 1) return std::nullopt;
    return word % m;
  }
  G g;
};
struct PhpMtDealer : PhpMt<Mt19937> {
  explicit PhpMtDealer(std::uint64_t seed) : PhpMt<Mt19937>{Mt19937(static_cast<std::uint32_t>(seed))} {}
};

// CPython: random.seed(seed) (init_by_array of the seed's 32-bit words),
// random.shuffle: for i = n-1 down to 1, j = _randbelow(i + 1) by
// getrandbits(bit_length) and rejection.
template <class G>
struct PythonShuffle {
  template <class Deck>
  bool shuffle(Deck& deck) {
    return downward_fisher_yates(deck, [this](std::uint32_t n) {
      for (;;)
        if (const std::optional<std::uint32_t> j = accept(g.next(), n)) return *j;
    });
  }
  // The draw below n one word gives (its top bit_length(n) bits), or none
  // where CPython rejects it.
  static std::optional<std::uint32_t> accept(std::uint32_t word, std::uint32_t n) {
    const std::uint32_t r = word >> (32 - std::bit_width(n));
    return r < n ? std::optional<std::uint32_t>(r) : std::nullopt;
  }
  G g;
};
struct PythonDealer : PythonShuffle<Mt19937> {
  explicit PythonDealer(std::uint64_t seed) : PythonShuffle<Mt19937>{Mt19937::by_array(python_key(seed))} {}
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

// A first deal dealt whole against the probe, one dealer after another:
// the dealer lives on the caller's stack and the deck is reset by a copy,
// no allocation a deal.
class WholeDeal {
 public:
  explicit WholeDeal(const Probe& probe)
      : probe_(probe), identity_(static_cast<std::size_t>(probe.deck_size())), items_(identity_.size()) {
    for (std::size_t i = 0; i < identity_.size(); ++i) identity_[i] = static_cast<std::uint16_t>(i);
  }
  template <class Dealer>
  bool shows(Dealer&& dealer) {
    std::copy(identity_.begin(), identity_.end(), items_.begin());
    ProbeDeck deck(probe_, items_);
    return dealer.shuffle(deck);
  }

 private:
  const Probe& probe_;
  std::vector<std::uint16_t> identity_, items_;
};

// The seeds first..last whose first deal agrees with the probe.
template <class D>
void scan(const Probe& probe, std::uint64_t first, std::uint64_t last, std::vector<std::uint64_t>& matches) {
  WholeDeal whole(probe);
  for (std::uint64_t seed = first;; ++seed) {
    if (whole.shows(D(seed))) matches.push_back(seed);
    if (seed == last) break;
  }
}

// Calls deal(lane) for each lane < count whose flag is set, 8 flags read
// at once: nearly all are clear.
template <class Deal>
void deal_flagged(const DealFlags& flags, std::uint64_t count, Deal deal) {
  for (std::uint64_t word = 0; word < count; word += 8) {
    std::uint64_t eight;
    std::memcpy(&eight, flags + word, sizeof eight);
    if (eight == 0) continue;
    for (std::uint64_t lane = word; lane < std::min(count, word + 8); ++lane)
      if (flags[lane]) deal(lane);
  }
}

template <class D>
constexpr Dealing dealing() {
  return {make<D>, scan<D>, scan<D>};
}

// How a run of kMtLanes seeds is seeded in lanes: fill() writes their
// first outputs (false: not these seeds, seed them one by one), seeded()
// seeds one as the library does.
struct GenrandLanes {
  static Mt19937 seeded(std::uint64_t seed) { return Mt19937(static_cast<std::uint32_t>(seed)); }
  bool fill(std::uint64_t base, int ahead, std::uint32_t* outputs) {
    std::uint32_t seeds[kMtLanes];
    for (int lane = 0; lane < kMtLanes; ++lane) seeds[lane] = static_cast<std::uint32_t>(base + lane);
    mt19937_first_outputs(seeds, ahead, outputs);
    return true;
  }
};
struct ByArrayLanes {
  static Mt19937 seeded(std::uint64_t seed) { return Mt19937::by_array(python_key(seed)); }
  bool fill(std::uint64_t base, int ahead, std::uint32_t* outputs) {
    const std::size_t key_size = python_key(base).size;
    if (python_key(base + (kMtLanes - 1)).size != key_size) return false;  // the run crosses 2^32
    std::uint64_t seeds[kMtLanes];
    for (int lane = 0; lane < kMtLanes; ++lane) seeds[lane] = base + lane;
    mt19937_by_array_first_outputs(seeds, key_size, ahead, state, outputs);
    return true;
  }
  std::vector<std::uint32_t> state;
};

// Whether a shuffle is a downward Fisher-Yates whose first draw one word
// decides (Shuffle<G>::accept).
template <template <class> class Shuffle>
constexpr bool kFirstDrawFromOneWord = requires { Shuffle<Mt19937Replay>::accept(0u, 2u); };

// For such a shuffle: whether the card its first draw settles at the
// bottom, the identity's item j, agrees with the probe. Checked on the
// lane's first output before any dealing: for a whole deck, 51 seeds in 52
// end here.
template <template <class> class Shuffle>
bool first_card_agrees(const Probe& probe, std::uint32_t first_output) {
  if constexpr (kFirstDrawFromOneWord<Shuffle>) {
    const auto n = static_cast<std::uint32_t>(probe.deck_size());
    const std::optional<std::uint32_t> j = Shuffle<Mt19937Replay>::accept(first_output, n);
    return !j || probe.agrees(n - 1, static_cast<std::uint16_t>(*j));
  } else {
    return true;  // libstdc++'s shuffle settles no card before its end
  }
}

// Whether a shuffle is libstdc++'s, whose swaps the trace lanes follow.
template <template <class> class Shuffle>
constexpr bool kUpwardShuffle = false;
template <>
constexpr bool kUpwardShuffle<CppMt> = true;

// The seeds of one run of lanes worth dealing, from their first outputs:
// the cards an upward shuffle leaves at two seen positions (trace_lanes:
// all its draws, where a deck's shuffle reads no more words than the lanes
// made), or the card a downward shuffle's first draw settles.
template <template <class> class Shuffle>
class MtLaneFilter {
  static_assert(kMtLanes % kTraceLanes == 0);

 public:
  explicit MtLaneFilter(const Probe& probe) : probe_(probe) {
    if constexpr (kUpwardShuffle<Shuffle>) {
      plan_ = trace_plan(probe, Swaps::upward, 0xffffffffu);
      if (plan_.traced.count > 0 && !plan_.calls.empty() && plan_.calls.size() <= kMtOutputs) {
        ahead_ = static_cast<int>(plan_.calls.size());
        scratch_.resize(static_cast<std::size_t>(plan_.traced.steps) * kTraceLanes);
      }
    } else if (kFirstDrawFromOneWord<Shuffle> && probe.want(probe.deck_size() - 1) >= 0) {
      ahead_ = kMtFewOutputs;  // the bottom card seen: the first output decides all but 1 seed in n
    }
  }
  // Outputs a lane makes ahead.
  int ahead() const { return ahead_; }
  void filter(const std::uint32_t* outputs) {
    if (!scratch_.empty()) {
      for (int run = 0; run < kMtLanes / kTraceLanes; ++run)
        mt19937_trace(outputs + run * kTraceLanes, kMtLanes, plan_, scratch_.data(), keep_[run]);
      return;
    }
    for (int lane = 0; lane < kMtLanes; ++lane)
      keep_[lane / kTraceLanes][lane % kTraceLanes] = first_card_agrees<Shuffle>(probe_, outputs[lane]) ? 1 : 0;
  }
  // Calls deal(lane) for each kept lane below count.
  template <class Deal>
  void each_kept(std::uint64_t count, Deal deal) const {
    for (int run = 0; run < kMtLanes / kTraceLanes; ++run) {
      const std::uint64_t start = static_cast<std::uint64_t>(run) * kTraceLanes;
      if (count <= start) break;
      deal_flagged(keep_[run], std::min<std::uint64_t>(count - start, kTraceLanes),
                   [&](std::uint64_t lane) { deal(start + lane); });
    }
  }

 private:
  const Probe& probe_;
  TracePlan plan_;
  std::vector<std::uint32_t> scratch_;
  int ahead_ = kMtOutputs;
  DealFlags keep_[kMtLanes / kTraceLanes] = {};
};

// The scan of a family over MT19937's words (Shuffle<G>: the library's
// shuffle over a source G of them), seeded kMtLanes seeds at a time
// (mt_lanes.hpp).
template <template <class> class Shuffle, class Lanes>
void scan_mt_lanes(const Probe& probe, std::uint64_t first, std::uint64_t last, std::vector<std::uint64_t>& matches) {
  WholeDeal whole(probe);
  std::vector<std::uint32_t> outputs(kMtOutputs * kMtLanes);
  Lanes lanes;
  MtLaneFilter<Shuffle> lane_filter(probe);
  const int ahead = lane_filter.ahead();
  for (std::uint64_t base = first;; base += kMtLanes) {
    const std::uint64_t count = last - base < kMtLanes ? last - base + 1 : kMtLanes;
    const bool filled = base <= ~std::uint64_t{0} - (kMtLanes - 1) && lanes.fill(base, ahead, outputs.data());
    const auto deal = [&](std::uint64_t lane) {
      const std::uint64_t seed = base + lane;
      // Unfilled: a replay with no outputs ahead seeds afresh at once.
      if (whole.shows(Shuffle<Mt19937Replay>{Mt19937Replay(filled ? outputs.data() + lane : nullptr, Lanes::seeded,
                                                           seed, filled ? ahead : 0)}))
        matches.push_back(seed);
    };
    if (filled) {
      lane_filter.filter(outputs.data());
      lane_filter.each_kept(count, deal);
    } else {
      for (std::uint64_t lane = 0; lane < count; ++lane) deal(lane);
    }
    if (last - base < kMtLanes) break;
  }
}

template <class D, template <class> class Shuffle, class Lanes>
constexpr Dealing dealing_in_mt_lanes() {
  return {make<D>, scan_mt_lanes<Shuffle, Lanes>, scan<D>};
}

// The scan of an LCG family: the cards at the record's first settled
// positions for kTraceLanes seeds at once (trace_lanes.hpp); a seed showing
// them is dealt whole. `kGenRange`: an upward shuffle's generator's.
template <class D, Swaps kSwaps, TraceLanes kTrace, std::uint64_t kGenRange = 0>
void scan_traced(const Probe& probe, std::uint64_t first, std::uint64_t last, std::vector<std::uint64_t>& matches) {
  const TracePlan plan = trace_plan(probe, kSwaps, kGenRange);
  if (plan.traced.count == 0 || (kSwaps == Swaps::upward && plan.calls.empty()))
    return scan<D>(probe, first, last, matches);
  std::vector<std::uint32_t> scratch(static_cast<std::size_t>(plan.traced.steps) * kTraceLanes);
  WholeDeal whole(probe);
  DealFlags deal;
  for (std::uint64_t base = first;; base += kTraceLanes) {
    const std::uint64_t count = last - base < kTraceLanes ? last - base + 1 : kTraceLanes;
    kTrace(base, plan, scratch.data(), deal);
    deal_flagged(deal, count, [&](std::uint64_t lane) {
      if (whole.shows(D(base + lane))) matches.push_back(base + lane);
    });
    if (last - base < kTraceLanes) break;
  }
}

template <class D, Swaps kSwaps, TraceLanes kTrace, std::uint64_t kGenRange = 0>
constexpr Dealing dealing_traced() {
  return {make<D>, scan_traced<D, kSwaps, kTrace, kGenRange>, scan<D>};
}


// Seeds are 64-bit numbers, taken as the library takes them: a 32-bit
// family's dealer keeps the low 32 bits, as a C cast of a wider clock does.
const FamilyRow kFamilies[] = {
    {"glibc-rand", "C: srand(seed); rand() % (i + 1) Fisher-Yates (glibc's additive generator)", k32,
     "srand(time(NULL)), srand(getpid()): an unsigned int", dealing_traced<GlibcDealer, Swaps::downward, glibc_trace>()},
    {"delphi", "Delphi: RandSeed := seed; Random(i + 1) Fisher-Yates", k32, "Randomize (the time): a 32-bit RandSeed",
     dealing_traced<DelphiDealer, Swaps::downward, delphi_trace>()},
    {"asf-1999", "ASF Software's poker shuffle (1999): swap card[ctr] with card[Random(51) + 1]", kMillisecondsADay,
     "Randomize: the milliseconds since midnight", dealing_traced<AsfDealer, Swaps::asf, asf_trace>(), true},
    {"cpp-minstd", "C++: std::shuffle with std::minstd_rand(seed) (libstdc++)", k32,
     "a seed, often the time; taken mod 2^31 - 1",
     dealing_traced<CppMinstdDealer, Swaps::upward, minstd_trace, Minstd::kMax - Minstd::kMin>()},
    {"cpp-mt19937", "C++: std::shuffle with std::mt19937(seed) (libstdc++)", k32,
     "the time, random_device(): a seed taken mod 2^32", dealing_in_mt_lanes<CppMtDealer, CppMt, GenrandLanes>()},
    {"php-mt", "PHP >= 7.1: mt_srand(seed); shuffle()", k32, "mt_srand(seed), or PHP's own: 32 bits",
     dealing_in_mt_lanes<PhpMtDealer, PhpMt, GenrandLanes>()},
    {"python", "CPython: random.seed(seed); random.shuffle()", k32, "random.seed(an int): up to 64 bits here",
     dealing_in_mt_lanes<PythonDealer, PythonShuffle, ByArrayLanes>()},
    {"java", "Java: Collections.shuffle(list, new Random(seed))", k32,
     "new Random(a long): 48 bits count; a clock's milliseconds in --clock",
     dealing_traced<JavaDealer, Swaps::downward, java_trace>()},
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
