"""The Python module against the CLI and its own contract (contract §5).

Run by CTest (label python) with PYTHONPATH at the built module and
MELANGE_CLI naming the melange program of the same build.
"""
import json
import os
import pickle
import re
import subprocess
import threading

import numpy as np
import pytest

import melange

CLI = os.environ.get("MELANGE_CLI", "melange")


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], check=True, capture_output=True).stdout


def cli_records(tmp_path, fmt, *args):
    path = tmp_path / f"records.{fmt}"
    cli("sample", "--format", fmt, "--output", path, *args)
    return path


@pytest.mark.parametrize("n,count", [(4, 1000), (52, 300), (300, 50)])
def test_permutations_equal_the_cli(tmp_path, n, count):
    got = melange.permutations(n, count, seed=99, first=2**32 - 7)
    want = np.load(cli_records(tmp_path, "npy", "--n", n, "--count", count, "--seed", 99, "--first", 2**32 - 7))
    assert got.dtype == want.dtype == (np.uint8 if n <= 256 else np.uint16)
    assert got.shape == (count, n)
    np.testing.assert_array_equal(got, want)


def test_deals_and_weighted_equal_the_cli(tmp_path):
    got = melange.deals(52, 5, 1000, seed=3)
    want = np.fromfile(cli_records(tmp_path, "u8", "--algo", "partial", "--n", 52, "--k", 5, "--count", 1000,
                                   "--seed", 3), dtype=np.uint8).reshape(1000, 5)
    np.testing.assert_array_equal(got, want)
    got = melange.weighted([1, 2.5, 4], 200, seed=5)
    text = cli("sample", "--algo", "weighted", "--weights", "1,2.5,4", "--n", 3, "--count", 200, "--seed", 5)
    want = np.array([line.split() for line in text.decode().splitlines() if not line.startswith("#")], dtype=np.uint8)
    np.testing.assert_array_equal(got, want)


def test_every_algorithm_on_every_thread_count_gives_the_same_bits():
    for algo in ["fisher-yates", "naive-swap", "sattolo", "sort-binary-insertion", "sort-v8-timsort"]:
        one = melange.permutations(9, 5000, algo=algo, threads=1, backend="scalar")
        np.testing.assert_array_equal(one, melange.permutations(9, 5000, algo=algo, threads=2))


def test_integers_equal_melange_bounded():
    got = melange.integers(52, size=40, seed=7, stream=11, method="lemire", dtype=np.uint32)
    text = cli("bounded", "--range", 52, "--count", 40, "--seed", 7, "--stream", 11, "--method", "lemire")
    want = np.array(" ".join(l for l in text.decode().splitlines() if not l.startswith("#")).split(), dtype=np.uint32)
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got, want)
    # One endless sequence: a longer count extends a shorter one.
    np.testing.assert_array_equal(melange.integers(10, size=1000, seed=1)[:77], melange.integers(10, size=77, seed=1))
    # As numpy.random.Generator.integers: low, high, size, endpoint, dtype.
    base = melange.integers(6, size=100, seed=3)
    assert base.dtype == np.int64
    np.testing.assert_array_equal(melange.integers(10, 16, size=100, seed=3), base + 10)
    np.testing.assert_array_equal(melange.integers(-3, 2, size=(10, 10), endpoint=True, seed=3, dtype=np.int8),
                                  (base - 3).reshape(10, 10))
    assert melange.integers(6, seed=3) == base[0]
    with pytest.raises(ValueError, match="low 5, high 5: high must be above low"):
        melange.integers(5, 5)
    with pytest.raises(ValueError, match="does not fit dtype uint8"):
        melange.integers(0, 300, size=3, dtype=np.uint8)
    with pytest.raises(TypeError, match="integer dtype"):
        melange.integers(6, size=3, dtype=np.float64)


