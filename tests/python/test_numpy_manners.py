"""The Python module's NumPy manners: a call that does not fit is one line,
audit_records infers 1-based rows, integers takes every integer dtype and
ranges to 2**64, melange.BitGenerator feeds NumPy's distributions from a
melange stream, and the scale-out example gives one process's records.

Run by CTest (label python) with PYTHONPATH at the built module and
MELANGE_CLI naming the melange program of the same build.
"""
import importlib.util
import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import melange

CLI = os.environ.get("MELANGE_CLI", "melange")
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scale_out.py"


def cli_tokens(*args):
    text = subprocess.run([CLI, *map(str, args)], check=True, capture_output=True, text=True).stdout
    return [t for line in text.splitlines() if not line.startswith("#") for t in line.split()]


def words(seed, stream, count):
    return [int(w, 16) for w in cli_tokens("words", "--seed", seed, "--stream", stream, "--count", count)]


def records(rows=3, n=4):
    return np.tile(np.arange(n, dtype=np.uint8), (rows, 1))


CALLS = [
    (lambda: melange.permutations(4, 10, sed=3),
     "permutations() got an unexpected keyword argument 'sed'; did you mean 'seed'?"),
    (lambda: melange.Stream(1).deals(52, 5, 10, metod="lemire"),
     "Stream.deals() got an unexpected keyword argument 'metod'; did you mean 'method'?"),
    (lambda: melange.audit_records(records(), posiiton=True),
     "audit_records() got an unexpected keyword argument 'posiiton'; did you mean 'position'?"),
    (lambda: melange.audit(trials=10, algoo="naive-swap"),
     "audit() got an unexpected keyword argument 'algoo'; did you mean 'algo'?"),
    (lambda: melange.Stream(sed=1), "Stream() got an unexpected keyword argument 'sed'; did you mean 'seed'?"),
    (lambda: melange.integers(10, siez=3), "integers() got an unexpected keyword argument 'siez'; did you mean 'size'?"),
    (lambda: melange.BitGenerator(7, strem=3),
     "BitGenerator() got an unexpected keyword argument 'strem'; did you mean 'stream'?"),
    (lambda: melange.exact(n=4, zzz=1), "exact() got an unexpected keyword argument 'zzz'; see help(exact)"),
    (lambda: melange.permutations(4, 10, 5),
     "permutations() takes 2 positional arguments but 3 were given; give the others by keyword"),
    (lambda: melange.permutations(count=5), "permutations() missing required argument 'n'"),
    (lambda: melange.permutations(4, 10, algo=3), "permutations(): algo must be a str, not int"),
    (lambda: melange.audit_records(records(), lags=3), "audit_records(): lags must be a list of int, not int"),
    (lambda: melange.audit(trials=10, n=4, position="yes"), "audit(): position must be a bool, not str"),
]


@pytest.mark.parametrize("call,message", CALLS)
def test_a_call_that_does_not_fit_is_one_line_that_names_what_is_wrong(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value) == message


def test_a_type_error_the_function_raises_itself_is_kept_and_right_calls_go_through():
    with pytest.raises(TypeError, match="^dtype must be an integer dtype"):
        melange.integers(10, size=3, dtype=float)
    with pytest.raises(TypeError, match="^low must be an integer"):
        melange.integers(1.5, 3)
    s = melange.Stream(seed=3)
    np.testing.assert_array_equal(s.permutations(5, 4), melange.permutations(5, 4, seed=3))
    assert s.first == 4 and pickle.loads(pickle.dumps(s)).first == 4
    # help() still shows each function's own signature and words.
    assert melange.permutations.__doc__.startswith("permutations(n: object, count: object = None, *, algo: str")
    assert melange.Stream.spawn.__doc__.startswith("spawn(self: melange.Stream, k: object")


