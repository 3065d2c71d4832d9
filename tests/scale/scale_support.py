"""What the scale suites share (contract §6: MPI ranks, checkpoints
and merge).

They are run by CTest (label scale) with MELANGE_CLI naming the melange program of
the build, MELANGE_MPIEXEC its MPI launcher and MELANGE_HAVE_MPI whether
the build has MPI. Every check compares whole JSON results with one
uninterrupted run of the same job in one process: equal tallies, equal
statistics, equal verdicts.
"""
import json
import os
import subprocess

import pytest

CLI = os.environ.get("MELANGE_CLI", "melange")
MPIEXEC = os.environ.get("MELANGE_MPIEXEC", "mpirun")
HAVE_MPI = os.environ.get("MELANGE_HAVE_MPI", "OFF").upper() in ("ON", "1", "TRUE", "YES")

needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="melange was built without MPI: the MPI tests are skipped")

# What differs between runs of one job by design: how it was run.
HOW_IT_RAN = {"threads", "ranks", "backend", "simd_arch", "backend_note", "threads_note"}


def run(*args, check=True, timeout=300):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise AssertionError(f"{args} exited {p.returncode}: {p.stderr}")
    return p


def mpirun(ranks, *args, **kw):
    return run(MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-np", ranks, CLI, *args, **kw)


def result(path):
    with open(path) as f:
        doc = json.load(f)
    return {k: v for k, v in doc.items() if k not in HOW_IT_RAN}


def assert_same_result(path, reference):
    got, want = result(path), result(reference)
    differing = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
    assert not differing, f"{path} differs from {reference} in {differing}"


def audit_args(job, json_path):
    return ["audit", *job, "--threads", "1", "--quiet", "--json", json_path]


def one_process(tmp_path, job, name="whole.json"):
    path = tmp_path / name
    run(CLI, *audit_args(job, path))
    return path


def checkpoint_done(path):
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b"done "):
                return int(line.split()[1])
    raise AssertionError(f"{path} has no 'done' line")




def start(args):
    return subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


# peak_rss (tests/peak_rss.cpp): runs a command and writes its own peak resident size.
PEAK_RSS = os.environ.get("MELANGE_PEAK_RSS", "peak_rss")


def run_measured(args, cwd=None, timeout=300):
    """Runs args to the end; returns (returncode, stdout, stderr, peak resident MiB of that process)."""
    import tempfile
    with tempfile.TemporaryDirectory() as scratch:
        peak_file = os.path.join(scratch, "peak")
        p = subprocess.run([PEAK_RSS, peak_file, *[str(a) for a in args]], capture_output=True, text=True,
                           timeout=timeout, cwd=cwd)
        with open(peak_file) as f:
            peak = int(f.read()) / 1024
    return p.returncode, p.stdout, p.stderr, peak
