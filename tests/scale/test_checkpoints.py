"""Checkpoints: a run stopped at any moment and resumed equals an uninterrupted
one (contract §6)."""
import fcntl
import os
import random
import signal
import subprocess
import time

import pytest

from scale_support import (CLI, assert_same_result, audit_args, checkpoint_done, one_process, run, run_measured,
                           start)


# --- checkpoints in one process ---------------------------------------------

@pytest.mark.parametrize("job", [["--n", "9", "--trials", "4e7", "--seed", "11", "--position"],
                                 ["--n", "5", "--trials", "2e7", "--seed", "11", "--serial"],
                                 ["--n", "12", "--trials", "1e7", "--seed", "11", "--serial", "--position", "--no-rank"]],
                         ids=["n9", "n5-serial", "n12-serial-repeats"])
def test_runs_killed_at_random_moments_resume_to_the_uninterrupted_result(tmp_path, job):
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
        if b"--resume" not in err:
            # The signal came outside the run, where it ends the process at
            # once: before the run began (the checkpoint, if any, is the one
            # it started from) or while the outputs were written (the
            # checkpoint holds every trial).
            assert err == b"", err.decode()
            if not ckpt.exists():
                continue
            assert checkpoint_done(ckpt) in (done, trials(job)), "a silent stop moved the checkpoint"
        now = checkpoint_done(ckpt)
        assert now >= done
        done, how = now, ["--resume", ckpt]
    run(CLI, *audit_args(job, out), *(["--resume", ckpt] if ckpt.exists() else []))
    assert_same_result(out, reference)
    assert not [f for f in os.listdir(tmp_path) if f.startswith(".melange-")], "a temporary file was left"


def trials(job):
    return int(float(job[job.index("--trials") + 1]))


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
    for damaged, why in [(data[:-8], "cut short"), (data[:-8] + b"\1" * 8, "checksum does not match"),
                         (b"not a checkpoint\n", "does not start")]:
        ckpt.write_bytes(damaged)
        p = run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--resume", ckpt, check=False)
        assert p.returncode == 2 and why in p.stderr, p.stderr


# --- What a checkpoint promises when things go wrong -----------------------

def craft(ckpt, *, replace=None, tail=None):
    """The checkpoint's bytes with header lines replaced ({key: value}) and its counts replaced by `tail`."""
    data = ckpt.read_bytes()
    head, counts = data.split(b"counts\n", 1)
    lines = head.split(b"\n")
    for key, value in (replace or {}).items():
        lines = [f"{key} {value}".encode() if line.startswith(key.encode() + b" ") else line for line in lines]
    return b"\n".join(lines) + b"counts\n" + (counts if tail is None else tail)


def test_edits_that_keep_every_sum_are_caught_by_the_checksum(tmp_path):
    ckpt = tmp_path / "job.ckpt"
    run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--checkpoint", ckpt)
    data = ckpt.read_bytes()
    start = data.index(b"counts\n") + 7
    counts = bytearray(data[start:])
    swapped = bytearray(counts)
    swapped[0:8], swapped[8:16] = counts[8:16], counts[0:8]
    moved = bytearray(counts)
    moved[0:8] = (int.from_bytes(counts[0:8], "little") + 1).to_bytes(8, "little")
    moved[8:16] = (int.from_bytes(counts[8:16], "little") - 1).to_bytes(8, "little")
    assert swapped != counts and moved != counts
    for damaged in (swapped, moved):
        ckpt.write_bytes(data[:start] + bytes(damaged))
        for args in (["audit", "--n", "5", "--trials", "1e5", "--quiet", "--resume", ckpt], ["merge", ckpt]):
            p = run(CLI, *args, check=False)
            assert p.returncode == 2 and "checksum does not match" in p.stderr, p.stderr
            assert p.stderr.count("\n") == 1, p.stderr


# What each command says of a 1 KB checkpoint that claims n! bins: n = 20's
# tally (20! bins) is refused by the plan, before the file is read further.
@pytest.mark.parametrize("n,why", [(12, {"audit": "cut short", "merge": "cut short"}),
                                   (13, {"audit": "cut short", "merge": "cut short"}),
                                   (20, {"audit": "--memory-cap", "merge": "--memory-cap"})])
def test_a_tiny_file_that_claims_a_huge_job_is_refused_before_any_allocation(tmp_path, n, why):
    ckpt = tmp_path / "job.ckpt"
    run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--checkpoint", ckpt)
    crafted = tmp_path / "crafted.ckpt"
    crafted.write_bytes(craft(ckpt, replace={"n": n, "k": n}))
    assert crafted.stat().st_size < 2000
    cap = ["--memory-cap", "1e11"]  # the file's length, not the cap, must refuse it
    for command, args in (("audit", ["--n", str(n), "--trials", "1e5", "--quiet", *cap, "--resume", crafted]),
                          ("merge", [crafted, *cap])):
        status, _, err, peak = run_measured([CLI, command, *args])
        assert status == 2 and why[command] in err, err
        assert err.count("\n") == 1, err
        assert peak < 64, f"{command}: {peak:.0f} MiB before refusing"


def test_a_checkpoint_from_before_the_checksum_is_refused_by_name(tmp_path):
    ckpt = tmp_path / "job.ckpt"
    run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--checkpoint", ckpt)
    old = craft(ckpt).replace(b"melange checkpoint 2", b"melange checkpoint 1")
    old = b"\n".join(line for line in old.split(b"\n") if not line.startswith(b"checksum "))
    ckpt.write_bytes(old)
    p = run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--resume", ckpt, check=False)
    assert p.returncode == 2 and "older melange" in p.stderr, p.stderr


