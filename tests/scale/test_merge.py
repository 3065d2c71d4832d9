"""melange merge: pieces of one job over disjoint ranges make the whole
(DESIGN.md section 8)."""
import pytest

from scale_support import CLI, assert_same_result, audit_args, one_process, run


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
