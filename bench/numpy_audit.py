#!/usr/bin/env python3
"""The NumPy peer: Generator.permuted on rows of identity, then the Lehmer
rank with vectorised comparisons and bincount (rank mode), or bincount over
item * n + position (position mode).

Usage: numpy_audit.py rank|position N TRIALS
Prints: trials, seconds, shuffles per second (one core)."""
import math
import sys
import time

import numpy as np


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("rank", "position"):
        sys.exit("usage: numpy_audit.py rank|position N TRIALS")
    mode, n, trials = sys.argv[1], int(sys.argv[2]), int(float(sys.argv[3]))
    rng = np.random.default_rng(20261130)
    chunk = max(1, min(trials, 2_000_000 // n))
    bins = math.factorial(n) if mode == "rank" else n * n
    counts = np.zeros(bins, dtype=np.int64)
    columns = np.arange(n, dtype=np.int64)
    start = time.perf_counter()
    done = 0
    while done < trials:
        m = min(chunk, trials - done)
        perms = rng.permuted(np.tile(np.arange(n, dtype=np.int64), (m, 1)), axis=1)
        if mode == "rank":
            weights = np.array([math.factorial(n - 1 - i) for i in range(n)], dtype=np.int64)
            smaller = np.zeros((m, n), dtype=np.int64)
            for i in range(n):
                smaller[:, i] = (perms[:, i + 1:] < perms[:, i:i + 1]).sum(axis=1)
            counts += np.bincount(smaller @ weights, minlength=bins)
        else:
            counts += np.bincount((perms * n + columns).ravel(), minlength=bins)
        done += m
    seconds = time.perf_counter() - start
    print(f"{trials} {seconds:.6f} {trials / seconds:.6e} {int(counts.sum())}")


if __name__ == "__main__":
    main()
