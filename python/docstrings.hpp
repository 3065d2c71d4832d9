// The module's docstrings, numpydoc style, so that help(melange) reads as
// NumPy's does. Signatures come from pybind11; these say the rest.
#pragma once

namespace melange::python_docs {

inline constexpr const char* kModule = R"(Reproducible shuffles from Philox4x32-10 streams, and audits of their bias.

Every record is trial t of a job (seed, algorithm, n): the same bits on any
machine, thread count or backend. Sampling: permutations, deals, weighted,
integers, permuted, and Stream (a job's trials in order, with spawn for
workers). Auditing: audit (a built-in shuffle), audit_records (records made
anywhere), exact (an algorithm's exact law).

Integer arguments take a Python int or any NumPy integer, not a bool or a
float. seed defaults to DEFAULT_SEED, a fixed constant: two calls without a
seed give the same records.
)";

inline constexpr const char* kPermutations = R"(Permutations of trials first .. first + count - 1.

Parameters
----------
n : int
    Items, 1 .. 65536.
count : int, optional
    Records; a whole float such as 1e6 works. Omitted: out's rows.
algo : str
    fisher-yates (default), naive-swap, sattolo, sort-binary-insertion, ...
seed : int, optional
    The job's 64-bit seed; None or omitted is DEFAULT_SEED.
first : int
    The first trial's index: record r is trial first + r.
method : str
    Bounded-integer method: batched (default), lemire, modulo, rejection, multiply.
bits : int
    Source width, 1 .. 32 (batched needs 32).
riffles : int, optional
    riffle: riffles of the deck, 1 .. 30 (a 2^riffles-shuffle); other algorithms take none.
shelves, passes : int, optional
    shelf: the machine's shelves, 2 .. 1024, and passes of the deck through it, 1 .. 8 (default 1).
threads : int, optional
    Worker threads (default: one per hardware thread); the records do not depend on it.
backend : str
    auto, scalar, simd, avx512, avx2 or cuda; the records do not depend on it.
out : numpy.ndarray, optional
    A C-contiguous (count, n) array of the dtype below to fill.

Returns
-------
numpy.ndarray
    (count, n), uint8 when n <= 256, else uint16: row r holds the item at each position.

Raises
------
ValueError
    A value out of range, an unknown name, an out of the wrong shape or dtype.
TypeError
    An integer argument given as a bool or a float.

Examples
--------
>>> import melange
>>> melange.permutations(4, 3, seed=1).shape
(3, 4)
)";

inline constexpr const char* kDeals = R"(Deals of k of n items (the partial shuffle), in slot order.

Parameters
----------
n, k : int
    Items in the deck and items dealt, 1 <= k <= n.
count, seed, first, method, bits, threads, backend, out
    As for permutations.

Returns
-------
numpy.ndarray
    (count, k), uint8 when n <= 256, else uint16.

Raises
------
ValueError, TypeError
    As for permutations; k above n.

Examples
--------
>>> melange.deals(52, 5, 2, seed=3).shape
(2, 5)
)";

inline constexpr const char* kWeighted = R"(Weighted orders: Plackett-Luce, or algo='weighted-int-power'.

Parameters
----------
weights : sequence of float
    One weight per item, finite and above 0.
count, seed, first, threads, backend, out
    As for permutations.

Returns
-------
numpy.ndarray
    (count, len(weights)).

Raises
------
ValueError, TypeError
    As for permutations; a weight that is not finite and above 0.

Examples
--------
>>> melange.weighted([1, 2.5, 4], 2, seed=5).shape
(2, 3)
)";

inline constexpr const char* kIntegers = R"(Integers in [low, high) from one stream, as numpy.random.Generator.integers is called.

The values are the draws `melange bounded --range (high - low)` prints for
the same seed and stream, plus low, written straight into dtype. Ranges go
to 2**64: above 2**32 each value is Lemire's method on a 64-bit word of two
stream words (contract §2).