def test_audit_records_infers_one_based_rows_as_the_cli_does(tmp_path):
    zero = melange.permutations(6, 30_000, seed=4)
    one = zero.astype(np.int64) + 1
    from_zero, from_one = melange.audit_records(zero, predict_seconds=0), melange.audit_records(one, predict_seconds=0)
    np.testing.assert_array_equal(from_zero.histogram, from_one.histogram)
    doc = json.loads(from_one.to_json())
    assert "1-based (the first record holds 1..6, no 0; base 0 says otherwise)" in doc["input"]["inferred"], doc["input"]
    np.testing.assert_array_equal(melange.audit_records(one, base=1, predict_seconds=0).histogram, from_zero.histogram)
    with pytest.raises(ValueError, match="records that count items from 1 want base 1"):
        melange.audit_records(one, base=0)
    # The CLI reads the same rows as text the same way.
    path = tmp_path / "one.txt"
    np.savetxt(path, one, fmt="%d")
    cli_doc = json.loads(subprocess.run([CLI, "audit", path, "--predict-seconds", "0", "--json", "-"],
                                        check=True, capture_output=True).stdout)
    assert cli_doc["histogram"] == doc["histogram"] and cli_doc["input"]["base"] == 1


INTEGER_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_integers_fill_every_integer_dtype_to_its_edges(dtype):
    info = np.iinfo(dtype)
    low, high = int(info.min), int(info.max)
    x = melange.integers(low, high, 4000, endpoint=True, dtype=dtype, seed=5, stream=9)
    assert x.dtype == dtype and x.shape == (4000,)
    span = high - low + 1
    if span <= 2**32:  # melange bounded's values, plus low
        want = [int(v) + low for v in cli_tokens("bounded", "--range", span, "--count", 4000, "--seed", 5,
                                                 "--stream", 9)]
    else:  # the whole 64-bit span takes the words themselves, two a value (contract §2)
        w = words(5, 9, 8000)
        want = [((w[2 * i] << 32 | w[2 * i + 1]) + low) for i in range(4000)]
    assert [int(v) for v in x] == want
    # Both edges drawn: each is an eighth of the span from the end at most.
    assert int(x.min()) < low + span // 8 and int(x.max()) > high - span // 8
    # A scalar is NumPy's scalar of the dtype; out= is filled in place.
    one = melange.integers(low, high, endpoint=True, dtype=dtype, seed=5, stream=9)
    assert type(one) is dtype and int(one) == want[0]
    out = np.empty((20, 200), dtype=dtype)
    assert melange.integers(low, high, out=out, endpoint=True, dtype=dtype, seed=5, stream=9) is out
    assert [int(v) for v in out.ravel()] == want


def lemire64(w, s, count):
    """Contract §2's 64-bit draws, read off the stream's words."""
    values, at = [], 0
    while len(values) < count:
        def word():
            nonlocal at
            at += 2
            return w[at - 2] << 32 | w[at - 1]
        m = word() * s
        if m % 2**64 < s:
            t = (2**64 - s) % s
            while m % 2**64 < t:
                m = word() * s
        values.append(m >> 64)
    return values


@pytest.mark.parametrize("s", [2**32 + 1, 2**40, 3 * 2**62, 2**63 + 1, 2**64 - 1])
def test_integers_above_two_to_the_32_are_lemire_on_64_bit_words(s):
    x = melange.integers(0, s, 3000, dtype=np.uint64, seed=11, stream=2)
    assert [int(v) for v in x] == lemire64(words(11, 2, 20000), s, 3000)
    if s < 2**64 - 1:
        assert [int(v) for v in x[:50]] == [int(v) for v in cli_tokens("bounded", "--range", s, "--count", 50,
                                                                         "--seed", 11, "--stream", 2)]
    with pytest.raises(ValueError, match="above 2\\^32, is drawn by Lemire's method on 64-bit words: set method"):
        melange.integers(0, s, 3, dtype=np.uint64, method="modulo")


def test_integers_refuse_what_does_not_fit_their_dtype():
    with pytest.raises(ValueError, match=r"^low -1, high 10 does not fit dtype uint8 \(0 .. 255\)"):
        melange.integers(-1, 10, 3, dtype=np.uint8)
    with pytest.raises(ValueError, match="high must be above low"):
        melange.integers(5, 5, 3)
    with pytest.raises(ValueError, match="does not fit dtype int64"):
        melange.integers(0, 2**64, 3)
    assert melange.integers(5, 5, 3, endpoint=True).tolist() == [5, 5, 5]


