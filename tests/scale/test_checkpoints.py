"""Checkpoints: a run stopped at any moment and resumed equals an uninterrupted
one (DESIGN.md section 8)."""
import os
import random
import signal
import time

import pytest

from scale_support import CLI, assert_same_result, audit_args, checkpoint_done, one_process, run, start


# --- checkpoints in one process ---------------------------------------------

def test_runs_killed_at_random_moments_resume_to_the_uninterrupted_result(tmp_path):
    job = ["--n", "9", "--trials", "4e7", "--seed", "11", "--position"]
    reference = one_process(tmp_path, job)
    ckpt, out = tmp_path / "run.ckpt", tmp_path / "run.json"
    moments = random.Random(2026)  # fixed: the same kill times every run
    done, how = 0, ["--checkpoint", ckpt]
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
        p = start([CLI, *audit_args(job, out), *how, "--checkpoint-every", "0.2"])
        time.sleep(moments.uniform(0.1, 0.6))
        p.send_signal(sig)
        _, err = p.communicate(timeout=120)
        if p.returncode == 0:
            break  # finished before the signal came
        assert p.returncode == 128 + sig, err.decode()
        assert b"--resume" in err, err.decode()
        now = checkpoint_done(ckpt)
        assert now >= done
        done, how = now, ["--resume", ckpt]
    run(CLI, *audit_args(job, out), "--resume", ckpt)
    assert_same_result(out, reference)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".melange-")], "a temporary file was left"


def kill_while_writing(args, folder, sig):
    """Starts args and sends sig the moment a checkpoint is being written
    (its temporary file is there); returns the process, ended."""
    p = start(args)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None:
        if any(f.startswith(".melange-") for f in os.listdir(folder)):
            p.send_signal(sig)
            break
    p.communicate(timeout=120)
    return p


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_a_kill_during_the_checkpoint_write_leaves_a_whole_checkpoint(tmp_path, sig):
    # n = 10: each checkpoint is 29 MB, written after every segment.
    job = ["--n", "10", "--trials", "6e6", "--seed", "5"]
    folder = tmp_path / "run"
    folder.mkdir()
    ckpt, out = folder / "run.ckpt", tmp_path / "run.json"
    args = [CLI, *audit_args(job, out), "--checkpoint-every", "1e-6"]
    # The first checkpoint is written whole; the kill lands in a later one.
    first = start(args + ["--checkpoint", ckpt])
    while not ckpt.exists() and first.poll() is None:
        time.sleep(0.001)
    first.send_signal(signal.SIGTERM)
    first.communicate(timeout=120)
    before = checkpoint_done(ckpt)
    p = kill_while_writing(args + ["--resume", ckpt], folder, sig)
    if p.returncode == 0:
        pytest.skip("the run ended before a checkpoint write was caught")
    assert p.returncode == (-signal.SIGKILL if sig == signal.SIGKILL else 130)
    assert checkpoint_done(ckpt) >= before  # the old checkpoint or the new one, whole
    if sig == signal.SIGINT:
        assert not [f for f in os.listdir(folder) if f.startswith(".melange-")], "a temporary file was left"
    run(CLI, *audit_args(job, out), "--resume", ckpt)
    assert_same_result(out, one_process(tmp_path, job))


def test_resuming_another_job_is_refused(tmp_path):
    ckpt = tmp_path / "job.ckpt"
    run(CLI, "audit", "--n", "5", "--trials", "1e5", "--seed", "1", "--quiet", "--checkpoint", ckpt)
    for change, field in [(["--seed", "2", "--n", "5"], "seed"), (["--seed", "1", "--n", "6"], "n"),
                          (["--seed", "1", "--n", "5", "--method", "lemire"], "method"),
                          (["--seed", "1", "--n", "5", "--position"], "tallies")]:
        p = run(CLI, "audit", *change, "--trials", "1e5", "--quiet", "--resume", ckpt, check=False)
        assert p.returncode == 2, p.stderr
        assert "another job" in p.stderr and f"({field} " in p.stderr, p.stderr
        assert p.stderr.count("\n") == 1, p.stderr


def test_a_checkpoint_is_not_overwritten_without_resume(tmp_path):
    ckpt = tmp_path / "job.ckpt"
    run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--checkpoint", ckpt)
    p = run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--checkpoint", ckpt, check=False)
    assert p.returncode == 2 and "--resume" in p.stderr, p.stderr


def test_a_damaged_checkpoint_is_refused(tmp_path):
    ckpt = tmp_path / "job.ckpt"
    run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--checkpoint", ckpt)
    data = ckpt.read_bytes()
    for damaged, why in [(data[:-8], "cut short"), (data[:-8] + b"\1" * 8, "do not add up"),
                         (b"not a checkpoint\n", "does not start")]:
        ckpt.write_bytes(damaged)
        p = run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--resume", ckpt, check=False)
        assert p.returncode == 2 and why in p.stderr, p.stderr