Parameters
----------
low : int
    The lowest value (or, with high None, the exclusive upper bound and low 0).
high : int, optional
    One above the highest value (the highest itself with endpoint).
size : int or tuple of ints, optional
    The output's shape; None: one value (or out's shape).
endpoint : bool
    Include high.
dtype : integer dtype
    int8 .. uint64, numpy.int64 by default; low .. high must fit it.
seed : int, optional
    As for permutations.
stream : int
    The stream (trial) index the values come from.
method, bits
    As for permutations.
out : numpy.ndarray, optional
    An array of dtype and size's shape to fill.

Returns
-------
numpy.ndarray or numpy integer
    Of dtype and shape size (one value when size and out are None).

Raises
------
ValueError
    high not above low (nor equal to it with endpoint), a range the dtype cannot hold, a wrong out,
    a range above 2**32 under a biased method.
TypeError
    A bool or float bound, a dtype that is not an integer dtype.

Examples
--------
>>> melange.integers(1, 7, size=5, seed=1).shape
(5,)
>>> int(melange.integers(6, seed=1)) < 6
True
)";

inline constexpr const char* kPermuted = R"(x with its slices along axis each shuffled, as numpy.random.Generator.permuted.

Slice i, in C order over the other axes, takes the order of trial
first + i's Fisher-Yates permutation of x.shape[axis] items.

Parameters
----------
x : array_like
    The array to shuffle; it is not changed unless it is out.
axis : int
    The axis along which each slice is shuffled (default: the last).
seed, first, method, threads, backend
    As for permutations.
out : numpy.ndarray, optional
    An array of x's shape to write to; x itself works.

Returns
-------
numpy.ndarray
    The shuffled array: out, or a new C-contiguous array.

Raises
------
ValueError
    An axis out of bounds, an out of another shape.

Examples
--------
>>> import numpy as np
>>> melange.permuted(np.arange(6).reshape(2, 3), axis=1, seed=2).shape
(2, 3)
)";

inline constexpr const char* kStream = R"(A job's trials in order, as a numpy.random.Generator is a stream of draws.

Each call takes the next trials (first, first + 1, ...) and moves first
past them, so that calls in a row give what one call for all of them
gives: Stream(seed=s).permutations(n, a) then .permutations(n, b) equal
melange.permutations(n, a + b, seed=s). spawn(k) hands out k Streams over
disjoint ranges of trials, for workers; a Stream pickles.

Threads: a Stream shared by threads serves one call at a time, as
numpy.random.Generator does, so the calls get disjoint ranges that together
are every trial from first on, each call's records a range of its own; which
call gets which range follows the order the threads reach it. For draws in
parallel (and ranges that do not depend on timing) give each thread a Stream
of its own from spawn.

Parameters
----------
seed : int, optional
    The job's seed; None or omitted is DEFAULT_SEED.
first : int
    The next trial a call takes.

Examples
--------
>>> s = melange.Stream(seed=7)
>>> a = s.permutations(52, 10)
>>> s.first
10
>>> workers = s.spawn(4, span=1000)
>>> [w.first for w in workers]
[10, 1010, 2010, 3010]
)";

inline constexpr const char* kBitGenerator = R"(A melange stream as NumPy's bit generator.

numpy.random.Generator(melange.BitGenerator(seed, stream)) draws every NumPy
distribution from one Philox4x32-10 stream of melange (contract §1): the
words of trial `stream` under `seed`, in the contract's order. A 32-bit draw
is the next word; a 64-bit draw is two, the first the high half; a double is
the top 53 bits of a 64-bit draw over 2**53. random_raw gives the 32-bit
words themselves, which equal `melange words --seed seed --stream stream`.
Streams of one seed are independent: give each worker a stream of its own.

Parameters
----------
seed : int, optional
    The key; None or omitted is DEFAULT_SEED.
stream : int
    Which stream (a trial index, 0 .. 2**64 - 1).

