"""Logs at scale (contract §6): a log of records read as one stream
whatever the way it is cut: several files, MPI ranks over one file
(each a byte range cut at record boundaries), pieces audited one by one
and merged, an audit stopped by a signal and resumed. Each is compared,
whole JSON result against whole JSON result, with one process reading
the log in one go: the pairs across every cut are counted once."""
import json
import shlex
import signal
import subprocess
import time

import pytest

from scale_support import CLI, assert_same_result, mpirun, needs_mpi, run

# Logs whose stream tests see something: three riffles reshuffle the deck
# before (lag 1 FAILs); decks and deals of a fair shuffler.
LOGS = {
    "riffle8": ["--algo", "riffle", "--riffles", "3", "--n", "8", "--count", "40001"],
    "deck52": ["--n", "52", "--count", "30001"],
    "deal5": ["--algo", "partial", "--n", "52", "--k", "5", "--count", "50001"],
}
SHAPE = {"riffle8": ["--n", "8"], "deck52": ["--n", "52"], "deal5": ["--n", "52", "--k", "5"]}
AUDIT = ["--predict-seconds", "0", "--quiet", "--lag", "1,3"]


def write_log(tmp_path, kind, fmt="text", name=None):
    path = tmp_path / (name or f"{kind}.{'txt' if fmt == 'text' else fmt}")
    run(CLI, "sample", *LOGS[kind], "--seed", "11", "--format", fmt, "--output", path)
    return path


def audit(out, *inputs, kind, extra=()):
    run(CLI, "audit", *inputs, *SHAPE[kind], *AUDIT, *extra, "--json", out)
    return out


