"""Side by side, one core, one run: filling a buffer with `count`
permutations of n items through melange.permutations (the Python module,
threads=1), NumPy's Generator.permuted over a tiled identity, and
std::shuffle + std::mt19937_64 in C++ (-O3 -march=native). Each time is the
median of REPEATS fills of the same buffer size.

Usage: serve_compare.py STD_SHUFFLE_FILL [REPEATS]   (PYTHONPATH at the module)
"""
import statistics
import subprocess
import sys
import time

import numpy as np

import melange

peer = sys.argv[1]
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5


def median_seconds(fill):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fill()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


print(f"# melange serve compare: one core, median of {repeats}; NumPy {np.__version__}, melange {melange.__version__}")
print(f"{'n':>4} {'count':>10} {'melange/s':>12} {'numpy/s':>12} {'std::shuffle/s':>15} {'vs numpy':>9} {'vs std':>8}")
for n, count in [(4, 10_000_000), (52, 10_000_000)]:
    out = np.empty((count, n), dtype=np.uint8)
    ours = median_seconds(lambda: melange.permutations(n, count, threads=1, out=out))
    rng = np.random.default_rng(2024)
    base = np.tile(np.arange(n, dtype=np.uint8), (count, 1))
    theirs = median_seconds(lambda: rng.permuted(base, axis=1))
    cpp = statistics.median(
        float(subprocess.run([peer, str(n), str(count)], check=True, capture_output=True, text=True).stdout.split()[0])
        for _ in range(repeats))
    print(f"{n:>4} {count:>10} {count / ours:>12.3e} {count / theirs:>12.3e} {count / cpp:>15.3e} "
          f"{theirs / ours:>8.1f}x {cpp / ours:>7.1f}x")
