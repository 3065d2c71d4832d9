#!/usr/bin/env python3
"""Builds melange_device_check without CMake, from what CMake wrote.

    scripts/device_check_build.py BUILD [--check]

BUILD is a build folder that CMake configured (Unix Makefiles) on another
machine: its compile_commands.json has every source's compile command, and
each target's CMakeFiles/<target>.dir/link.txt its archive or link command.
This runs the compile commands of the targets the check links, then their
link commands, libraries first: the same recipe `cmake --build` would run,
and no list of sources kept anywhere but in CMake's own files. Paths are
moved from the folders CMake saw to where the source and BUILD are now.

--check runs nothing: it confirms that every object a link command names has
a compile command (a source missing from the recipe fails here, not in a
link on the GPU machine), and prints how many.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK_TARGET = "melange_device_check"


def cache_value(build, key):
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(rf"^{key}:\w+=(.*)$", line.strip())
            if m:
                return m.group(1)
    raise SystemExit(f"device_check_build: {key} is not in {build}/CMakeCache.txt; configure BUILD with CMake")


class Recipe:
    """The compile and link commands of the check and the libraries it links, moved to where they run now."""

    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.moves = [(cache_value(build, "CMAKE_CACHEFILE_DIR"), self.build),
                      (cache_value(build, "CMAKE_HOME_DIRECTORY"), ROOT)]
        self.compiles = {}  # object (absolute) -> (directory, command)
        with open(os.path.join(self.build, "compile_commands.json")) as f:
            for entry in json.load(f):
                directory = self.moved(entry["directory"])
                command = self.moved(entry["command"])
                output = entry.get("output") or re.search(r"-o (\S+)", command).group(1)
                self.compiles[os.path.normpath(os.path.join(directory, output))] = (directory, command)

    def moved(self, text):
        for old, new in self.moves:
            text = text.replace(old, new)
        return text

    def link_of(self, directory, target):
        """(directory, commands, objects, archives) of a target's link.txt."""
        path = os.path.join(directory, "CMakeFiles", f"{target}.dir", "link.txt")
        if not os.path.exists(path):
            raise SystemExit(f"device_check_build: no {path}: configure BUILD with the Unix Makefiles generator")
        commands = [self.moved(line.strip()) for line in open(path) if line.strip()]
        words = [w for c in commands for w in shlex.split(c)]
        objects = [os.path.normpath(os.path.join(directory, w)) for w in words if w.endswith(".o")]
        archives = [os.path.normpath(os.path.join(directory, w)) for w in words
                    if w.endswith(".a") and os.path.basename(w).startswith("libmelange")]
        return directory, commands, objects, archives

    def target_of(self, archive):
        """The target whose link.txt writes `archive` (its output name may differ from the target's)."""
        folder = os.path.join(os.path.dirname(archive), "CMakeFiles")
        for entry in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
            link = os.path.join(folder, entry, "link.txt")
            if entry.endswith(".dir") and os.path.exists(link):
                words = shlex.split(open(link).readline())
                if os.path.basename(archive) in [os.path.basename(w) for w in words[:4]]:
                    return entry[:-len(".dir")]
        raise SystemExit(f"device_check_build: no target writes {archive}: configure BUILD with Unix Makefiles")

    def links(self):
        """The link steps, each library before whatever links it."""
        check = self.link_of(os.path.join(self.build, "tests"), CHECK_TARGET)
        steps, seen = [], set()

        def visit(archive):
            if archive in seen:
                return
            seen.add(archive)
            step = self.link_of(os.path.dirname(archive), self.target_of(archive))
            for inner in step[3]:
                visit(inner)
            steps.append(step)

        for archive in check[3]:
            visit(archive)
        return steps + [check]


def run(directory, command):
    os.makedirs(directory, exist_ok=True)
    subprocess.run(command, shell=True, cwd=directory, check=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build")
    p.add_argument("--check", action="store_true", help="confirm the recipe is whole; run nothing")
    a = p.parse_args()
    recipe = Recipe(a.build)
    steps = recipe.links()
    objects = [o for _, _, objs, _ in steps for o in objs]
    missing = [o for o in objects if o not in recipe.compiles]
    if missing:
        print(f"device_check_build: {len(missing)} object(s) have no compile command, first "
              f"{os.path.relpath(missing[0], recipe.build)}: reconfigure BUILD", file=sys.stderr)
        return 1
    if a.check:
        print(f"device_check_build: {len(objects)} objects in {len(steps)} link steps, each with its compile command")
        return 0
    def compile_one(o):
        directory, command = recipe.compiles[o]
        os.makedirs(os.path.dirname(o), exist_ok=True)
        print(f"compiling {os.path.relpath(o, recipe.build)}", flush=True)
        run(directory, command)

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        list(pool.map(compile_one, objects))
    for directory, commands, _, _ in steps:
        for command in commands:
            run(directory, command)
    print(f"built {os.path.join(recipe.build, 'tests', CHECK_TARGET)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