def test_out_fills_an_existing_array_and_anything_else_is_a_value_error():
    out = np.zeros((100, 52), dtype=np.uint8)
    back = melange.permutations(52, out=out, seed=4)
    assert back is out or np.shares_memory(back, out)
    np.testing.assert_array_equal(out, melange.permutations(52, 100, seed=4))
    wrong = [np.zeros((100, 52), dtype=np.uint16),              # dtype
             np.zeros((100, 51), dtype=np.uint8),               # shape
             np.zeros((52, 100), dtype=np.uint8).T,             # not C-contiguous
             np.zeros((200, 52), dtype=np.uint8)[::2]]          # strided
    for w in wrong:
        with pytest.raises(ValueError, match="out must be a uint8 array of shape \\(100, 52\\)"):
            melange.permutations(52, 100, out=w)
    frozen = np.zeros((100, 52), dtype=np.uint8)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        melange.permutations(52, 100, out=frozen)
    counts = np.zeros(10, dtype=np.int64)
    melange.integers(6, out=counts)
    assert counts.max() < 6


def test_errors_are_value_errors_with_the_library_message():
    with pytest.raises(ValueError, match="n must be at least 1"):
        melange.permutations(0, 3)
    with pytest.raises(ValueError, match="trials must be at least 1"):
        melange.audit(n=4, trials=0)
    with pytest.raises(ValueError, match="high must be above low"):
        melange.integers(0, size=3)
    with pytest.raises(ValueError, match="unknown method 'fast'"):
        melange.permutations(4, 3, method="fast")
    with pytest.raises(ValueError, match="deal"):
        melange.deals(5, 6, 3)
    with pytest.raises(ValueError, match="count must be a whole number"):
        melange.permutations(4, 2.5)
    with pytest.raises(ValueError, match="count must be a whole number"):
        melange.permutations(4, -1)
    assert melange.permutations(4, 1e3).shape == (1000, 4)  # counts may be written 1e3, as on the CLI
    with pytest.raises(ValueError, match="appears twice"):
        melange.audit_records(np.array([[0, 1, 2], [1, 1, 2]]), n=3)


def test_every_tally_kind_is_reached_by_its_name():
    r = melange.audit(algo="partial", n=52, k=5, trials=20_000, hands=True, threads=1)
    assert r.counts("ranks") is None  # 311,875,200 ordered deals: left out under the default cap
    np.testing.assert_array_equal(r.counts("positions"), r.positions)
    assert r.counts("positions").shape == (52, 5)
    np.testing.assert_array_equal(r.counts("hands"), r.hands)
    poker = r.counts("categories")
    assert poker.shape == (10,) and poker.sum() == 20_000
    assert [c["count"] for c in json.loads(r.to_json())["poker_categories"]] == poker.tolist()
    with pytest.raises(ValueError, match="unknown tally kind 'cards': use ranks, positions, hands, categories"):
        r.counts("cards")


def test_audit_records_names_its_own_keyword_for_wrong_records():
    bad = np.array([[0, 1, 2], [1, 1, 2], [2, 1, 0]])
    with pytest.raises(ValueError, match="pass skip_invalid to count and skip") as e:
        melange.audit_records(bad, n=3)
    assert "--" not in str(e.value), str(e.value)
    with pytest.raises(ValueError, match="1 of the 3 records read .* more than the 1% skip_invalid skips"):
        melange.audit_records(bad, n=3, skip_invalid=True)
    with pytest.raises(ValueError, match="skip_invalid is False, True or 'all'"):
        melange.audit_records(bad, n=3, skip_invalid="some")
    r = melange.audit_records(bad, n=3, skip_invalid="all")
    assert r.trials == 2
    doc = json.loads(r.to_json())
    assert doc["invalid_records"] == "1" and doc["first_invalid"].startswith("record 2"), doc


def test_the_gil_is_released_while_sampling_and_auditing():
    for call in (lambda: melange.permutations(52, 4_000_000, threads=1),
                 lambda: melange.audit(n=6, trials=40_000_000, threads=1)):
        state = {"running": False, "done": False}

        def work():
            state["running"] = True
            call()
            state["done"] = True

        worker = threading.Thread(target=work)
        steps_during = 0
        worker.start()
        while not state["done"]:
            if state["running"]:
                steps_during += 1
        worker.join()
        # With the GIL held this thread could not have run during the call.
        assert steps_during > 1000, steps_during


