"""melange as a typed caller uses it: checked by `mypy --strict` against the
stubs pip installs (tests/python_package.sh)."""
import numpy as np
import numpy.typing as npt

import melange


def decks_and_verdict(seed: int) -> tuple[npt.NDArray[np.uint8 | np.uint16], str]:
    stream = melange.Stream(seed=seed)
    workers = stream.spawn(4, span=1_000_000)
    decks = np.concatenate([w.permutations(52, np.int64(1000)) for w in workers])
    hands = melange.deals(52, 5, 1e4, seed=np.uint64(seed))
    verdict = melange.audit_records(hands, n=52).verdict
    shuffled = melange.permuted(np.arange(12).reshape(3, 4), axis=1, seed=None)
    assert shuffled.shape == (3, 4)
    dice = melange.integers(1, 7, size=100, seed=seed, stream=1)
    assert 1 <= int(dice.min()) and int(dice.max()) <= 6
    return decks, verdict


if __name__ == "__main__":
    decks, verdict = decks_and_verdict(7)
    print(decks.shape, verdict, melange.__version__, melange.DEFAULT_SEED)
