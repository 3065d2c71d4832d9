"""The module as a careless or hostile caller meets it: nothing crashes the
interpreter, every wrong argument is a ValueError that says what to give, and
a long call stops on Ctrl-C (KeyboardInterrupt) instead of running on."""
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import melange


@pytest.mark.parametrize("call", [
    lambda out: melange.permutations(4, out=out),
    lambda out: melange.deals(52, 5, out=out),
    lambda out: melange.weighted([1, 2], out=out),
    lambda out: melange.integers(6, out=out),
])
@pytest.mark.parametrize("out", [[[0] * 4] * 10, ((0, 1, 2, 3),), {"a": 1}, "records", 7,
                                 np.zeros((), np.uint8), np.zeros((), np.uint32)])
def test_out_that_is_no_array_of_records_is_a_value_error(call, out):
    with pytest.raises(ValueError, match="out must be"):
        call(out)


@pytest.mark.parametrize("records,dtype", [
    (np.array([["0", "1", "2", "x"]]), "<U1"),
    (np.array([["0", "1", "2", "3"]]), "<U1"),
    (np.array([[0, 1, 2, None]], dtype=object), "object"),
    (np.array([[0, 1, 2, "3"]], dtype=object), "object"),
    (np.array([[0.0, 1.9, 2.0, 3.0]]), "float64"),
    (np.array([[0, 1, 2, 3 + 1j]]), "complex128"),
    (np.array([[True, False, True, False]]), "bool"),
])
def test_audit_records_takes_integers_only(records, dtype):
    with pytest.raises(ValueError, match=f"records must be integers.*got dtype {dtype}"):
        melange.audit_records(records, n=4)


def test_audit_records_refuses_a_mask_it_would_ignore():
    masked = np.ma.masked_array(np.tile(np.arange(4), (8, 1)), mask=False)
    with pytest.raises(ValueError, match="masked array"):
        melange.audit_records(masked, n=4)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_audit_records_reads_every_integer_width_alike(dtype):
    rows = melange.permutations(4, 3000, seed=8).astype(dtype)
    want = melange.audit_records(rows.astype(np.uint8), n=4).histogram
    np.testing.assert_array_equal(melange.audit_records(rows, n=4).histogram, want)
    assert want.sum() == 3000


def test_audit_records_reads_lists_and_refuses_items_past_int64():
    assert melange.audit_records([[0, 1, 2, 3], [3, 2, 1, 0]], n=4).trials == 2
    with pytest.raises(ValueError, match="9223372036854775808"):
        melange.audit_records(np.array([[0, 1, 2, 2**63]], dtype=np.uint64), n=4)


def test_counts_are_whole_numbers_that_fit():
    assert melange.permutations(4, np.int64(7)).shape == (7, 4)
    assert melange.integers(6, size=np.uint16(5)).shape == (5,)
    assert melange.audit(n=4, trials=np.int32(1000)).trials == 1000
    for bad in [2**64, -1, 2.5, True, "10", None if False else [3]]:
        with pytest.raises(ValueError, match="count must be a whole number"):
            melange.permutations(4, bad)


def test_no_exact_law_for_weighted_int_power_from_any_call():
    # The CLI refuses it too: its keys are 63-bit words, so it has no walk,
    # and Plackett-Luce is only the law it claims.
    with pytest.raises(ValueError, match="weighted-int-power has no exact walk.*model plackett-luce.*algo weighted"):
        melange.exact(algo="weighted-int-power", weights=[1, 2])
    with pytest.raises(ValueError, match="weighted-int-power has no exact walk"):
        melange.audit(algo="weighted-int-power", weights=[1, 2], trials=100, model="exact")
    law = melange.exact(algo="weighted", weights=[1, 2])
    np.testing.assert_allclose(law["probabilities"], [1 / 3, 2 / 3])
    claimed = melange.audit(algo="weighted-int-power", weights=[1, 2], trials=2000, model="plackett-luce")
    assert claimed.verdict == "FAIL"  # it gives AB every time


# Each call runs several times longer than the test waits (5 s to hours); SIGINT
# must end it with KeyboardInterrupt within the wait.
LONG_CALLS = {
    "audit": "melange.audit(n=4, trials=10**12, threads=2)",
    "permutations": "melange.permutations(1024, 200000, algo='sort-binary-insertion', threads=1)",
    "integers": "melange.integers(6, size=10**9, dtype=np.uint8, method='lemire')",
    "exact": "melange.exact(algo='naive-swap', n=9, threads=1)",
    "shelf_law": "melange.shelf_law(1024, 10, 4)",
    "audit_records": "melange.audit_records(np.tile(np.arange(8, dtype=np.uint8), (6 * 10**7, 1)), n=8)",
}


@pytest.mark.parametrize("name", sorted(LONG_CALLS))
def test_ctrl_c_stops_a_long_call(name):
    script = textwrap.dedent(f"""
        import sys, numpy as np, melange
        print("started", flush=True)
        try:
            {LONG_CALLS[name]}
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(0)
        print("ran to the end", flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                             env={**os.environ})
    assert child.stdout.readline().strip() == "started"
    time.sleep(1.0)
    child.send_signal(signal.SIGINT)
    try:
        out, _ = child.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail(f"{name}: still running 60 s after SIGINT")
    assert out.strip() == "interrupted", out
    assert child.returncode == 0


def test_a_hand_edited_stream_state_and_bool_counts_are_named_errors():
    # What unpickling does: a bare Stream, then its state.
    for state, error in [((3, "0", 10), TypeError), ((3, -1, 10), ValueError), ((3, 20, 10), ValueError),
                         ((3, 0, 2**64), ValueError)]:
        s = melange.Stream.__new__(melange.Stream)
        with pytest.raises(error) as e:
            s.__setstate__(state)
        assert "Unable to cast" not in str(e.value), e.value
    for count in (True, np.True_):
        with pytest.raises(ValueError, match="count must be a whole number"):
            melange.permutations(4, count)


def test_documents_read_the_same_in_a_decimal_comma_locale(tmp_path):
    # A caller's locale.setlocale (German: decimal commas) must not reach
    # melange's words and documents: they are made the same as in "C".
    localedef = shutil.which("localedef")
    if not localedef or not os.path.isdir("/usr/share/i18n/locales"):
        pytest.skip("no localedef and locale sources (Debian's locales package) to make a German locale")
    subprocess.run([localedef, "-i", "de_DE", "-f", "UTF-8", str(tmp_path / "de_DE.UTF-8")], capture_output=True)
    script = textwrap.dedent("""
        import locale, sys, melange
        if sys.argv[1] == "de":
            locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
            assert locale.format_string("%.1f", 0.5) == "0,5", "the German locale is not in force"
        r = melange.audit(n=4, trials=10**6, seed=3)
        print(r.to_json())
    """)
    env = {**os.environ, "LOCPATH": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", script, lang], capture_output=True, text=True, env=env)
            for lang in ("C", "de")]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert "%" in runs[0].stdout and "." in runs[0].stdout
    assert runs[1].stdout == runs[0].stdout
