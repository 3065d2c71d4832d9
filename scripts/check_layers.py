#!/usr/bin/env python3
"""Checks that the library's folders depend downward only (docs/architecture.md):

    core <- simd, cuda <- engine <- report <- cli, python

An edge is an `#include` that resolves to a header another folder owns, a
library named in `target_link_libraries`, or another folder's path named in
a CMakeLists.txt. tests/, bench/, examples/ and scripts/ stand above every
layer; they are checked for one thing only: no file anywhere reaches by path
into another folder's private src/ (a white-box test links the folder's
`melange_<layer>_internals` target and includes the header by name).

    check_layers.py [ROOT]          exit 1 and one line per upward edge
    check_layers.py --plant [ROOT]  copies the tree, plants an upward include
                                    and an upward link, and fails unless both
                                    are caught (the check checking itself)
"""
import os
import re
import shutil
import sys
import tempfile

# What each layer may use besides itself.
ALLOWED = {
    "core": set(),
    "simd": {"core"},
    "cuda": {"core"},
    "engine": {"core", "simd", "cuda"},
    "report": {"core", "engine"},
    "cli": {"core", "engine", "report"},
    "python": {"core", "engine", "report"},
}
# Library target names as CMake spells them, by the folder that defines them.
TARGETS = {"melange_cli_lib": "cli", "melange_python": "python"}
for layer in ALLOWED:
    TARGETS[f"melange::{layer}"] = layer
    TARGETS[f"melange_{layer}"] = layer

SOURCE_ENDINGS = (".cpp", ".hpp", ".cu", ".cuh", ".h", ".inc", ".hpp.in")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
LINK = re.compile(r"target_link_libraries\s*\(([^)]*)\)", re.S)
PATH = re.compile(r"\$\{(?:PROJECT|CMAKE)_SOURCE_DIR\}/([A-Za-z_]+)/")


def layer_of(root, path):
    """The layer a path inside ROOT belongs to, or None (tests, build, ...)."""
    first = os.path.relpath(path, root).split(os.sep)[0]
    return first if first in ALLOWED else None


def header_owners(root):
    """Public header path ("melange/engine.hpp") -> the layer that installs it."""
    owners = {}
    for layer in ALLOWED:
        include = os.path.join(root, layer, "include")
        for folder, _, files in os.walk(include):
            for name in files:
                rel = os.path.relpath(os.path.join(folder, name), include)
                owners[rel[:-3] if rel.endswith(".in") else rel] = layer
    return owners


def include_target(root, owners, source, name):
    """The layer an include of `name` from `source` reaches, or None (outside the tree)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(source), name))
    if os.path.exists(beside):
        return layer_of(root, beside)
    return owners.get(name)


def layer_files(root):
    for layer in ALLOWED:
        for folder, dirs, files in os.walk(os.path.join(root, layer)):
            dirs[:] = [d for d in dirs if not d.startswith("build")]
            for name in files:
                yield layer, os.path.join(folder, name)


# Folders above every layer, checked for reaching into a private src/.
ABOVE = ("tests", "bench", "examples")


def private_reaches(root):
    """Includes by path into another folder's src/, from any folder."""
    edges = []
    for top in set(ABOVE) | set(ALLOWED):
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [d for d in dirs if not d.startswith("build")]
            for name in files:
                path = os.path.join(folder, name)
                if not path.endswith(SOURCE_ENDINGS):
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for m in INCLUDE.finditer(text):
                    if "/" not in m.group(1):
                        continue
                    target = os.path.relpath(os.path.normpath(os.path.join(folder, m.group(1))), root).split(os.sep)
                    if len(target) > 2 and target[0] in ALLOWED and target[1] == "src" and target[0] != top:
                        line = text.count("\n", 0, m.start()) + 1
                        edges.append(f"{os.path.relpath(path, root)}:{line}: reaches into {target[0]}/src/ "
                                     f"({m.group(1)}): link melange_{target[0]}_internals and include it by name")
    return edges


def upward_edges(root):
    owners = header_owners(root)
    edges = private_reaches(root)
    for layer, path in layer_files(root):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if path.endswith(SOURCE_ENDINGS):
            for m in INCLUDE.finditer(text):
                used = include_target(root, owners, path, m.group(1))
                if used and used != layer and used not in ALLOWED[layer]:
                    line = text.count("\n", 0, m.start()) + 1
                    edges.append(f"{rel}:{line}: {layer} includes {m.group(1)} of {used}")
        elif os.path.basename(path) == "CMakeLists.txt":
            for m in LINK.finditer(text):
                for word in m.group(1).split()[1:]:
                    used = TARGETS.get(word)
                    if used and used != layer and used not in ALLOWED[layer]:
                        line = text.count("\n", 0, m.start()) + 1
                        edges.append(f"{rel}:{line}: {layer} links {word} of {used}")
            for m in PATH.finditer(text):
                used = m.group(1)
                if used in ALLOWED and used != layer and used not in ALLOWED[layer]:
                    line = text.count("\n", 0, m.start()) + 1
                    edges.append(f"{rel}:{line}: {layer} names {used}/")
    return edges


def check(root):
    edges = upward_edges(root)
    for e in edges:
        print(e)
    files = sum(1 for _ in layer_files(root))
    print(f"{len(edges)} upward edges in {files} files of {len(ALLOWED)} layers")
    return 1 if edges else 0


def plant(root):
    """Plants one upward include and one upward link in copies of the tree."""
    plants = [
        ("core/src/planted_upward.cpp", '#include "melange/engine.hpp"\n', "core includes melange/engine.hpp of engine"),
        ("simd/CMakeLists.txt", "\ntarget_link_libraries(melange_simd PRIVATE melange::report)\n",
         "simd links melange::report of report"),
        ("engine/src/planted_upward.cpp", '#include "melange/report/audit.hpp"\n',
         "engine includes melange/report/audit.hpp of report"),
        ("tests/planted_private_test.cpp", '#include "../simd/src/plan.hpp"\n', "reaches into simd/src/"),
    ]
    missed = 0
    for path, text, expected in plants:
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, "tree")
            os.mkdir(copy)
            for top in set(ALLOWED) | set(ABOVE):
                if os.path.isdir(os.path.join(root, top)):
                    shutil.copytree(os.path.join(root, top), os.path.join(copy, top),
                                    ignore=shutil.ignore_patterns("build*"))
            with open(os.path.join(copy, path), "a", encoding="utf-8") as f:
                f.write(text)
            edges = upward_edges(copy)
            caught = [e for e in edges if expected in e]
            print(f"planted in {path}: {'caught' if caught and len(edges) == 1 else 'MISSED'}"
                  f" ({len(edges)} edges: {'; '.join(edges) or 'none'})")
            missed += not (caught and len(edges) == 1)
    return 1 if missed else 0


def main(argv):
    args = argv[1:]
    planted = "--plant" in args
    args = [a for a in args if a != "--plant"]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    return plant(root) if planted else check(root)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