Examples
--------
>>> import numpy as np
>>> bg = melange.BitGenerator(7, 3)
>>> [hex(w) for w in bg.random_raw(2)] == [hex(w) for w in melange.BitGenerator(7, 3).random_raw(2)]
True
>>> g = np.random.Generator(melange.BitGenerator(7, 3))
>>> x = g.normal(size=3)
>>> bg.state["words_consumed"]
2
)";

inline constexpr const char* kAudit = R"(Run a built-in shuffle trials times and test its tallies, as `melange audit`.

Parameters
----------
trials : int
    Trials to run (1e6 works).
seed, first, threads, backend
    Which trials, and where they run, as for permutations and deals.
position : bool
    Also tally and test the item x position matrix.
hands : bool
    Deals: also tally the hands.
model : str, optional
    Test against 'exact' (the algorithm's own law) or 'plackett-luce' instead of uniform. With
    algo='riffle' the exact law is one of the rising sequences alone (riffle_law), and they are tested;
    with algo='shelf', of the valleys (shelf_law).
serial : bool
    Also audit the trials as a stream, each against the one before it.
**shuffle
    The shuffle, by the keywords the job's fields have: algo ('fisher-yates'), n (4), k (a deal's
    items), weights (the weighted orders), method ('batched'), bits (32), and a card shuffle's
    riffles (riffle: riffles of the deck), or shelves and passes (shelf: the machine's shelves, and
    passes through it, default 1). None is a keyword left out.

Returns
-------
AuditResult
    verdict ('PASS', 'WEAK', 'FAIL'), tests, counts, and to_json() (the document `melange audit --json` writes,
    its verdict in plain words under "plain").

Raises
------
ValueError, TypeError
    As for permutations; a job the memory cap or the tests cannot take.

Examples
--------
>>> melange.audit(algo="naive-swap", n=4, trials=100_000).verdict
'FAIL'
)";

inline constexpr const char* kAuditRecords = R"(Audit records made anywhere, in the order the shuffler made them.

Parameters
----------
records : array_like
    A 2-D integer array, a permutation of 0..n-1 (or a deal of k of them) a row.
position, hands, model
    As for audit.
skip_invalid : bool or 'all'
    True counts and skips wrong rows up to 1% of them (more is an error); 'all' any number.
stream_tests : bool
    Also test the rows as a stream: repeats, serial pairs, rising sequences, lags.
lags : sequence of int
    The lags of the relabeled-record tests (default [1]).
predict_seconds : float, optional
    The first records are searched for a library dealer's seed, as predict does: None (default)
    searches ASF's day of milliseconds (52-card records); S > 0 also the families' whole 32-bit
    spaces while S seconds last; 0 searches nothing. A seed that deals them makes the verdict FAIL.
base : {0, 1}, optional
    Whether items count from 0 or from 1. None (default) infers it as `melange audit` does of text:
    whole permutations whose first row holds 1..n and no 0 count from 1.
**shuffle
    n (items; omitted: the rows' length), k (items a deal; omitted: the rows' length when n is
    larger), and for model='exact' the shuffle whose law it is, by audit's keywords (algo, method,
    bits, and the card parameters: with algo='riffle', the records' rising sequences are tested
    against riffle_law(n, riffles); with algo='shelf', their valleys against
    shelf_law(n, shelves, passes)).

Returns
-------
AuditResult

Raises
------
ValueError
    Rows that are not integers or not 2-D, a wrong row (unless skip_invalid), too many wrong rows.

Examples
--------
>>> decks = melange.permutations(5, 50_000, seed=1)
>>> melange.audit_records(decks).verdict
'PASS'
)";

inline constexpr const char* kPredict = R"(Find the seed behind a dealer built on a library shuffle, as `melange predict`.

Each family (PREDICT_FAMILIES: glibc's rand, Delphi and the ASF poker shuffle, libstdc++'s std::shuffle
with mt19937 or minstd_rand, PHP, CPython, Java, .NET) is searched for the seeds whose first deal
reproduces the first record; each is dealt on through the later records, a record that dealing on
does not give being searched as a reseeding near the last seed.

