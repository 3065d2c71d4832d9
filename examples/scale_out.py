"""Scale-out in Python: workers on spawned Streams give the records one
process gives, however many workers there are and wherever they run.

    python3 examples/scale_out.py                      # a multiprocessing pool
    mpirun -np 4 python3 examples/scale_out.py --mpi   # MPI ranks, with mpi4py

A Stream's spawn(k, span) hands out k Streams over disjoint ranges of one
job's trials; each pickles to (seed, first, end), so it travels to a pool's
worker or an MPI rank as three numbers. Here every worker deals its range of
52-card decks and counts where each card lands (the position matrix); the
counts are summed and checked, with a digest of every deck, against one
process that deals all the decks at once. NumPy's own distributions scale
out the same way: numpy.random.Generator(melange.BitGenerator(seed, w)) for
worker w.
"""
import argparse
import hashlib
import sys
from multiprocessing import Pool

import numpy as np

import melange

SEED = 2026
WORKERS = 4
SPAN = 25_000  # decks a worker deals


def deal(stream: melange.Stream) -> tuple[np.ndarray, str]:
    """A worker's decks: their position counts and a digest of the decks."""
    decks = stream.permutations(52, SPAN)
    counts = np.zeros((52, 52), dtype=np.int64)
    np.add.at(counts, (np.arange(52)[None, :].repeat(len(decks), 0), decks), 1)
    return counts, hashlib.sha256(decks.tobytes()).hexdigest()


def one_process() -> tuple[np.ndarray, list[str]]:
    """The same decks from one call, cut where the workers' ranges meet."""
    decks = melange.permutations(52, WORKERS * SPAN, seed=SEED)
    counts = np.zeros((52, 52), dtype=np.int64)
    np.add.at(counts, (np.arange(52)[None, :].repeat(len(decks), 0), decks), 1)
    digests = [hashlib.sha256(decks[w * SPAN:(w + 1) * SPAN].tobytes()).hexdigest() for w in range(WORKERS)]
    return counts, digests


def report(results: list[tuple[np.ndarray, str]], where: str) -> int:
    counts = sum(c for c, _ in results)
    want_counts, want_digests = one_process()
    same = np.array_equal(counts, want_counts) and [d for _, d in results] == want_digests
    print(f"{WORKERS} workers ({where}), {WORKERS * SPAN} decks: "
          f"{'the same decks and counts as one process' if same else 'NOT the decks of one process'}")
    print(f"card 0 on top {counts[0, 0]} times (expected {WORKERS * SPAN / 52:.0f})")
    return 0 if same else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mpi", action="store_true", help="run on MPI ranks (mpi4py) rather than a pool")
    args = parser.parse_args()
    streams = melange.Stream(seed=SEED).spawn(WORKERS, span=SPAN)
    if not args.mpi:
        with Pool(2) as pool:
            return report(pool.map(deal, streams), "a multiprocessing pool of 2")
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    mine = [deal(s) for s in streams[comm.rank::comm.size]]
    gathered = comm.gather(mine, root=0)
    if comm.rank != 0:
        return 0
    # Rank r dealt streams r, r + size, ...: back into the streams' order.
    results = [gathered[w % comm.size][w // comm.size] for w in range(WORKERS)]
    return report(results, f"{comm.size} MPI ranks")


if __name__ == "__main__":
    sys.exit(main())