def test_audit_json_equals_the_cli():
    got = json.loads(melange.audit(n=5, trials=200_000, seed=12, threads=1, position=True).to_json())
    want = json.loads(cli("audit", "--n", 5, "--trials", 200000, "--seed", 12, "--threads", 1, "--position",
                          "--json", "-"))
    assert got == want
    deal = json.loads(melange.audit(algo="partial", n=10, k=3, trials=50_000, seed=2, threads=1).to_json())
    assert deal == json.loads(cli("audit", "--algo", "partial", "--n", 10, "--k", 3, "--trials", 50000, "--seed", 2,
                                  "--threads", 1, "--json", "-"))


def test_audit_result_arrays_tests_and_verdict():
    r = melange.audit(n=4, trials=100_000, seed=1, position=True)
    assert r.histogram.dtype == np.uint64 and r.histogram.shape == (24,) and r.histogram.sum() == 100_000
    assert r.positions.shape == (4, 4) and (r.positions.sum(axis=0) == 100_000).all()
    assert [t["test"] for t in r.tests] == ["rank", "position", "max cell"]
    assert r.verdict == "PASS" and r.trials == 100_000
    biased = melange.audit(algo="naive-swap", n=4, trials=100_000, seed=1)
    assert biased.verdict == "FAIL" and biased.tests[0]["p_value"] < 1e-6


def test_audit_records_of_permutations_equals_audit_of_the_job():
    records = melange.permutations(6, 300_000, seed=8, first=5)
    from_array = melange.audit_records(records, n=6, position=True, stream_tests=False)
    built_in = melange.audit(n=6, trials=300_000, seed=8, first=5, position=True)
    np.testing.assert_array_equal(from_array.histogram, built_in.histogram)
    np.testing.assert_array_equal(from_array.positions, built_in.positions)
    # The same tests, their words aside ("records" beside "trials").
    def unworded(tests):
        return [{key: value for key, value in t.items() if key != "plain"} for t in tests]
    assert unworded(from_array.tests) == unworded(built_in.tests) and from_array.verdict == built_in.verdict
    # As a stream the same records get the stream tests beside the same counts.
    as_stream = melange.audit_records(records, n=6, position=True)
    np.testing.assert_array_equal(as_stream.histogram, built_in.histogram)
    assert {"rises", "rises mean", "lag 1 position", "lag 1 fixed points"} <= {t["test"] for t in as_stream.tests}
    # Any integer dtype is read; a wider one goes through int64.
    np.testing.assert_array_equal(melange.audit_records(records.astype(np.int32), n=6).histogram, built_in.histogram)
    deals = melange.deals(52, 5, 200_000, seed=9)  # the rare categories pooled into one that expects 5
    r = melange.audit_records(deals, n=52, k=5, stream_tests=False)
    assert [t["test"] for t in r.tests] == ["slot", "category", "max cell", "fixed points", "strong hands"]
    assert r.histogram is None
    assert r.verdict == "PASS"


def test_audit_records_of_numpys_own_shuffles():
    g = np.random.default_rng(2024)
    records = g.permuted(np.tile(np.arange(5), (200_000, 1)), axis=1)
    assert melange.audit_records(records, n=5, position=True).verdict == "PASS"


def test_fair_streams_from_python_and_numpy_pass_the_stream_tests():
    import random
    rng = random.Random(2026)
    decks = []
    for _ in range(20_000):
        d = list(range(52))
        rng.shuffle(d)
        decks.append(d)
    r = melange.audit_records(np.array(decks, dtype=np.uint8), n=52, position=True)
    assert r.verdict == "PASS", [t for t in r.tests if t["verdict"] != "PASS"]
    names = {t["test"] for t in r.tests}
    assert {"repeats", "rises", "rises mean", "lag 1 position", "lag 1 fixed points"} <= names
    repeats = next(t for t in r.tests if t["test"] == "repeats")
    assert repeats["repeats"] == 0 and "rules out a shuffler with 2^25 or fewer seeds" in repeats["plain"]
    g = np.random.default_rng(2026)
    hands = np.array([g.permutation(52)[:5] for _ in range(50_000)])
    assert melange.audit_records(hands, n=52, k=5, lags=[1, 2]).verdict == "PASS"