def test_the_result_is_written_when_the_last_save_fails(tmp_path):
    # The checkpoint (2.9 MB at n = 9) passes the file-size limit, the chart
    # (0.1 MB) does not: the finished run's outputs must survive.
    script = (f"trap '' XFSZ; ulimit -f 2000; exec {CLI} audit --n 9 --trials 3e7 --quiet "
              f"--checkpoint ck --svg o.svg")
    p = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "results were written (o.svg)" in p.stderr and "last checkpoint could not be saved" in p.stderr, p.stderr
    assert p.stderr.count("\n") == 1, p.stderr
    assert (tmp_path / "o.svg").stat().st_size > 10000
    assert "verdict:" in p.stdout


@pytest.mark.parametrize("second", ["job.ckpt", "link.ckpt", "sub/../job.ckpt"])
def test_two_runs_on_one_checkpoint_path_cannot_both_save(tmp_path, second):
    # The lock is the file's, however the second run spells it: a symlink
    # to the checkpoint (made before the first save) takes the same lock.
    ckpt = tmp_path / "job.ckpt"
    (tmp_path / "link.ckpt").symlink_to("job.ckpt")
    (tmp_path / "sub").mkdir()
    first = start([CLI, "audit", "--n", "5", "--trials", "1e12", "--quiet", "--checkpoint", ckpt])
    try:
        for _ in range(200):  # until the first run holds its lock
            if (tmp_path / "job.ckpt.lock").exists():
                break
            time.sleep(0.02)
        time.sleep(0.2)
        assert not ckpt.exists()  # nothing saved yet: the old check could not see the first run
        p = run(CLI, "audit", "--n", "5", "--trials", "1e12", "--quiet", "--checkpoint", tmp_path / second, check=False,
                timeout=30)
        assert p.returncode == 2 and "another melange run is saving" in p.stderr, p.stderr
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    assert first.returncode == 130


@pytest.mark.parametrize("args,why", [
    (["--checkpoint", "-"], "needs a file"),
    (["--checkpoint", "fifo"], "not a regular file"),
    (["--checkpoint-every", "5"], "add --checkpoint"),
])
def test_checkpoints_that_cannot_be_saved_atomically_are_refused(tmp_path, args, why):
    os.mkfifo(tmp_path / "fifo")
    p = subprocess.run([CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", *args], cwd=tmp_path,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and why in p.stderr, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["fifo"]


def test_the_lock_file_goes_with_the_run(tmp_path):
    # A run that ends, and one stopped by a usage error found after the lock
    # was taken (a checkpoint of another job to resume), leave no FILE.lock.
    run(CLI, "audit", "--n", "5", "--trials", "1e5", "--quiet", "--checkpoint", tmp_path / "a.ckpt")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.ckpt"]
    p = run(CLI, "audit", "--n", "6", "--trials", "1e5", "--quiet", "--resume", tmp_path / "a.ckpt",
            "--checkpoint", tmp_path / "b.ckpt", check=False)
    assert p.returncode == 2, p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["a.ckpt"]


def interrupt_once_running(p, ckpt, after=1.0):
    """SIGINT to the run `p` once it holds its checkpoint's lock (its checks are done, its segments start)
    and `after` seconds more: a signal during start-up would end it before it saves anything."""
    lock = ckpt.parent / (ckpt.name + ".lock")
    for _ in range(3000):
        if p.poll() is not None or lock_is_held(lock):
            break
        time.sleep(0.01)
    time.sleep(after)
    p.send_signal(signal.SIGINT)


def lock_is_held(lock):
    """Whether another process holds the flock on `lock` (the file may outlive its runs)."""
    try:
        with open(lock, "rb") as f:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(f, fcntl.LOCK_UN)
            return False
    except FileNotFoundError:
        return False
    except BlockingIOError:
        return True


def test_resume_and_checkpoint_may_name_one_file_twice(tmp_path):
    ckpt = tmp_path / "job.ckpt"
    p = start([CLI, "audit", "--n", "8", "--trials", "1e11", "--quiet", "--checkpoint", ckpt])
    interrupt_once_running(p, ckpt)
    p.communicate(timeout=60)
    assert p.returncode == 130
    done = checkpoint_done(ckpt)
    q = start([CLI, "audit", "--n", "8", "--trials", "1e11", "--quiet", "--resume", ckpt,
               "--checkpoint", f"{tmp_path}/./job.ckpt"])
    interrupt_once_running(q, ckpt)
    _, err = q.communicate(timeout=60)
    assert q.returncode == 130, err
    assert checkpoint_done(ckpt) > done


def test_a_checkpointed_n11_run_stays_under_the_default_memory_cap(tmp_path):
    # 11! bins are 319 MB a tally; three threads, the running total and a
    # resumed tally must all fit the 1 GiB default cap (before: 1,225 MB and
    # 1,530 MB). The run is stopped early, then resumed to its end.
    ckpt = tmp_path / "job.ckpt"
    job = ["audit", "--n", "11", "--trials", "3e7", "--threads", "3", "--quiet"]
    p = start([CLI, *job, "--checkpoint", ckpt])
    interrupt_once_running(p, ckpt, after=1.5)
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the run ended before the signal: this machine is faster than the test expects")
    assert p.returncode == 130, err
    status, _, err, peak = run_measured([CLI, *job, "--checkpoint", tmp_path / "other.ckpt"], timeout=300)
    assert status == 0, err
    assert peak < 1024, f"--checkpoint: {peak:.0f} MiB"
    status, _, err, peak = run_measured([CLI, *job, "--resume", ckpt], timeout=300)
    assert status == 0, err
    assert peak < 1024, f"--resume: {peak:.0f} MiB"
