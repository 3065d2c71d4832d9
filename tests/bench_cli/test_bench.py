"""melange bench: a short bench writes well-formed JSON, CSV and SVG with
positive rates and both peers (std::shuffle, batched Fisher-Yates) beside
every row, and the Philox limit where a trial is one block; bad lists
are refused before any measurement. No test asserts a speed."""
import csv
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

CLI = os.environ.get("MELANGE_CLI", "melange")
SVG = "{http://www.w3.org/2000/svg}"


def run(*args):
    return subprocess.run([CLI, *[str(a) for a in args]], capture_output=True, text=True, timeout=300)


def test_short_bench_writes_rows_with_their_reference(tmp_path):
    j, c, s = tmp_path / "b.json", tmp_path / "b.csv", tmp_path / "b.svg"
    p = run("bench", "--seconds", "1", "--algo", "fisher-yates", "--n", "4,52", "--backend", "scalar",
            "--threads", "1", "--json", j, "--csv", c, "--svg", s, "--quiet")
    assert p.returncode == 0, p.stderr
    doc = json.loads(j.read_text())
    assert doc["command"] == "bench"
    for key in ("cpu", "hardware_threads", "simd_arch", "gpu", "melange_version", "compiler"):
        assert key in doc["machine"], doc["machine"]
    rows = doc["rows"]
    assert [(r["algorithm"], r["n"], r["threads"]) for r in rows] == [("fisher-yates", 4, 1), ("fisher-yates", 52, 1)]
    for r in rows:
        rate = r["shuffles_per_second"]
        assert 0 < rate["min"] <= rate["median"] <= rate["max"], r
        assert r["std_shuffle_per_second"] > 0, r
        assert abs(r["ratio"] - rate["median"] / r["std_shuffle_per_second"]) < 1e-9 * r["ratio"], r
        assert r["words_per_trial"] > 0 and abs(r["words_per_second"] - rate["median"] * r["words_per_trial"]) <= 1e-6 * r["words_per_second"]
        assert r["trials_per_run"] >= 64 and isinstance(r["steady"], bool), r
        assert r["ran_on"] == "scalar", r
        assert r["batched_per_second"] > 0, r
        assert abs(r["batched_ratio"] - rate["median"] / r["batched_per_second"]) < 1e-9 * r["batched_ratio"], r
    # n = 4 reads one word a trial: the Philox limit stands beside it; n = 52 reads 11, and has none.
    assert rows[0]["philox_limit_per_second"] > 0, rows[0]
    assert abs(rows[0]["limit_fraction"] - rows[0]["shuffles_per_second"]["median"] / rows[0]["philox_limit_per_second"]) < 1e-9
    assert rows[1]["words_per_trial"] > 4 and rows[1]["philox_limit_per_second"] is None, rows[1]
    assert rows[0]["tallies"] == "rank histogram" and rows[1]["tallies"] == "position matrix"
    table = list(csv.DictReader(c.open()))
    assert len(table) == 2 and all(float(t["ratio"]) > 0 and float(t["std_shuffle_per_s"]) > 0 and
                                   float(t["batched_per_s"]) > 0 for t in table), table
    assert float(table[0]["philox_limit_per_s"]) > 0 and table[1]["philox_limit_per_s"] == "", table
    assert [t["steady"] for t in table] == [str(r["steady"]).lower() for r in rows], table
    svg = ET.parse(s).getroot()
    lines = svg.findall(f"{SVG}polyline")
    assert len(lines) == 3, "one line for scalar x 1 thread, one for each peer"
    peer_styles = [(l.get("stroke"), l.get("stroke-dasharray")) for l in lines if l.get("stroke-dasharray")]
    assert len(peer_styles) == 2 and len(set(peer_styles)) == 2, f"each peer a line style of its own: {peer_styles}"
    # Noisy rows and rows above the Philox limit are flagged, never passed off as results.
    for r in rows:
        rate = r["shuffles_per_second"]
        assert r["noisy"] == ((rate["max"] - rate["min"]) / rate["median"] > 0.10), r
        limit = r["philox_limit_per_second"]
        assert r["measurement_error"] == (limit is not None and rate["median"] > limit), r
        assert ("?: " in p.stdout) == any(x["noisy"] for x in rows)
    assert doc["elapsed_seconds"] > 0 and f"measured in " in p.stdout
    points = svg.findall(f".//{SVG}circle")
    assert len(points) == 6 and all(c.find(f"{SVG}title") is not None for c in points), "a point per row and peer"
    assert "std::shuffle" in s.read_text() and "lehmer64" in s.read_text()
    assert "ratio" in p.stdout and "std::shuffle/s" in p.stdout and "batched/s" in p.stdout and "limit/s" in p.stdout


def simd_available():
    doc = json.loads(run("version", "--json", "-").stdout)
    return any(b["name"] == "simd" and b["available"] for b in doc["backends"])