def test_serial_audits_each_trial_against_the_one_before():
    r = melange.audit(n=5, trials=200_000, seed=3, serial=True, threads=2)
    names = {t["test"] for t in r.tests}
    assert {"serial pairs", "lag 1 position", "lag 1 fixed points", "lag 1 rank", "rises"} <= names
    assert r.verdict == "PASS"
    assert r.tests == melange.audit(n=5, trials=200_000, seed=3, serial=True, threads=1).tests
    assert r.counts("serial_pairs").sum() == 200_000
    with pytest.raises(ValueError, match="serial"):
        melange.audit(algo="weighted", weights=[1, 2, 3], serial=True)


def test_a_stream_of_repeated_decks_fails_with_its_seed_space():
    g = np.random.default_rng(7)
    seeds = g.integers(0, 2**12, 5_000)  # a shuffler with 4,096 seeds
    decks = np.array([np.random.default_rng(int(s)).permutation(52) for s in seeds])
    r = melange.audit_records(decks, n=52, position=True)
    assert r.verdict == "FAIL"
    repeats = next(t for t in r.tests if t["test"] == "repeats")
    assert repeats["verdict"] == "FAIL" and "as if it had about 2^12 seeds" in repeats["plain"]
    with pytest.raises(ValueError, match="lags"):
        melange.audit_records(decks, n=52, position=True, lags=[0])


def test_exact_law():
    e = melange.exact(algo="naive-swap", n=3, method="lemire")
    assert e["numerators"] == [4, 5, 5, 5, 4, 4] and e["denominators"] == [27] * 6
    assert e["labels"][0] == "ABC"
    np.testing.assert_allclose(e["probabilities"].sum(), 1.0)
    r = melange.audit(algo="naive-swap", n=3, trials=100_000, method="lemire", model="exact")
    assert r.verdict == "PASS"


def test_to_json_is_a_melange_audit_document():
    # The same schema as the CLI's documents (docs/schema/, contract §8).
    jsonschema = pytest.importorskip("jsonschema")
    import pathlib
    schemas = pathlib.Path(__file__).resolve().parents[2] / "docs" / "schema"
    schema = json.loads((schemas / "melange-audit.schema.json").read_text())
    resolver = jsonschema.RefResolver(base_uri=schemas.as_uri() + "/", referrer=schema)
    records = melange.permutations(5, 3000, seed=4)
    for r in (melange.audit(n=5, trials=20_000, seed=3, threads=1), melange.audit_records(records, n=5)):
        doc = json.loads(r.to_json())
        jsonschema.validators.validator_for(schema)(schema, resolver=resolver).validate(doc)
        assert doc["verdict"] == (None if r.verdict == "none" else r.verdict) and isinstance(doc["trials"], str)


def test_seeds_survive_readers_that_hold_numbers_as_doubles(tmp_path):
    # jq and JavaScript read every JSON number as a double: above 2^53 the
    # default seed comes back rounded, and a rerun with it is another job.
    # The documents write 64-bit values as strings, which any reader keeps.
    doc_text = cli("audit", "--n", 5, "--trials", 20000, "--json", "-")
    as_doubles = json.loads(doc_text, parse_int=float)
    seed = as_doubles["seed"]
    assert isinstance(seed, str) and int(seed) == 30792288626960229
    assert int(float(30792288626960229)) != 30792288626960229, "a double cannot hold the seed"
    rerun = json.loads(cli("audit", "--n", 5, "--trials", 20000, "--seed", seed, "--json", "-"))
    assert rerun["histogram"] == json.loads(doc_text)["histogram"]
    rounded = json.loads(cli("audit", "--n", 5, "--trials", 20000, "--seed", int(float(30792288626960229)),
                             "--json", "-"))
    assert rounded["histogram"] != rerun["histogram"], "the rounded seed is another job"
    # merge reads the string back: the merged job is the same job.
    first = tmp_path / "a.json"
    second = tmp_path / "b.json"
    cli("audit", "--n", 5, "--trials", 10000, "--json", first)
    cli("audit", "--n", 5, "--trials", 10000, "--first", 10000, "--json", second)
    merged = json.loads(cli("merge", first, second, "--json", "-"))
    assert merged["seed"] == seed and merged["histogram"] == rerun["histogram"]


