"""melange merge: pieces of one job over disjoint ranges make the whole
(contract §6)."""
import json

import pytest

from scale_support import CLI, assert_same_result, audit_args, one_process, run, run_measured


# --- merge ------------------------------------------------------------------

def piece(tmp_path, job, first, trials, name):
    path = tmp_path / name
    run(CLI, *audit_args([*job, "--first", first, "--trials", trials], path))
    return path


@pytest.mark.parametrize("job", [["--n", "5", "--position"], ["--n", "52", "--k", "5", "--algo", "partial"],
                                 ["--n", "4", "--method", "lemire"]], ids=["n5", "poker", "n4-lemire"])
def test_merging_three_pieces_gives_the_whole(tmp_path, job):
    whole = tmp_path / "whole.json"
    run(CLI, *audit_args([*job, "--first", "1000", "--trials", "300000"], whole))
    a = piece(tmp_path, job, 1000, 100000, "a.json")
    b = piece(tmp_path, job, 101000, 150000, "b.json")
    c = piece(tmp_path, job, 251000, 50000, "c.json")
    merged = tmp_path / "merged.json"
    run(CLI, "merge", c, a, b, "--json", merged)  # any order
    assert_same_result(merged, whole)


def test_a_checkpoint_is_a_piece_too(tmp_path):
    job = ["--n", "6"]
    whole = one_process(tmp_path, [*job, "--trials", "200000"])
    a = piece(tmp_path, job, 0, 120000, "a.json")
    ckpt = tmp_path / "b.ckpt"
    run(CLI, "audit", *job, "--first", "120000", "--trials", "80000", "--quiet", "--checkpoint", ckpt)
    merged = tmp_path / "merged.json"
    run(CLI, "merge", a, ckpt, "--json", merged)
    assert_same_result(merged, whole)


def test_merge_keeps_the_model_the_pieces_were_tested_against(tmp_path):
    job = ["--n", "6", "--algo", "naive-swap", "--model", "exact"]
    whole = tmp_path / "whole.json"
    run(CLI, *audit_args([*job, "--trials", "400000"], whole))
    a = piece(tmp_path, job, 0, 250000, "a.json")
    b = piece(tmp_path, job, 250000, 150000, "b.json")
    merged = tmp_path / "merged.json"
    run(CLI, "merge", a, b, "--json", merged)
    assert_same_result(merged, whole)
    doc = json.loads(merged.read_text())
    # Against uniform the naive swap would FAIL by far (p about 1e-6294 at this size).
    assert doc["model"] == "exact" and doc["reference"] == "exact model" and doc["verdict"] != "FAIL"
    # Checkpoints name no model: --model gives it, and must agree with the pieces that name one.
    ckpt = tmp_path / "b.ckpt"
    run(CLI, "audit", *job, "--first", "250000", "--trials", "150000", "--quiet", "--checkpoint", ckpt)
    from_ckpt = tmp_path / "from_ckpt.json"
    run(CLI, "merge", a, ckpt, "--json", from_ckpt)
    assert_same_result(from_ckpt, whole)
    alone = run(CLI, "merge", ckpt, "--model", "exact", "--json", "-")
    assert json.loads(alone.stdout)["model"] == "exact"
    uniform = piece(tmp_path, ["--n", "6", "--algo", "naive-swap"], 250000, 150000, "uniform.json")
    for args, words in [((a, uniform), ["uniform.json", "a.json", "--model exact"]),
                        ((a, b, "--model", "plackett-luce"), ["--model plackett-luce", "exact"])]:
        p = run(CLI, "merge", *args, check=False)
        assert p.returncode == 2 and all(w in p.stderr for w in words), p.stderr
    model = tmp_path / "naive6.json"
    run(CLI, "exact", "--algo", "naive-swap", "--n", "6", "--json", model)
    c = piece(tmp_path, ["--n", "6", "--algo", "naive-swap", "--model", str(model)], 0, 100000, "c.json")
    model.unlink()
    p = run(CLI, "merge", c, check=False)
    assert p.returncode == 2 and "naive6.json" in p.stderr, p.stderr


def test_merge_refuses_overlaps_gaps_and_other_jobs(tmp_path):
    job = ["--n", "5"]
    a = piece(tmp_path, job, 0, 1000, "a.json")
    b = piece(tmp_path, job, 500, 1000, "b.json")
    c = piece(tmp_path, job, 2000, 1000, "c.json")
    other = piece(tmp_path, ["--n", "5", "--seed", "9"], 1000, 1000, "other.json")
    for files, words in [((a, b), ["overlap", "a.json", "b.json"]), ((a, c), ["no piece", "a.json", "c.json"]),
                         ((a, other), ["different jobs", "seed", "other.json"]), ((a, a), ["same file"])]:
        p = run(CLI, "merge", *files, check=False)
        assert p.returncode == 2, p.stderr
        for w in words:
            assert w in p.stderr, p.stderr
        assert p.stderr.count("\n") == 1, p.stderr


