"""Runs what the README's front page shows, so that it cannot drift from the
program: the main job's melange commands (into a scratch folder), every
`$ melange ...` example (each line shown of its output must be in what it
prints, the machine-dependent backend line aside), and the Python snippet.
The C++ program is compiled and run by the readme_cpp test.

usage: readme_check.py README CLI PYTHONPATH"""
import os
import re
import shlex
import subprocess
import sys
import tempfile


def blocks(text):
    """The README's indented code blocks, each as a list of its lines."""
    found, block = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("    "):
            block.append(line[4:])
        elif line.strip() == "" and block:
            block.append("")
        else:
            if block:
                while block and block[-1] == "":
                    block.pop()
                found.append(block)
            block = []
    return found


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def main_job(text, cli, scratch):
    line = next(l.strip() for l in text.splitlines() if l.strip().startswith("bash scripts/build.sh && "))
    commands = line.split(" && ")[1:]
    assert commands, line
    for command in commands:
        args = shlex.split(command)
        if args[0] == "./build/cli/melange":
            run([cli, *args[1:]], scratch)
        elif args[:2] == ["mkdir", "-p"]:
            os.makedirs(os.path.join(scratch, args[2]), exist_ok=True)
        else:
            sys.exit(f"the main job has a step this check does not know: {command}")
    for made in ("out/one-liner.svg", "out/one-liner/index.html", "out/fisher-yates.svg"):
        assert os.path.getsize(os.path.join(scratch, made)) > 0, made
    return len(commands)


def examples(text, cli, scratch):
    checked = 0
    for block in blocks(text):
        if not block[0].startswith("$ melange "):
            continue
        printed = run([cli, *shlex.split(block[0])[2:]], scratch)
        for shown in block[1:]:
            if shown.strip() in ("", "...") or "backend " in shown:
                continue
            assert shown.strip() in printed, f"README shows '{shown.strip()}', which '{block[0]}' does not print"
        checked += 1
    return checked


def python_snippet(text, pythonpath, scratch):
    block = next(b for b in blocks(text) if b[0].startswith("import melange"))
    env = dict(os.environ, PYTHONPATH=pythonpath)
    p = subprocess.run([sys.executable, "-c", "\n".join(block)], cwd=scratch, env=env, capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert re.search(r"\(10000, 5\) 1 FAIL", p.stdout), p.stdout


def main():
    readme, cli, pythonpath = sys.argv[1:4]
    text = open(readme, encoding="utf-8").read()
    with tempfile.TemporaryDirectory() as scratch:
        steps = main_job(text, cli, scratch)
        shown = examples(text, cli, scratch)
        assert shown >= 1, "the README shows no '$ melange' example"
        python_snippet(text, pythonpath, scratch)
    print(f"README: the main job's {steps} steps, {shown} example(s) and the Python snippet ran as shown")


if __name__ == "__main__":
    main()