def test_integers_with_no_seed_or_method_equal_melange_bounded_with_none():
    # One default seed and one default method for every command and call.
    text = cli("bounded", "--range", 6, "--count", 40).decode()
    want = [int(v) for line in text.splitlines() if not line.startswith("#") for v in line.split()]
    assert melange.integers(6, size=40).tolist() == want


def test_integer_arguments_have_numpy_manners():
    # Any integral NumPy scalar or Python int; not a bool, not a float.
    want = melange.permutations(6, 3, seed=7, first=2)
    got = melange.permutations(np.int16(6), np.int64(3), seed=np.uint64(7), first=np.int8(2), threads=np.int32(1))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(melange.deals(np.uint8(10), np.int64(3), 5), melange.deals(10, 3, 5))
    for bad, kind, words in [
        (dict(n=True), TypeError, re.escape("n must be an integer (a Python int or a NumPy integer), not bool")),
        (dict(n=np.bool_(True)), TypeError, "not bool_"),
        (dict(n=6.0), TypeError, "n must be an integer .* not float"),
        (dict(n=6, seed=-1), ValueError, r"seed must be in 0 \.\. 2\*\*64 - 1; got -1"),
        (dict(n=6, seed=2**64), ValueError, "got 18446744073709551616"),
        (dict(n=6, first=-3), ValueError, "first must be in 0"),
        (dict(n=6, threads=2.5), TypeError, "threads must be an integer"),
    ]:
        args = dict(count=2) | bad
        with pytest.raises(kind, match=words):
            melange.permutations(**args)
    with pytest.raises(ValueError, match=re.escape("low 0, high 18446744073709551617 does not fit dtype uint64")):
        melange.integers(2**64 + 1, size=3, dtype=np.uint64)
    # seed=None is the fixed DEFAULT_SEED, named in every signature.
    np.testing.assert_array_equal(melange.permutations(5, 4, seed=None), melange.permutations(5, 4, seed=melange.DEFAULT_SEED))
    for f in (melange.permutations, melange.deals, melange.weighted, melange.integers, melange.audit):
        assert "seed: object = DEFAULT_SEED" in f.__doc__, f.__doc__.splitlines()[0]


def test_audit_records_reads_n_and_k_from_the_shape():
    decks = melange.permutations(6, 3000, seed=5)
    by_shape = json.loads(melange.audit_records(decks).to_json())
    given = json.loads(melange.audit_records(decks, n=6).to_json())
    assert by_shape["n"] == 6 and by_shape["histogram"] == given["histogram"]
    hands = melange.deals(10, 3, 3000, seed=5)
    deal = json.loads(melange.audit_records(hands, n=10).to_json())
    assert deal["k"] == 3 and deal["histogram"] == json.loads(melange.audit_records(hands, n=10, k=3).to_json())["histogram"]
    with pytest.raises(ValueError, match="records must be integers"):
        melange.audit_records(np.zeros((4, 3)))


def _spawned_decks(stream):
    # A worker's job: its Stream's next 500 decks, then 300 more.
    return np.concatenate([stream.permutations(52, 500), stream.permutations(52, 300)])


def test_a_stream_gives_in_calls_what_one_call_gives():
    s = melange.Stream(seed=11, first=5)
    parts = [s.permutations(8, 100), s.deals(8, 3, 50), s.permutations(8, 25)]
    assert s.first == 5 + 175
    np.testing.assert_array_equal(parts[0], melange.permutations(8, 100, seed=11, first=5))
    np.testing.assert_array_equal(parts[1], melange.deals(8, 3, 50, seed=11, first=105))
    np.testing.assert_array_equal(parts[2], melange.permutations(8, 25, seed=11, first=155))
    out = np.empty((10, 8), np.uint8)
    s.permutations(8, out=out)
    assert s.first == 190
    dice = s.integers(1, 7, 20)
    np.testing.assert_array_equal(dice, melange.integers(1, 7, 20, seed=11, stream=190))
    assert s.first == 191
    s = melange.Stream(seed=11, first=190)
    jumped = s.jumped(1000)
    assert (jumped.first, s.first) == (1190, 190)
    assert pickle.loads(pickle.dumps(jumped)).first == 1190
    assert repr(melange.Stream()) == f"melange.Stream(seed={melange.DEFAULT_SEED}, first=0)"