def test_a_backend_without_a_kernel_says_so_and_keeps_its_line(tmp_path):
    if not simd_available():
        pytest.skip("this CPU runs no SIMD architecture")
    j, s = tmp_path / "b.json", tmp_path / "b.svg"
    # The sort one-liner has a SIMD kernel through its decision table at n 4,
    # none at n 13: that row runs on the scalar path and says so.
    p = run("bench", "--seconds", "1", "--algo", "sort-binary-insertion", "--n", "4,13", "--backend", "simd",
            "--threads", "1", "--json", j, "--svg", s, "--quiet")
    assert p.returncode == 0, p.stderr
    rows = json.loads(j.read_text())["rows"]
    assert rows[0]["ran_on"].startswith("simd") and rows[1]["ran_on"] == "scalar for simd", rows
    assert "scalar for simd" in p.stdout
    svg = ET.parse(s).getroot()
    assert len(svg.findall(f"{SVG}polyline")) == 3, "the simd line keeps its fallback point, beside the two peers"
    hollow = [c for c in svg.findall(f".//{SVG}g/{SVG}circle") if c.get("fill") == "white"]
    assert len(hollow) == 1 and "scalar path" in hollow[0].find(f"{SVG}title").text


def test_the_limit_runs_on_the_architecture_a_row_is_pinned_to(tmp_path):
    doc = json.loads(run("version", "--json", "-").stdout)
    archs = next((b["archs"] for b in doc["backends"] if b["name"] == "simd" and b["available"]), [])
    if not archs:
        pytest.skip("this CPU runs no SIMD architecture")
    j = tmp_path / "b.json"
    # Each architecture this CPU runs, then simd (the widest) and scalar (the widest's limit too).
    p = run("bench", "--seconds", "1", "--algo", "fisher-yates", "--n", "4", "--backend", ",".join(archs + ["simd", "scalar"]),
            "--threads", "1", "--json", j, "--quiet")
    assert p.returncode == 0, p.stderr
    rows = json.loads(j.read_text())["rows"]
    assert [r["philox_limit_arch"] for r in rows] == archs + [archs[0], archs[0]], rows
    assert all(r["philox_limit_per_second"] > 0 for r in rows), rows


def test_sample_mode_reports_bytes(tmp_path):
    j = tmp_path / "b.json"
    p = run("bench", "--seconds", "0.5", "--mode", "sample", "--n", "8", "--backend", "scalar", "--threads", "1",
            "--algo", "fisher-yates", "--json", j)
    assert p.returncode == 0, p.stderr
    (row,) = json.loads(j.read_text())["rows"]
    assert abs(row["bytes_per_second"] - row["shuffles_per_second"]["median"] * 16) <= 1e-6 * row["bytes_per_second"]


def test_card_shuffles_take_their_parameters(tmp_path):
    """A riffle row names its riffles, reads its 18 words (52 digits of range
    128, three to a batch) and runs where the backend has lanes for it."""
    j = tmp_path / "b.json"
    p = run("bench", "--seconds", "0.5", "--mode", "sample", "--n", "52", "--threads", "1",
            "--algo", "riffle,fisher-yates,shelf", "--riffles", "7", "--shelves", "10", "--passes", "2",
            "--backend", "scalar", "--json", j)
    assert p.returncode == 0, p.stderr
    rows = json.loads(j.read_text())["rows"]
    assert [r["algorithm"] for r in rows] == ["riffle --riffles 7", "fisher-yates", "shelf --shelves 10 --passes 2"]
    assert rows[0]["words_per_trial"] == 18, rows[0]
    assert all(r["shuffles_per_second"]["median"] > 0 for r in rows), rows


def test_bad_input_is_refused_before_any_work(tmp_path):
    out = tmp_path / "b.json"
    for args, says in [
        (["--algo", "fisher-yates,bogus"], "bogus"),
        (["--backend", "scalar,nonesuch"], "nonesuch"),
        (["--algo", "sort-v8-timsort", "--n", "4,64"], "64"),
        (["--seconds", "0"], "--seconds"),
        (["--seconds", "-1"], "--seconds"),
        (["--mode", "other"], "--mode"),
        (["--n", "1"], "--n"),
        (["--n", "4,,8"], "empty item"),
        (["--threads", "1,"], "--threads"),
        (["--seconds", "inf"], "--seconds"),
        (["--algo", "fisher-yates", "--riffles", "7"], "--riffles"),
        (["--algo", "riffle", "--shelves", "10"], "--shelves"),
        (["--algo", "riffle"], "riffles"),
        (["--algo", "riffle", "--riffles", "31"], "riffles"),
        (["--algo", "partial"], "--k"),
    ]:
        p = run("bench", *args, "--json", out)
        assert p.returncode == 2, (args, p.returncode, p.stderr)
        assert says in p.stderr and p.stderr.count("\n") == 1, (args, p.stderr)
        assert "shuffles/s" not in p.stdout, (args, p.stdout)
        assert not out.exists()


def test_help_explains_the_columns():
    p = run("bench", "--help")
    assert p.returncode == 0
    for column in ("shuffles/s", "spread", "words/trial", "words/s", "bytes/s", "std::shuffle/s", "ratio"):
        assert column in p.stdout, column