def test_integer_arguments_are_read_as_numpy_reads_them():
    # Any integer, Python's or NumPy's, to the edges of its keyword's range;
    # never a bool; out= of the wrong kind named in one line.
    assert int(melange.integers(np.int8(10), seed=np.uint64(2**64 - 1))) == int(melange.integers(10, seed=2**64 - 1))
    for bad, message in [(dict(low=True), "low must be an integer .* not bool$"),
                         (dict(low=np.bool_(True)), "low must be an integer .* not bool_$"),
                         (dict(low=10, seed=np.bool_(True)), "seed must be an integer .* not bool_$"),
                         (dict(low=10.0), "low must be an integer .* not float$")]:
        with pytest.raises(TypeError, match=message):
            melange.integers(**bad)
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match=f"seed must be in 0 .. 2\\*\\*64 - 1; got {seed}$"):
            melange.integers(10, seed=seed)
    with pytest.raises(ValueError, match="^out must be a NumPy array of dtype int64; got list$"):
        melange.integers(10, out=[0, 0])
    with pytest.raises(ValueError, match=r"^out must be an int64 array of shape \(3,\), C-contiguous and writable; "
                                         r"got an int32 array of shape \(3,\)$"):
        melange.integers(10, out=np.zeros(3, dtype=np.int32))
    assert melange.integers(10, dtype="<i8", out=np.zeros(3, dtype=np.int64)).shape == (3,)


def test_bit_generator_words_are_melange_words_and_feed_numpy():
    want = words(7, 3, 1000)
    bg = melange.BitGenerator(7, 3)
    raw = bg.random_raw(1000)
    assert raw.dtype == np.uint64 and raw.tolist() == want and bg.words_consumed == 1000
    # A double is the top 53 bits of two words, the first the high half.
    g = np.random.Generator(melange.BitGenerator(7, 3))
    assert g.random(4).tolist() == [((want[2 * i] << 32 | want[2 * i + 1]) >> 11) / 2**53 for i in range(4)]
    # NumPy's full-range uint32 draw is one word.
    g = np.random.Generator(melange.BitGenerator(7, 3))
    assert g.integers(0, 2**32, 5, dtype=np.uint32).tolist() == want[:5]
    # NumPy's distributions run on it: 10^6 normals, their mean within 5 standard errors of 0 (p < 1e-6).
    x = np.random.Generator(melange.BitGenerator(8, 0)).normal(size=1_000_000)
    assert abs(x.mean()) * 1000 < 5 and abs(x.std() - 1) < 0.01, (x.mean(), x.std())
    # The state goes back, and pickles.
    bg = melange.BitGenerator(7, 3)
    bg.random_raw(5)
    state, after = bg.state, bg.random_raw(3).tolist()
    assert state == {"bit_generator": "melange.BitGenerator", "seed": 7, "stream": 3, "words_consumed": 5}
    bg.state = state
    assert bg.random_raw(3).tolist() == after == want[5:8]
    copy = pickle.loads(pickle.dumps(bg))
    assert copy.random_raw(2).tolist() == bg.random_raw(2).tolist() == want[8:10]
    with pytest.raises(ValueError, match="melange.BitGenerator's state"):
        bg.state = {"bit_generator": "PCG64"}


def test_the_scale_out_example_gives_one_process_records_on_a_pool():
    p = subprocess.run([sys.executable, EXAMPLE], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "4 workers (a multiprocessing pool of 2), 100000 decks: the same decks and counts as one process" in p.stdout


@pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None or shutil.which("mpirun") is None,
                    reason="no mpi4py (python3-mpi4py) or mpirun")
def test_the_scale_out_example_gives_one_process_records_on_mpi_ranks():
    p = subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "3", sys.executable, EXAMPLE,
                        "--mpi"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "4 workers (3 MPI ranks), 100000 decks: the same decks and counts as one process" in p.stdout