def test_a_stream_shared_by_threads_serves_disjoint_complete_ranges():
    # 8 threads x 20 calls on one Stream: each call must get a range of its
    # own, and the calls together every trial from 0 on, as in a row.
    s = melange.Stream(seed=31)
    count, calls, threads = 20_000, 20, 8
    got, failures = [], []

    def worker():
        try:
            for _ in range(calls):
                got.append(s.permutations(8, count).tobytes())
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append(e)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not failures
    assert s.first == calls * threads * count
    whole = melange.permutations(8, calls * threads * count, seed=31)
    expected = {whole[i * count:(i + 1) * count].tobytes(): i for i in range(calls * threads)}
    served = sorted(expected.get(block, -1) for block in got)
    assert served == list(range(calls * threads)), f"ranges served: {len(set(served))} distinct of {calls * threads}"


def test_spawned_streams_in_a_process_pool_give_one_process_result():
    import multiprocessing
    root = melange.Stream(seed=2026)
    children = root.spawn(4, span=10_000)
    assert [c.first for c in children] == [0, 10_000, 20_000, 30_000] and root.first == 40_000
    with multiprocessing.get_context("fork").Pool(4) as pool:
        pooled = pool.map(_spawned_decks, children)
    for i, decks in enumerate(pooled):
        np.testing.assert_array_equal(decks, melange.permutations(52, 800, seed=2026, first=10_000 * i))
    # A child refuses to run into its neighbour's range.
    child = melange.Stream(seed=2026).spawn(2, span=100)[0]
    child.permutations(4, 100)
    with pytest.raises(ValueError, match="has 0 trials left before 100"):
        child.permutations(4, 1)
    with pytest.raises(ValueError, match="needs k \\* span trials"):
        melange.Stream(first=2**64 - 10).spawn(4, span=5)


def test_permuted_shuffles_each_slice_by_its_own_trial():
    x = np.arange(3 * 5 * 7).reshape(3, 5, 7)
    got = melange.permuted(x, axis=1, seed=9, first=40)
    orders = melange.permutations(5, 21, seed=9, first=40)  # one per slice: (3, 7) slices in C order
    for i in range(3):
        for j in range(7):
            np.testing.assert_array_equal(got[i, :, j], x[i, orders[i * 7 + j], j])
    np.testing.assert_array_equal(np.sort(got, axis=1), x)
    # In place, and from a Stream, which moves past its slices.
    y = x.copy()
    assert melange.permuted(y, axis=-1, seed=9, out=y) is y
    np.testing.assert_array_equal(y, melange.permuted(x, seed=9))
    s = melange.Stream(seed=9, first=40)
    np.testing.assert_array_equal(s.permuted(x, axis=1), got)
    assert s.first == 61
    with pytest.raises(ValueError, match="axis 3 is out of bounds"):
        melange.permuted(x, axis=3)
    with pytest.raises(ValueError, match="out must be an array of x's shape"):
        melange.permuted(x, out=np.empty((2, 2)))


def test_every_function_has_numpy_style_docs_whose_examples_run():
    import doctest
    for name in ("permutations", "deals", "weighted", "integers", "permuted", "audit", "audit_records", "exact",
                 "Stream"):
        doc = getattr(melange, name).__doc__
        for section in ("Parameters\n----------", "Examples\n--------"):
            assert section in doc, f"{name}: no {section.splitlines()[0]}"
        if name != "Stream":
            assert "Returns\n-------" in doc and "Raises\n------" in doc, name
    result = doctest.testmod(melange, extraglobs={"melange": melange})
    assert result.failed == 0 and result.attempted >= 15, result


def test_riffled_decks_their_law_and_an_audit_against_it():
    law = melange.riffle_law(52, 7)
    assert round(law["total_variation"], 3) == 0.334
    assert abs(sum(law["rising_sequences"]) - 1) < 1e-12
    decks = melange.permutations(52, 100, algo="riffle", riffles=7, seed=3)
    assert decks.shape == (100, 52)
    assert melange.audit_records(decks).verdict == "FAIL"
    fit = melange.audit_records(decks, model="exact", algo="riffle", riffles=7)
    assert fit.verdict == "PASS"
    assert json.loads(fit.to_json())["reference"] == "exact law of the rising sequences"
    built_in = melange.audit(algo="riffle", n=52, riffles=7, trials=20_000, model="exact")
    assert built_in.verdict != "FAIL"
    with pytest.raises(ValueError, match="riffles"):
        melange.permutations(52, 10, algo="riffle")
    with pytest.raises(ValueError, match="riffles"):
        melange.permutations(52, 10, riffles=3)


