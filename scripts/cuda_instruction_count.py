#!/usr/bin/env python3
"""Instruction counts of the CUDA kernels, from their PTX: no GPU needed.

    scripts/cuda_instruction_count.py [--nvcc NVCC] [--arch 90] [--build build] [--match TEXT]

Compiles cuda/src/backend.cu to PTX as the build does and prints, for each
kernel: its PTX instructions, those in its loops (between a label and a branch
back to it), and its divisions and remainders (div/rem: each a long sequence
on the GPU, the cost a host-computed plan removes). PTX is not SASS, but the
counts move with it, and the division count is exact. A change to a kernel's
hot path can be checked the same way before and after.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INSTRUCTION = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.]*)\s")
LABEL = re.compile(r"^\s*(\$\w+):")
BRANCH = re.compile(r"\bbra(\.uni)?\s+(\$\w+);")


def kernels(ptx):
    """(name, body lines) of every .entry in the PTX text."""
    lines = ptx.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^\.(?:visible |weak )?\.?entry\s+(\S+)\(", lines[i]) or re.match(r"^\.entry\s+(\S+)\(", lines[i])
        if not m:
            i += 1
            continue
        name = m.group(1)
        while i < len(lines) and lines[i].strip() != "{":
            i += 1
        depth, body = 0, []
        while i < len(lines):
            depth += lines[i].count("{") - lines[i].count("}")
            body.append(lines[i])
            i += 1
            if depth == 0:
                break
        yield name, body


def loops(body):
    """(first, last) instruction indices of each loop: a label and the last branch back to it."""
    labels, spans, n = {}, {}, 0
    for line in body:
        if LABEL.match(line):
            labels[LABEL.match(line).group(1)] = n
            continue
        m = INSTRUCTION.match(line)
        if not m or m.group(2).startswith((".", "//")) or line.strip().startswith("."):
            continue
        b = BRANCH.search(line)
        if b and b.group(2) in labels and labels[b.group(2)] <= n:
            spans[b.group(2)] = (labels[b.group(2)], n)
        n += 1
    return sorted(spans.values())


def loop_tree(body):
    """Lines that draw the kernel's loops, nested, each with its own size and its body's."""
    spans = loops(body)
    out = []
    for first, last in spans:
        depth = sum(1 for f, l in spans if f <= first and last <= l and (f, l) != (first, last))
        inner = [(f, l) for f, l in spans if first <= f and l <= last and (f, l) != (first, last)]
        outermost_inner = [s for s in inner if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in inner)]
        own = (last - first + 1) - sum(l - f + 1 for f, l in outermost_inner)
        out.append(f"{'  ' * (depth + 1)}loop at {first}: {last - first + 1} instructions, {own} outside its inner loops")
    return out


def count(body):
    total = divisions = 0
    labels, in_loop = {}, set()
    instructions = []
    for line in body:
        if LABEL.match(line):
            labels[LABEL.match(line).group(1)] = len(instructions)
            continue
        m = INSTRUCTION.match(line)
        if not m or m.group(2).startswith((".", "//")) or line.strip().startswith("."):
            continue
        op = m.group(2)
        instructions.append(line)
        total += 1
        divisions += op.startswith(("div.", "rem."))
        b = BRANCH.search(line)
        if b and b.group(2) in labels and labels[b.group(2)] < len(instructions):
            in_loop.update(range(labels[b.group(2)], len(instructions)))
    return total, len(in_loop), divisions


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
        return out.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return names


def short(name):
    name = re.sub(r"melange::cuda::\(anonymous namespace\)::", "", name)
    name = name.replace("melange::", "")
    name = re.sub(r"\([\w:]+\)(?=-?\d)", "", name)  # the casts of template arguments: (Algorithm)0
    return re.sub(r"\(.*$", "", name)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nvcc", default=os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc"))
    p.add_argument("--arch", default="90")
    p.add_argument("--build", default=os.path.join(ROOT, "build"), help="a configured build (for version.hpp)")
    p.add_argument("--match", default="", help="only kernels whose name contains this")
    p.add_argument("--loops", action="store_true",
                   help="also draw each kernel's loops, nested: a trial's cost is each loop's own instructions "
                        "times its trips (the grid-stride loop: once a trial)")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "backend.ptx")
        cmd = [a.nvcc, "-O3", "-DNDEBUG", f"-arch=sm_{a.arch}", "-ptx", "--expt-relaxed-constexpr", "-std=c++20",
               "-I", os.path.join(ROOT, "core/include"), "-I", os.path.join(a.build, "core/include"),
               "-I", os.path.join(ROOT, "cuda/include"), os.path.join(ROOT, "cuda/src/backend.cu"), "-o", ptx]
        subprocess.run(cmd, check=True)
        text = open(ptx).read()
    found = list(kernels(text))
    names = demangle([n for n, _ in found])
    rows = [(short(n), *count(body), body) for n, (_, body) in zip(names, found) if a.match in short(n)]
    width = max([len(r[0]) for r in rows] + [6])
    print(f"{'kernel':<{width}} {'PTX':>6} {'in loops':>9} {'div/rem':>8}")
    for name, total, in_loops, divisions, body in sorted(rows, key=lambda r: r[0]):
        print(f"{name:<{width}} {total:>6} {in_loops:>9} {divisions:>8}")
        if a.loops:
            print("\n".join(loop_tree(body)))
    print(f"{len(rows)} kernels, {sum(r[3] for r in rows)} divisions and remainders in all")


if __name__ == "__main__":
    sys.exit(main())
