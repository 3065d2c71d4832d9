#!/bin/sh
# The device check's CPU half must catch a job no plan accepts: it plants one
# (128 choose 7 hands, 9.45e10 bins) and must print its FAIL line and exit 1.
check=$1
out=$2
"$check" --cpu-only --quick --plant-impossible-job >"$out" 2>&1
status=$?
if ! grep -q '^FAIL  tallies = CPU: partial n=128 k=7' "$out"; then
  echo "the planted job was not caught:"; tail -20 "$out"; exit 1
fi
[ "$status" -eq 1 ] || { echo "exit status $status, expected 1"; exit 1; }
grep '^FAIL' "$out"