def test_shelf_shuffled_decks_their_law_and_audits_against_it():
    law = melange.shelf_law(52, 10, passes=2)
    assert law["one_pass_shelves"] == 200
    assert abs(law["total_variation"] - 0.0103) < 1e-4
    assert abs(sum(law["valleys"]) - 1) < 1e-12
    assert len(law["valleys"]) == len(law["exact"]) == 26
    one = melange.shelf_law(52, 10)
    assert abs(one["guesses_mean"] - 9.29660) < 1e-5
    assert one["best_guesses_mean"] == one["guesses_mean"]
    assert "guesses_mean" not in melange.shelf_law(65, 10)
    decks = melange.permutations(52, 300, algo="shelf", shelves=10, seed=5)
    # One pass of 10 shelves leaves 10 piles that rise, then fall: at most 9 valleys.
    valleys = ((decks[:, :-2] > decks[:, 1:-1]) & (decks[:, 1:-1] < decks[:, 2:])).sum(axis=1)
    assert valleys.max() <= 9
    result = json.loads(melange.audit_records(decks).to_json())
    assert result["verdict"] == "FAIL"
    assert result["stats"]["shelf_guesses_mean"]["verdict"] == "FAIL"
    assert result["stats"]["valleys_mean"]["verdict"] == "FAIL"
    fit = melange.audit_records(decks, model="exact", algo="shelf", shelves=10)
    assert fit.verdict == "PASS"
    assert json.loads(fit.to_json())["reference"] == "exact law of the valleys"
    assert melange.audit_records(decks, model="exact", algo="shelf", shelves=10, passes=2).verdict == "FAIL"
    stream = melange.Stream(seed=5)
    assert (stream.permutations(52, 300, algo="shelf", shelves=10) == decks).all(), "a Stream serves the same decks"
    with pytest.raises(ValueError, match="shelves"):
        melange.permutations(52, 10, algo="shelf")
    with pytest.raises(ValueError, match="passes"):
        melange.shelf_law(52, 10, passes=0)


def test_the_shuffle_keywords_are_the_job_field_tables_and_every_front_end_takes_them():
    # audit and audit_records read the shuffle (**shuffle) through the
    # job-field table: every row that is the shuffle's is a keyword there,
    # a flag of `melange audit`, and shows in the job the JSON gives back.
    assert set(melange.SHUFFLE_KEYWORDS) == {"algo", "n", "k", "weights", "method", "bits", "riffles", "shelves",
                                             "passes"}
    help_text = cli("audit", "--help").decode()
    for keyword in melange.SHUFFLE_KEYWORDS:
        assert f"--{keyword} " in help_text, keyword
        melange.audit(trials=10, **{keyword: None})  # None: not given
    shelf = json.loads(melange.audit(algo="shelf", n=10, shelves=3, trials=1000, threads=1).to_json())
    assert (shelf["algorithm"], shelf["shelves"], shelf["passes"]) == ("shelf", 3, 1)
    assert shelf == json.loads(cli("audit", "--algo", "shelf", "--n", 10, "--shelves", 3, "--trials", 1000,
                                   "--threads", 1, "--json", "-"))
    weighted = json.loads(melange.audit(algo="weighted", weights=np.array([1, 2, 4]), trials=100).to_json())
    assert (weighted["n"], weighted["weights"]) == (3, [1, 2, 4])
    with pytest.raises(TypeError, match="audit\\(\\) got an unexpected keyword argument 'riffle'"):
        melange.audit(algo="riffle", n=8, riffle=3)
    with pytest.raises(TypeError, match="audit_records\\(\\) got an unexpected keyword argument 'count'"):
        melange.audit_records([[0, 1]], count=3)
    with pytest.raises(ValueError, match="unknown algo 'fisher-yate': use fisher-yates"):
        melange.audit(algo="fisher-yate")
    with pytest.raises(TypeError, match="method must be a str"):
        melange.audit(method=3)