Parameters
----------
records : sequence of sequences of int
    The deals in order, each the first cards of a deck (0-based); None or -1 for a card not seen.
families : sequence of str, optional
    The families to search (default: all).
seeds : (int, int), optional
    The seeds lo..hi to search, both included (default: each family's whole space).
n : int, optional
    Cards in the deck (default: the first record's length where it is a whole deck, else 52).
next : int
    Deals a match predicts after the records (default 1).
threads : int, optional
    Threads (default: one per hardware thread).
reseed_window : int
    A later record is searched as a reseeding among the seeds within this distance of the last
    (default 2**20; 0: dealt on only).
backend : str
    'auto' or 'simd' (seeds in vector lanes where a family has them) or 'scalar' (each seed dealt
    alone by the family's own dealer); the matches are the same.

Returns
-------
dict
    verdict ('FAIL': a seed reproduces every record, and chance alone gives fewer than 1e-6 such seeds;
    'WEAK': seeds match no more than chance gives; 'PASS': none matches), why, n, and families: each
    with family, seeds, complete, chance_matches (for the first record), chance_matches_all, and matches
    (seed, records: the numbers of those it explains, explained: how many, dealt: (seed, reseeded) a record, pattern, chance, telling, next_seed, next).

Examples
--------
>>> melange.predict([[3, 17, 29, 41, 50]], families=["java"], seeds=(0, 999))["verdict"]
'PASS'
)";

inline constexpr const char* kRiffleLaw = R"(The exact law of a riffled deck's rising sequences, as `melange exact --algo riffle`.

riffles riffles of n cards by the Gilbert-Shannon-Reeds model (one
2^riffles-shuffle) give a permutation with R rising sequences the probability
C(2^riffles + n - R, n) / 2^(riffles n) (Bayer and Diaconis 1992), so R's law
is the whole law. Returns a dict: rising_sequences (P(R = r) at index r - 1,
floats) and exact (the same as fraction strings), total_variation and
separation (the distances to uniform), mean_rising_sequences.

>>> law = melange.riffle_law(52, 7)
>>> round(law["total_variation"], 3)
0.334
)";

inline constexpr const char* kShelfLaw = R"(The exact law of a shelf-shuffled deck's valleys, as `melange exact --algo shelf`.

A casino shelf shuffler with `shelves` shelves deals the cards from the bottom
of the deck, each to a random shelf, on top of its pile or under it by a fair
coin, then stacks the piles: each pile rises, then falls, and a permutation's
probability depends only on its valleys V (cards below both neighbours).
`passes` passes of m shelves are one pass of (2m)^passes / 2. Returns a dict:
valleys (P(V = v) at index v, floats) and exact (fraction strings),
total_variation and separation (the distances to uniform), mean_valleys and
one_pass_shelves; for n <= 64 also guesses_mean (the mean correct guesses of
the guessing test's shelf rule, which names the nearest unseen card the way
the last step went) and best_guesses_mean (the most any guesser who sees each
card after naming it can expect).

>>> law = melange.shelf_law(52, 10, passes=2)
>>> round(law["total_variation"], 4)
0.0103
>>> round(melange.shelf_law(52, 10)["best_guesses_mean"], 4)
9.2966
)";

inline constexpr const char* kExact = R"(The exact law of an algorithm, every random path walked, as `melange exact`.

Parameters
----------
algo, n, k, weights, method, bits, threads
    The job, as for audit.

Returns
-------
dict
    probabilities (numpy.ndarray by rank), numerators and denominators (exact fractions as ints), labels,
    mean_words, json.

Raises
------
ValueError
    A job too large to walk.

Examples
--------
>>> law = melange.exact(algo="naive-swap", n=3)
>>> sum(law["numerators"][i] / law["denominators"][i] for i in range(6))
1.0
)";

}  // namespace melange::python_docs
