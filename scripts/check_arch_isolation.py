#!/usr/bin/env python3
"""Checks that each SIMD kernel's architecture flags stay in its kernel.

simd/src/kernels_<arch>.cpp is compiled with its architecture's -m flags.
Any inline function it emits out of line (a core header's, the standard
library's, a kernel helper that is not a template on the architecture) is
a weak symbol, and the linker keeps one copy of it for the whole program,
from whichever object it meets first. A copy compiled with -mavx2 or
-mavx512f may then be the one the scalar path, or a narrower architecture's
kernel, runs on a CPU without those instructions: an illegal instruction.
So every weak function an architecture's object defines must either belong
to that architecture (its name holds the architecture, as
Kernel<xsimd::avx2> does) or hold no VEX or EVEX instruction.

    check_arch_isolation.py LIB            exit 1 and a line per offending function
    check_arch_isolation.py --plant DIR    builds a kernel object that leaks one,
                                           and fails unless it is caught

Tools: nm, objdump and ar from binutils; --plant needs c++ too.
"""
import os
import re
import subprocess
import sys
import tempfile

KERNEL_OBJECT = re.compile(r"^kernels_(\w+)\.cpp\.o$")
# A demangled name that holds one of these belongs to an architecture.
ARCH_MARKS = ("avx2", "avx512")
# A VEX or EVEX encoded instruction: its mnemonic starts with v (no legacy
# x86-64 instruction a compiler emits does), or it names a ymm, zmm or
# mask register.
VECTOR_INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\s+(v[a-z0-9]+\b|.*%[yz]mm|.*%k[1-7]\b)")


def run(*args, cwd=None):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True).stdout


def weak_functions(obj):
    """(mangled, demangled) of each weak function `obj` defines."""
    mangled = [line.split()[-1] for line in run("nm", "--defined-only", obj).splitlines()
               if len(line.split()) == 3 and line.split()[1] == "W"]
    demangled = run("c++filt", *mangled).splitlines() if mangled else []
    return list(zip(mangled, demangled))


def leaks(obj):
    """The weak functions of a kernel object that carry its instructions out."""
    found = []
    for symbol, name in weak_functions(obj):
        if any(mark in name for mark in ARCH_MARKS):
            continue
        body = run("objdump", "-d", "--no-show-raw-insn", f"--disassemble={symbol}", obj)
        vector = [line.strip() for line in body.splitlines() if VECTOR_INSTRUCTION.match(line)]
        if vector:
            found.append(f"{os.path.basename(obj)}: {name} holds {vector[0].split(':', 1)[1].strip()}")
    return found


def check(lib):
    with tempfile.TemporaryDirectory() as tmp:
        members = [m for m in run("ar", "t", lib).splitlines() if KERNEL_OBJECT.match(m)]
        if not members:
            print(f"check_arch_isolation: no kernels_<arch>.cpp.o in {lib}: nothing checked", file=sys.stderr)
            return 1
        run("ar", "x", os.path.abspath(lib), *members, cwd=tmp)
        found = [line for m in members for line in leaks(os.path.join(tmp, m))]
    for line in found:
        print(line)
    if found:
        print(f"check_arch_isolation: {len(found)} weak functions compiled with a kernel's flags; "
              "define them out of line, or make them templates on the architecture", file=sys.stderr)
        return 1
    print(f"check_arch_isolation: {len(members)} kernel objects, no architecture's code outside its own names")
    return 0


PLANTED = """
#include <cstdint>
inline void add_rows(std::uint64_t* a, const std::uint64_t* b, int n) {
  for (int i = 0; i < n; ++i) a[i] += b[i];
}
void (*volatile keep)(std::uint64_t*, const std::uint64_t*, int) = add_rows;
"""


def plant(scratch):
    """A kernel object that leaks an inline function compiled with -mavx2
    must be caught, and one that keeps it inside must pass."""
    with tempfile.TemporaryDirectory(dir=scratch) as tmp:
        source = os.path.join(tmp, "planted.cpp")
        with open(source, "w") as f:
            f.write(PLANTED)
        obj = os.path.join(tmp, "kernels_avx2.cpp.o")
        run("c++", "-O3", "-mavx2", "-c", source, "-o", obj)
        lib = os.path.join(tmp, "libplanted.a")
        run("ar", "rcs", lib, obj)
        with open(os.devnull, "w") as quiet:
            stdout, sys.stdout = sys.stdout, quiet
            try:
                caught = check(lib) == 1
            finally:
                sys.stdout = stdout
        run("c++", "-O3", "-c", source, "-o", obj)
        os.remove(lib)
        run("ar", "rcs", lib, obj)
        passed = check(lib) == 0
    if not caught or not passed:
        print(f"check_arch_isolation --plant: leak caught {caught}, clean object passed {passed}", file=sys.stderr)
        return 1
    print("check_arch_isolation --plant: the planted leak was caught, the clean object passed")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--plant":
        return plant(argv[2])
    if len(argv) == 2 and not argv[1].startswith("-"):
        return check(argv[1])
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    print("usage: check_arch_isolation.py LIB | --plant SCRATCH_DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