def test_an_exact_walk_of_a_card_shuffle_names_its_parameters():
    # A biased method takes the walk, not the closed form: its document says
    # which machine it walked, as the closed form's does.
    walked = json.loads(cli("exact", "--algo", "shelf", "--shelves", 3, "--n", 3, "--method", "modulo", "--bits", 3,
                            "--json", "-"))
    assert (walked["shelves"], walked["passes"], walked["paths"]) == (3, 1, 6 ** 3)
    closed = json.loads(cli("exact", "--algo", "shelf", "--shelves", 3, "--n", 3, "--json", "-"))
    assert (closed["shelves"], closed["passes"]) == (3, 1)


def test_predict_finds_the_seed_the_cli_finds():
    # The CLI's --deal is the family's own deal (checked against the real
    # runtimes in tests/predict); Python's search names the same seed.
    decks = [list(map(int, line.split())) for line in cli("predict", "--family", "java", "--deal", 777_000,
                                                          "--next", 3).decode().split("\n") if line]
    seen = [d[:5] for d in decks[:2]] + [[decks[2][0], None, -1, decks[2][3], decks[2][4]]]
    r = melange.predict(seen[:2], families=["java", "delphi"], seeds=(776_000, 778_000), threads=2)
    assert r["verdict"] == "FAIL" and "java seeded with 777000" in r["why"]
    java = next(f for f in r["families"] if f["family"] == "java")
    assert [m["seed"] for m in java["matches"] if m["telling"]] == [777_000]
    assert java["matches"][0]["next"] == [decks[2]]
    assert java["matches"][0]["pattern"] == "one seeding, dealt on" and java["matches"][0]["next_seed"] is None
    assert java["matches"][0]["dealt"] == [(777_000, False), (777_000, False)]
    assert java["matches"][0]["records"] == [1, 2]
    assert melange.predict(seen, families=["java"], seeds=(776_000, 778_000))["families"][0]["matches"][0]["explained"] == 3
    assert set(melange.PREDICT_FAMILIES) >= {"java", "php-mt", "python", "cpp-mt19937", "glibc-rand", "asf-1999",
                                             "dotnet"}
    # A later deal of a new seeding is found only with a reseeding window.
    other = [int(c) for c in cli("predict", "--family", "java", "--deal", 777_500).decode().split()][:5]
    assert melange.predict([seen[0], other], families=["java"], seeds=(776_900, 777_100), backend="scalar") == \
        melange.predict([seen[0], other], families=["java"], seeds=(776_900, 777_100))
    with pytest.raises(ValueError, match="backend takes"):
        melange.predict(seen, families=["java"], seeds=(0, 9), backend="gpu")
    for window, explained in ((0, 1), (1000, 2)):
        r = melange.predict([seen[0], other], families=["java"], seeds=(776_900, 777_100), reseed_window=window)
        assert r["families"][0]["matches"][0]["explained"] == explained
    with pytest.raises(ValueError, match="unknown family 'jav'"):
        melange.predict(seen, families=["jav"])
    with pytest.raises(ValueError, match="twice"):
        melange.predict([[1, 1, 2]])


def test_audit_records_fails_records_an_asf_dealer_dealt():
    # Three decks of ASF's 1999 shuffle from one seeding (09:30:00.250): fair
    # to the bias tests, found by the predictability pass among a day's seeds.
    seed = (9 * 3600 + 30 * 60) * 1000 + 250
    decks = np.array([list(map(int, line.split())) for line in cli(
        "predict", "--family", "asf-1999", "--deal", seed, "--next", 3).decode().split("\n") if line])
    found = melange.audit_records(decks)
    assert found.verdict == "FAIL"
    assert json.loads(found.to_json())["predictability"]["predictable"].startswith(
        f"predictable: asf-1999 seeded with {seed}")
    assert melange.audit_records(decks, predict_seconds=0).verdict != "FAIL"
    with pytest.raises(ValueError, match="predict_seconds"):
        melange.audit_records(decks, predict_seconds=-1)
