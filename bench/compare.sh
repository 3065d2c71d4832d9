#!/usr/bin/env bash
# Side by side on one core, in one run: melange (the simd backend on the
# widest architecture the CPU runs), std::shuffle with std::mt19937_64, and
# NumPy, doing the same audits; plus raw Philox words (melange SIMD against
# Random123 scalar) and melange on two threads.
# Usage: compare.sh MELANGE STD_SHUFFLE_AUDIT MELANGE_BENCH [REPEATS]
set -euo pipefail
melange=$1 peer=$2 bench=$3 repeats=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
cores=$(getconf _NPROCESSORS_ONLN)
# melange's JSON goes to a scratch file (the JSON is written as in a real
# run), removed on exit.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# The median of `repeats` runs of a command that prints a rate as field $field.
median_rate() {
  local field=$1; shift
  for _ in $(seq "$repeats"); do "$@" | awk -v f="$field" 'NF >= f { print $f }' | tail -1; done |
    sort -g | awk '{ r[NR] = $1 } END { print r[int((NR + 1) / 2)] }'
}

# melange's rate, from the trials and the wall time of one audit.
melange_rate() {
  local threads=$1; shift
  local start end
  start=$(date +%s.%N)
  "$melange" audit --threads "$threads" --backend "$backend" "$@" --json "$scratch/audit.json" >"$scratch/audit.txt"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v t="$TRIALS" 'BEGIN { printf "%.6e\n", t / (e - s) }'
}

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
# The SIMD backend on the widest architecture this CPU runs (MELANGE_BACKEND=avx2 pins one).
backend=${MELANGE_BACKEND:-simd}
arch=$("$melange" version | sed -n 's/.*backend simd: available (\([a-z0-9]*\).*/\1/p')
[ "$backend" = simd ] || arch=$backend
echo "# melange compare: $cpu, $cores cores; median of $repeats runs, one core unless noted; melange on simd ($arch)"
printf "%-34s %14s %14s %14s %10s %10s\n" job melange-simd std::shuffle numpy vs-std vs-numpy

row() {
  local name=$1 m=$2 s=$3 p=$4
  awk -v n="$name" -v m="$m" -v s="$s" -v p="$p" \
    'BEGIN { printf "%-34s %14.3e %14.3e %14.3e %9.1fx %9.1fx\n", n, m, s, p, m / s, m / p }'
}

TRIALS=400000000
m4=$(median_rate 1 melange_rate 1 --algo fisher-yates --n 4 --trials $TRIALS)
s4=$(median_rate 3 "$peer" rank 4 2e7)
p4=$(median_rate 3 "$python" "$here/numpy_audit.py" rank 4 5e6)
row "fisher-yates n=4, rank histogram" "$m4" "$s4" "$p4"

TRIALS=40000000
m52=$(median_rate 1 melange_rate 1 --algo fisher-yates --n 52 --position --trials $TRIALS)
s52=$(median_rate 3 "$peer" position 52 2e6)
p52=$(median_rate 3 "$python" "$here/numpy_audit.py" position 52 1e6)
row "fisher-yates n=52, position matrix" "$m52" "$s52" "$p52"

TRIALS=400000000
m4t=$(median_rate 1 melange_rate 2 --algo fisher-yates --n 4 --trials $TRIALS)
awk -v one="$m4" -v two="$m4t" \
  'BEGIN { printf "two threads, n=4: %.3e shuffles/s, %.2fx one thread\n", two, two / one }'

"$bench" --benchmark_filter='BM_Philox' --benchmark_repetitions="$repeats" \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
  awk -F, '/_median/ { gsub(/"/, "", $1); sub(/_median/, "", $1); rate[$1] = $7 }
           END { printf "raw Philox words/s: simd %.3e, melange scalar %.3e, Random123 scalar %.3e; simd %.1fx Random123\n",
                 rate["BM_PhiloxSimd"], rate["BM_PhiloxScalar"], rate["BM_PhiloxRandom123"],
                 rate["BM_PhiloxSimd"] / rate["BM_PhiloxRandom123"] }'