# --- merge reads what it is given, and nothing more -------------------------

def edited(path, out, edit):
    doc = json.loads(path.read_text())
    edit(doc)
    out.write_text(json.dumps(doc))
    return out


def bump(counts, i, by):
    counts[i] += by


@pytest.mark.parametrize("edit,why", [
    # -1 once wrapped to 2^64 - 1 and the sum wrapped back: a "valid" piece
    (lambda d: (bump(d["histogram"], 0, 1), d["histogram"].__setitem__(1, -1)), "negative"),
    (lambda d: d["histogram"].__setitem__(0, 1.9), "no whole count"),
    (lambda d: d["histogram"].__setitem__(0, 2**64), "no whole count"),
    (lambda d: d["histogram"].__setitem__(0, "5"), "a string"),
    (lambda d: d["histogram"].append(0), "more counts"),
    (lambda d: d["histogram"].pop(), "counts in \"histogram\""),
    # a count moved within a position column: the column sums hold, the rows do not
    (lambda d: (bump(d["position"][0], 0, -1), bump(d["position"][1], 0, 1)), "item 0 of its matrix"),
    (lambda d: (bump(d["position"][0], 0, -1), bump(d["position"][0], 1, 1)), "position 0 of its matrix"),
    (lambda d: d["position"][0].append(0), "a row of"),
    (lambda d: d.__setitem__("n", 4294967300), "\"n\""),
    # the same written as a string, as 64-bit fields may be (contract §8)
    (lambda d: d.__setitem__("n", "4294967300"), "\"n\""),
    (lambda d: d.__setitem__("seed", "18446744073709551616"), "\"seed\""),
    (lambda d: d.__setitem__("trials", -5), "\"trials\""),
    (lambda d: d.__setitem__("seed", "12x"), "\"seed\""),
])
def test_merge_refuses_counts_that_cannot_be(tmp_path, edit, why):
    job = ["--n", "4", "--position"]
    a = piece(tmp_path, job, 0, 1000, "a.json")
    b = edited(piece(tmp_path, job, 1000, 1000, "b.json"), tmp_path / "bad.json", edit)
    p = run(CLI, "merge", a, b, check=False)
    assert p.returncode == 2 and why in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1, p.stderr


def test_merge_reads_64_bit_fields_as_strings_and_as_numbers(tmp_path):
    # melange writes them as strings (contract §8); documents from
    # before, and other writers, may give numbers.
    job = ["--n", "4"]
    a = piece(tmp_path, job, 0, 1000, "a.json")
    assert isinstance(json.loads(a.read_text())["seed"], str)
    b = edited(piece(tmp_path, job, 1000, 1000, "b.json"), tmp_path / "b2.json",
               lambda d: d.update(seed=int(d["seed"]), first=int(d["first"]), trials=int(d["trials"])))
    merged = tmp_path / "merged.json"
    run(CLI, "merge", a, b, "--json", merged)
    assert_same_result(merged, one_process(tmp_path, [*job, "--trials", "2000"]))


def test_a_tiny_result_that_claims_a_huge_job_is_refused_before_any_allocation(tmp_path):
    small = piece(tmp_path, ["--n", "5"], 0, 1000, "a.json")
    doc = json.loads(small.read_text())
    doc["n"] = 12
    crafted = tmp_path / "crafted.json"
    crafted.write_text(json.dumps(doc))
    status, _, err, peak = run_measured([CLI, "merge", crafted, "--memory-cap", "1e11"])
    assert status == 2 and "too short" in err, err
    assert peak < 64, f"{peak:.0f} MiB before refusing"


def test_merge_streams_its_pieces_within_the_memory_cap(tmp_path):
    # Two pieces of n = 10 (3,628,800 counts, about 25 MB of JSON each): the
    # merged tally and one piece's are 58 MB; a document model of one piece
    # took several times that.
    job = ["--n", "10"]
    a = piece(tmp_path, job, 0, 2000000, "a.json")
    b = piece(tmp_path, job, 2000000, 2000000, "b.json")
    merged = tmp_path / "merged.json"
    status, _, err, peak = run_measured([CLI, "merge", a, b, "--json", merged, "--memory-cap", "100e6"])
    assert status == 0, err
    assert peak < 100, f"{peak:.0f} MiB under a 100 MB cap"
    assert_same_result(merged, one_process(tmp_path, [*job, "--trials", "4000000"]))
    p = run(CLI, "merge", a, b, "--memory-cap", "50e6", check=False)
    assert p.returncode == 2 and "raise --memory-cap" in p.stderr, p.stderr
