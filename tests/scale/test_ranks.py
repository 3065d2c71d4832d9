"""MPI ranks give the result of one process (contract §6)."""
import json
import signal
import subprocess
import time

import pytest

from scale_support import (CLI, MPIEXEC, assert_same_result, audit_args, checkpoint_done, mpirun, needs_mpi,
                           one_process, run)


# --- MPI ranks -------------------------------------------------------------

RANK_JOBS = [
    # n, tallies, trials (none divisible by 2 or 3)
    pytest.param(["--n", "4", "--trials", "1000003"], id="n4-rank"),
    pytest.param(["--n", "4", "--position", "--trials", "1000003"], id="n4-rank+position"),
    pytest.param(["--n", "52", "--position", "--trials", "200003"], id="n52-position"),
    # Each trial against the one before: pairs across the ranks' boundaries count once.
    pytest.param(["--n", "5", "--serial", "--trials", "300007"], id="n5-serial"),
    pytest.param(["--n", "52", "--k", "5", "--algo", "partial", "--serial", "--trials", "100003"], id="deal-serial"),
    # No rank histogram at n = 12: the repeats are the trials' fingerprints, traded between the ranks.
    pytest.param(["--n", "12", "--serial", "--position", "--no-rank", "--trials", "300007"], id="n12-serial-repeats"),
]


@needs_mpi
@pytest.mark.parametrize("method", ["batched", "lemire"])
@pytest.mark.parametrize("job", RANK_JOBS)
@pytest.mark.parametrize("ranks", [2, 3])
def test_ranks_give_the_result_of_one_process(tmp_path, job, method, ranks):
    job = [*job, "--method", method, "--seed", "7", "--first", "5"]
    reference = one_process(tmp_path, job)
    out = tmp_path / "ranks.json"
    mpirun(ranks, *audit_args(job, out))
    assert_same_result(out, reference)
    assert json.load(open(out))["ranks"] == ranks


@needs_mpi
def test_fingerprint_repeats_count_pairs_that_cross_the_ranks(tmp_path):
    # About 94 repeats among 300,007 orders of 12: with 3 ranks two thirds of
    # the pairs of equal trials lie on two ranks.
    job = ["--n", "12", "--serial", "--position", "--no-rank", "--trials", "300007", "--seed", "5"]
    out = tmp_path / "ranks.json"
    mpirun(3, *audit_args(job, out))
    repeats = json.load(open(out))["stats"]["repeats"]
    assert "repeated orders among 300,007" in repeats["plain"], repeats
    assert int(repeats["plain"].split()[0].replace(",", "")) > 50, repeats
    assert_same_result(out, one_process(tmp_path, job))


@needs_mpi
def test_a_histogram_larger_than_one_message_is_reduced_in_pieces(tmp_path):
    # n = 10: 3,628,800 bins, reduced in pieces of 2^20 counts.
    job = ["--n", "10", "--trials", "1000001", "--seed", "8"]
    out = tmp_path / "ranks.json"
    mpirun(2, *audit_args(job, out))
    assert_same_result(out, one_process(tmp_path, job))


@needs_mpi
def test_only_rank_zero_reports(tmp_path):
    p = mpirun(3, "audit", "--n", "5", "--trials", "1e5", "--threads", "1", "--quiet")
    assert p.stdout.count("melange audit:") == 1, p.stdout
    assert "3 MPI ranks × 1 thread each" in p.stdout, p.stdout


@needs_mpi
def test_commands_that_do_not_split_are_refused(tmp_path):
    p = mpirun(2, "exact", "--n", "3", check=False)
    assert p.returncode == 2
    assert p.stderr.count("runs in one process") == 1, p.stderr


@needs_mpi
def test_bad_input_is_one_line_on_every_rank(tmp_path):
    p = mpirun(3, "audit", "--n", "0", check=False)
    assert p.returncode == 2
    assert p.stderr.count("melange: ") == 1, p.stderr


@needs_mpi
def test_a_fault_on_one_rank_ends_every_rank(tmp_path):
    # Rank 1 alone cannot hold the n = 11 tallies (320 MB each) under its
    # address-space limit: it fails after the ranks agreed to start, and the
    # others must learn it and end rather than wait for it.
    limited = tmp_path / "limited.sh"
    limited.write_text(f"#!/bin/sh\nulimit -v 700000\nexec {CLI} \"$@\"\n")
    limited.chmod(0o755)
    job = ["audit", "--n", "11", "--trials", "1e5", "--threads", "1", "--quiet", "--memory-cap", "4e9"]
    p = run(MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", "1", CLI, *job, ":", "-np", "1", limited, *job,
            check=False, timeout=120)
    assert p.returncode == 1, p.stderr
    assert p.stderr.count("melange: ") == 1, p.stderr


@needs_mpi
def test_ranks_stop_with_a_checkpoint_that_other_ranks_resume(tmp_path):
    job = ["--n", "8", "--trials", "6e9", "--seed", "3"]
    ckpt = tmp_path / "ranks.ckpt"
    out = tmp_path / "ranks.json"
    cmd = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", "2", CLI, *audit_args(job, out)]
    p = subprocess.Popen(cmd + ["--checkpoint", ckpt], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)  # mpirun passes it on to the ranks as SIGTERM
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the job ended before the signal: this machine is faster than the test expects")
    if checkpoint_done(ckpt) == 6_000_000_000:
        pytest.skip("the job ended as the signal came: this machine is faster than the test expects")
    assert 0 < checkpoint_done(ckpt) < 6_000_000_000, err
    # The user pressed Ctrl-C: the line says so, and mpirun exits 1 (docs/scaling.md).
    assert "(mpirun passes Ctrl-C on as SIGTERM)" in err.decode(), err
    assert p.returncode == 1, err
    mpirun(3, *audit_args(job, out), "--resume", ckpt)
    assert_same_result(out, one_process(tmp_path, job))


