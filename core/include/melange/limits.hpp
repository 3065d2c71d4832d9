// Every limit and default of the library in one place: how many items each
// part can take, and the values a job starts with. Callers (the CLI, the
// Python module) read them from here rather than copying them.
#pragma once

#include <cstdint>

namespace melange {

// Items are 16-bit indices.
inline constexpr int kMaxSampleItems = 1 << 16;
// sort-v8-timsort models TimSort's single run, which V8 uses below 64 items.
inline constexpr int kMaxTimsortItems = 63;
// Lehmer ranks are 64-bit: 20! < 2^64 <= 21!.
inline constexpr int kMaxRankItems = 20;
// Orders are labelled with letters A, B, C, ... up to this many items.
inline constexpr int kMaxLabelItems = 26;
// The item x position matrix: n^2 64-bit counters.
inline constexpr int kMaxPositionItems = 1024;
// The exact walk: n! bins and every path of the algorithm.
inline constexpr int kMaxExactSwapItems = 9;   // fisher-yates, naive-swap, sattolo
inline constexpr int kMaxExactCoinItems = 8;   // the sort one-liners
// riffle: at most 2^30 packets (one digit a word), far past any deck's mixing.
inline constexpr int kMaxRiffles = 30;
// shelf: a machine's shelves and its passes through the deck. Casino machines
// have about ten shelves and make one or two passes.
inline constexpr int kMaxShelves = 1024;
inline constexpr int kMaxPasses = 8;
// Worker threads a run may ask for.
inline constexpr int kMaxThreads = 1024;
// Items one device thread keeps in its registers and local memory.
inline constexpr int kMaxDeviceItems = 128;

// "melange" in ASCII: the fixed default seed, printed with every result.
inline constexpr std::uint64_t kDefaultSeed = 0x6d656c616e6765ull;
// Bytes a run may hold by default: every worker's tallies together.
inline constexpr std::uint64_t kDefaultMemoryCap = std::uint64_t{1} << 30;  // 1 GiB
// Grading, as dieharder does it: p below weak (or above 1 - weak) is WEAK,
// below fail (or above 1 - fail) is FAIL.
inline constexpr double kDefaultWeak = 0.005;
inline constexpr double kDefaultFail = 1e-6;
// The level of the printed critical values.
inline constexpr double kDefaultAlpha = 0.05;
// Skipping wrong records (RecordOptions::skip_invalid) stops being a
// repair past this share of them: the input, or the flags that read it,
// are wrong. A reader gives up early once this many records are wrong and
// they are most of those read.
inline constexpr double kMaxInvalidShare = 0.01;
inline constexpr std::uint64_t kInvalidRecordsToGiveUp = 1024;
// The power analysis: trials to detect a bias at this level with this power.
inline constexpr double kDetectAlpha = 1e-6;
inline constexpr double kDetectPower = 0.99;
// The plain-words lines of an audit: the smallest effect each test detects,
// and the records that would settle a WEAK, at this power and the FAIL level.
inline constexpr double kPlainPower = 0.9;

}  // namespace melange
