#!/usr/bin/env python3
"""Reads ptxas's report (nvcc -Xptxas -v) of the CUDA backend's kernels and
prints each kernel's registers, stack frame and spills. Exits 1 when any of
melange's kernels spills or has a stack frame: a thread's state belongs in
registers (small n: items packed in a register) or in the block's shared
memory (larger n: items interleaved by thread), never in local memory.

Usage: cuda_resource_usage.py REPORT
"""
import re
import subprocess
import sys


def kernels(report):
    rows, cur = [], None
    for line in report.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            cur = {"mangled": m.group(1), "registers": 0, "stack": 0, "spill_stores": 0, "spill_loads": 0}
            rows.append(cur)
            continue
        if cur is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m:
            cur["stack"], cur["spill_stores"], cur["spill_loads"] = map(int, m.groups())
        m = re.search(r"Used (\d+) registers", line)
        if m:
            cur["registers"] = int(m.group(1))
    return rows


ALGORITHMS = ["fisher-yates", "naive-swap", "sattolo", "partial", "sort-binary-insertion", "sort-v8-timsort",
              "weighted", "weighted-int-power"]


def readable(names):
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True)
    pretty = []
    for name in out.stdout.splitlines():
        name = re.sub(r"melange::cuda::\(anonymous namespace\)::", "", name)
        name = re.sub(r"\(melange::TrialJob.*$", "", name)
        name = re.sub(r"^void ", "", name)
        # The values of melange::Algorithm, in enum order (algorithms.hpp).
        name = re.sub(r"\(melange::Algorithm\)(\d+)", lambda m: ALGORITHMS[int(m.group(1))], name)
        name = re.sub(r"\(melange::MethodSet\)0", "any method", name)
        name = re.sub(r"\(melange::MethodSet\)1", "batched", name)
        name = re.sub(r"\(melange::MethodSet\)2", "a word a draw", name)
        pretty.append(name)
    return pretty


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = kernels(open(sys.argv[1]).read())
    if not rows:
        print("no kernels in the report: was it made with -Xptxas -v?", file=sys.stderr)
        return 1
    failures = []
    print(f"{'registers':>9} {'stack':>6} {'spills':>7}  kernel")
    for row, name in zip(rows, readable([r["mangled"] for r in rows])):
        if not name.startswith(("audit_kernel", "sample_kernel")):
            continue  # Thrust's and CUB's own kernels
        spills = row["spill_stores"] + row["spill_loads"]
        print(f"{row['registers']:>9} {row['stack']:>6} {spills:>7}  {name}")
        if spills:
            failures.append(f"{name} spills {spills} bytes")
        if row["stack"]:
            failures.append(f"{name} has a {row['stack']}-byte stack frame")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