def split_lines(path, parts):
    """The log's lines cut into `parts` files, in order (uneven pieces)."""
    lines = path.read_text().splitlines(keepends=True)
    cuts = [0, 2, len(lines) // 3, len(lines)] if parts == 3 else None  # the first: a line or two
    out = []
    for p in range(parts):
        piece = path.with_name(f"{path.stem}-{p}.txt")
        piece.write_text("".join(lines[cuts[p]:cuts[p + 1]]))
        out.append(piece)
    return out


def without_notes(doc):
    doc = {k: v for k, v in doc.items() if k != "reproduce"}  # a merge's own command
    stats = dict(doc.get("stats", {}))
    stats.pop("notes", None)
    doc["stats"] = stats
    return doc


@needs_mpi
@pytest.mark.parametrize("kind,fmt", [("riffle8", "text"), ("deck52", "u8"), ("deal5", "text"), ("deal5", "u16")])
@pytest.mark.parametrize("ranks", [2, 3])
def test_ranks_over_one_file_give_one_process_audit(tmp_path, kind, fmt, ranks):
    log = write_log(tmp_path, kind, fmt)
    one = audit(tmp_path / "one.json", log, kind=kind)
    out = tmp_path / "ranks.json"
    mpirun(ranks, "audit", log, *SHAPE[kind], *AUDIT, "--json", out)
    assert_same_result(out, one)
    assert json.load(open(out))["ranks"] == ranks


@needs_mpi
def test_a_wrong_record_on_a_later_rank_is_named_by_its_bytes(tmp_path):
    log = write_log(tmp_path, "riffle8")
    text = log.read_text().splitlines()
    text[len(text) * 3 // 4] = "0 1 2 3 4 5 6 6"
    log.write_text("\n".join(text) + "\n")
    p = mpirun(2, "audit", log, *AUDIT, check=False)
    assert p.returncode != 0
    assert "MPI rank 1" in p.stderr and "appears twice" in p.stderr, p.stderr


@pytest.mark.parametrize("kind", ["riffle8", "deal5"])
def test_pieces_audited_apart_and_merged_are_the_whole_log(tmp_path, kind):
    log = write_log(tmp_path, kind)
    pieces = split_lines(log, 3)
    whole = json.load(open(audit(tmp_path / "whole.json", *pieces, kind=kind)))
    checkpoints = []
    for i, piece in enumerate(pieces):
        checkpoints.append(tmp_path / f"piece {i}.ckpt")  # a space: the reproduce line quotes it
        audit(tmp_path / f"piece{i}.json", piece, kind=kind, extra=["--checkpoint", checkpoints[-1]])
    merged = tmp_path / "merged.json"
    run(CLI, "merge", *checkpoints, "--json", merged)
    got = json.load(open(merged))
    assert got["input"]["files"] == [str(p) for p in pieces]
    assert without_notes(got) == without_notes(whole)
    assert any("pieces of one log" in n for n in got["stats"]["notes"])
    assert shlex.split(got["reproduce"]) == ["melange", "merge", *map(str, checkpoints)], got["reproduce"]
    # In another order they are another log: not the same stream.
    run(CLI, "merge", checkpoints[2], checkpoints[0], checkpoints[1], "--json", tmp_path / "shuffled.json")
    assert json.load(open(tmp_path / "shuffled.json"))["stats"] != got["stats"]


def test_a_stopped_file_audit_resumes_to_the_uninterrupted_result(tmp_path):
    log = tmp_path / "decks.u8"
    run(CLI, "sample", "--n", "52", "--count", "600001", "--seed", "3", "--format", "u8", "--output", log)
    second = write_log(tmp_path, "deck52", "u8", name="more.u8")
    whole = audit(tmp_path / "whole.json", log, second, kind="deck52")
    checkpoint = tmp_path / "audit.ckpt"
    stopped = subprocess.Popen([CLI, "audit", str(log), str(second), "--n", "52", *AUDIT, "--checkpoint", str(checkpoint),
                                "--checkpoint-every", "0.02", "--json", str(tmp_path / "stopped.json")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not checkpoint.exists() and time.time() < deadline and stopped.poll() is None:
        time.sleep(0.01)
    stopped.send_signal(signal.SIGTERM)
    _, err = stopped.communicate(timeout=120)
    assert stopped.returncode in (0, 143), err
    if stopped.returncode == 143:
        assert "run the same command with --resume" in err, err
        head = checkpoint.read_bytes().split(b"checksum ")[0].decode()
        assert " 0 " + str(log) in head or " 0 " + str(second) in head, head  # an input not read to its end
    resumed = tmp_path / "resumed.json"
    run(CLI, "audit", log, second, "--n", "52", *AUDIT, "--resume", checkpoint, "--json", resumed)
    assert_same_result(resumed, whole)
    # A finished checkpoint resumes to the same result again, reading nothing.
    run(CLI, "audit", log, second, "--n", "52", *AUDIT, "--resume", checkpoint, "--json", tmp_path / "again.json")
    assert_same_result(tmp_path / "again.json", whole)


def test_what_cannot_go_on_is_refused_in_one_line(tmp_path):
    log = write_log(tmp_path, "riffle8")
    other = write_log(tmp_path, "riffle8", name="other.txt")
    checkpoint = tmp_path / "log.ckpt"
    audit(tmp_path / "log.json", log, kind="riffle8", extra=["--checkpoint", checkpoint])
    cases = [
        (["audit", other, *AUDIT, "--resume", checkpoint], "its file 1 is"),
        (["audit", log, *AUDIT[:-2], "--lag", "2", "--resume", checkpoint], "other --lag"),
        (["audit", "--n", "8", "--trials", "1000", "--resume", checkpoint], "not a checkpoint melange can resume"),
        (["audit", "-", "--n", "8", "--checkpoint", tmp_path / "x.ckpt"], "standard input cannot give"),
        (["merge", checkpoint, tmp_path / "log.json"], "not the checkpoint of an audit of records"),
    ]
    for args, words in cases:
        p = run(CLI, *args, check=False)
        lines = [line for line in p.stderr.splitlines() if line]
        assert p.returncode == 2 and len(lines) == 1 and words in p.stderr, (args, p.stderr)
