#!/usr/bin/env bash
# The auditing guide's recipes (docs/auditing.md): real shufflers' records given to `melange audit FILE`,
# each checked for its verdict. A recipe whose tool is missing is skipped.
# Usage: recipes.sh MELANGE PYTHON
set -euo pipefail
melange=$1 python=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0

# verdict_of ARGS...: the audit's verdict word (PASS, WEAK, FAIL).
verdict_of() { "$melange" audit "$@" --quiet --json - | "$python" -c 'import json, sys; print(json.load(sys.stdin)["verdict"])'; }

expect() {
  local name=$1 want=$2; shift 2
  local got
  got=$(verdict_of "$@")
  if [ "$got" = "$want" ]; then echo "ok    $name: $got"; else echo "FAIL  $name: $got, expected $want"; failed=1; fi
}

# expect_sound NAME ARGS...: PASS or WEAK, not FAIL. For the shufflers this
# script cannot seed (node's Math.random, shuf): a sound one is WEAK in about
# one run in a hundred (a p below 0.005), and FAIL only at p <= 1e-6.
expect_sound() {
  local name=$1; shift
  local got
  got=$(verdict_of "$@")
  case $got in
    PASS | WEAK) echo "ok    $name: $got" ;;
    *) echo "FAIL  $name: $got, expected PASS or WEAK"; failed=1 ;;
  esac
}

if command -v node >/dev/null; then
  node -e 'const o = [];
    for (let i = 0; i < 200000; i++) { const a = [0, 1, 2, 3]; a.sort(() => Math.random() - 0.5); o.push(a.join(" ")); }
    console.log(o.join("\n"));' >"$scratch/node.txt"
  expect "node a.sort(() => Math.random() - 0.5) vs uniform" FAIL "$scratch/node.txt"
  expect_sound "node one-liner vs sort-v8-timsort's exact law" "$scratch/node.txt" --algo sort-v8-timsort --model exact
else
  echo "skip  node: not installed"
fi

"$python" -c 'import random
random.seed(2024)
for _ in range(200000):
    a = list(range(4)); random.shuffle(a); print(*a)' >"$scratch/python.txt"
expect "python random.shuffle" PASS "$scratch/python.txt"

if "$python" -c 'import numpy' 2>&1 | grep -q .; then
  echo "skip  numpy: not importable by $python"
else
  "$python" -c 'import numpy as np
g = np.random.default_rng(2024)
np.save("'"$scratch"'/numpy.npy", np.array([g.permutation(5) for _ in range(100000)], dtype=np.uint16))'
  expect "numpy Generator.permutation as .npy" PASS "$scratch/numpy.npy" --position
fi

if command -v shuf >/dev/null; then
  for _ in $(seq 3000); do shuf -i 0-3 | paste -sd' '; done >"$scratch/shuf.txt"
  expect_sound "shuf -i 0-3" "$scratch/shuf.txt"
else
  echo "skip  shuf: not installed"
fi
exit "$failed"