# --- ranks that disagree, and a rank 0 that cannot save ----------------------

JOB = {"--n": "5", "--trials": "1000000"}


@needs_mpi
@pytest.mark.parametrize("change,field", [
    ({"--n": "7"}, "has n 7 where rank 0 has 5"),
    ({"--seed": "3"}, "has seed 3"),
    ({"--trials": "999999"}, "has trials 999999"),
    ({"--method": "lemire"}, "has method"),
    ({"--no-rank": None, "--position": None}, "rank histogram"),
    ({"--position": None}, "position matrix"),
    ({"--checkpoint": "other.ckpt"}, "has checkpoint 1"),
])
def test_ranks_given_different_jobs_all_refuse_before_any_work(tmp_path, change, field):
    def line(job):
        return ["audit", "--quiet", "--threads", "1", *[a for k, v in job.items() for a in (k, v) if a is not None]]
    p = run(MPIEXEC, "--allow-run-as-root", "--oversubscribe", "--wdir", tmp_path,
            "-np", "1", CLI, *line(JOB), ":", "-np", "1", CLI, *line({**JOB, **change}), check=False, timeout=60)
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.startswith("melange: ")]
    assert len(lines) == 1 and "different jobs" in lines[0] and field in lines[0], p.stderr
    assert not (tmp_path / "other.ckpt").exists()


@needs_mpi
@pytest.mark.parametrize("job,change,field", [
    ({"--algo": "riffle", "--riffles": "3"}, {"--riffles": "4"}, "has riffles 4 where rank 0 has 3"),
    ({"--algo": "shelf", "--shelves": "3"}, {"--shelves": "4"}, "has shelves 4 where rank 0 has 3"),
    ({"--algo": "shelf", "--shelves": "3", "--passes": "2"}, {"--passes": "1"}, "has passes 1 where rank 0 has 2"),
    ({"--algo": "weighted", "--weights": "1,2,3,4,5"}, {"--weights": "1,2,3,4,6"}, "weights (hash)"),
])
def test_ranks_given_other_card_or_weight_parameters_refuse(tmp_path, job, change, field):
    # The algorithm's parameters are part of the job: ranks that differ in
    # them would run a mixed job and merge it.
    base = {**JOB, **job}

    def line(j):
        return ["audit", "--quiet", "--threads", "1", "--no-rank", "--position",
                *[a for k, v in j.items() for a in (k, v)]]
    p = run(MPIEXEC, "--allow-run-as-root", "--oversubscribe", "--wdir", tmp_path,
            "-np", "1", CLI, *line(base), ":", "-np", "1", CLI, *line({**base, **change}), check=False, timeout=60)
    assert p.returncode == 2, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.startswith("melange: ")]
    assert len(lines) == 1 and "different jobs" in lines[0] and field in lines[0], p.stderr


@needs_mpi
def test_a_save_that_fails_on_rank_zero_ends_every_rank(tmp_path):
    # Rank 0's checkpoint cannot grow past the file-size limit: the save
    # fails at the first checkpoint, and the other rank must learn it.
    script = f"trap '' XFSZ; ulimit -f 0; exec {CLI} audit --n 5 --trials 1e12 --quiet --checkpoint ck --checkpoint-every 1"
    p = run(MPIEXEC, "--allow-run-as-root", "--oversubscribe", "--wdir", tmp_path, "-np", "2", "sh", "-c", script,
            check=False, timeout=120)
    assert p.returncode == 1, p.stderr
    lines = [line for line in p.stderr.splitlines() if line.startswith("melange: ")]
    assert len(lines) == 1 and "'ck'" in lines[0], p.stderr


# --- predict over ranks ----------------------------------------------------

@needs_mpi
@pytest.mark.parametrize("ranks", [2, 3])
def test_predict_over_ranks_finds_the_matches_of_one_process(tmp_path, ranks):
    # Two cards of a minstd deck: many chance matches in 300,001 seeds, in
    # every rank's share, and its own seed; every family, so that the lanes
    # (php-mt, python), the closed forms (glibc-rand) and asf-1999 split too.
    deck = run(CLI, "predict", "--family", "cpp-minstd", "--deal", "123456").stdout.split()
    deals = tmp_path / "deals.txt"
    deals.write_text(" ".join(deck[:2]) + "\n")
    args = ["predict", str(deals), "--seeds", "1..300001", "--json", "-", "--quiet", "--reseed-window", "0"]
    one = json.loads(run(CLI, *args).stdout)
    assert sum(len(f["matches"]) for f in one["families"]) > 500
    assert "123456" in [m["seed"] for f in one["families"] if f["family"] == "cpp-minstd" for m in f["matches"]]
    assert json.loads(mpirun(ranks, *args, "--threads", "1").stdout) == one
    assert json.loads(run(CLI, *args, "--backend", "scalar", "--threads", "1").stdout) == one
