#!/usr/bin/env bash
# Side by side, in one run: melange (the simd backend on the widest
# architecture the CPU runs) on one core and on two, std::shuffle with
# std::mt19937_64 and Fisher-Yates by batched ranged integers over lehmer64
# (the fastest scalar shuffle known), both built with -O3 -march=native,
# and NumPy, doing the same audits; where a trial reads at most one Philox
# block, melange's share of the machine's Philox block rate (the limit);
# the sort one-liners against melange's own coin-by-coin reference loop;
# raw Philox words (melange SIMD against Random123 scalar).
# Usage: compare.sh MELANGE STD_SHUFFLE_AUDIT MELANGE_BENCH BATCHED_SHUFFLE_AUDIT [REPEATS]
set -euo pipefail
melange=$1 peer=$2 bench=$3 batched=$4 repeats=${5:-5}
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

# Stream words per trial of the last audit, from its JSON.
words_per_trial() {
  sed -n 's/.*"mean_words": *\([0-9.eE+-]*\).*/\1/p' "$scratch/audit.json" | head -1
}

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
# The SIMD backend on the widest architecture this CPU runs (MELANGE_BACKEND=avx2 pins one).
backend=${MELANGE_BACKEND:-simd}
arch=$("$melange" version | sed -n 's/.*backend simd: available (\([a-z0-9]*\).*/\1/p')
[ "$backend" = simd ] || arch=$backend
echo "# melange compare: $cpu, $cores cores; median of $repeats runs; melange on simd ($arch)"
echo "# peers on one core: std::shuffle + std::mt19937_64 and batched Fisher-Yates + lehmer64 (-O3 -march=native), NumPy $("$python" -c 'import numpy; print(numpy.__version__)')"

# The limit: Philox4x32-10 blocks per second on one core, the widest SIMD,
# made and never stored (a block is four words).
limit=$("$bench" --benchmark_filter='BM_PhiloxSimd$' --benchmark_repetitions="$repeats" \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
  awk -F, '/_median/ { printf "%.6e\n", $7 / 4 }')
echo "# Philox limit: $limit blocks/s on one core (of-limit: melange's share, where a trial reads at most one block)"
printf "%-40s %11s %6s %11s %6s %11s %11s %11s %8s %8s %8s %8s\n" job melange words 2-threads x1 std::shuffle batched numpy \
  vs-std vs-batch vs-numpy of-limit

# melange on one core and two, and the peers; prints one row.
peer_row() {
  local name=$1 peer_args=$2 numpy_args=$3; shift 3
  local one words two s b p
  one=$(median_rate 1 melange_rate 1 "$@")
  words=$(words_per_trial)
  two=$(median_rate 1 melange_rate 2 "$@")
  s=$(median_rate 3 "$peer" $peer_args)
  b=$(median_rate 3 "$batched" $peer_args)
  p=$(median_rate 3 "$python" "$here/numpy_audit.py" $numpy_args)
  awk -v n="$name" -v m="$one" -v w="$words" -v t="$two" -v s="$s" -v b="$b" -v p="$p" -v l="$limit" \
    'BEGIN { of = w <= 4 ? sprintf("%.2f", m / l) : "-";
             printf "%-40s %11.3e %6.2f %11.3e %5.2fx %11.3e %11.3e %11.3e %7.1fx %7.1fx %7.1fx %8s\n",
                    n, m, w, t, t / m, s, b, p, m / s, m / b, m / p, of }'
}

TRIALS=400000000
peer_row "fisher-yates n=4, ranks, batched" "rank 4 2e7" "rank 4 5e6" --algo fisher-yates --n 4 --trials $TRIALS
peer_row "fisher-yates n=4, ranks, lemire" "rank 4 2e7" "rank 4 5e6" --algo fisher-yates --n 4 --trials $TRIALS --method lemire
TRIALS=40000000
peer_row "fisher-yates n=52, positions, batched" "position 52 2e6" "position 52 1e6" \
  --algo fisher-yates --n 52 --position --trials $TRIALS
peer_row "fisher-yates n=52, positions, lemire" "position 52 2e6" "position 52 1e6" \
  --algo fisher-yates --n 52 --position --trials $TRIALS --method lemire

# The sort one-liners: their decision tables against the reference loop
# that draws coin by coin (the scalar path before the tables).
reference=$("$bench" --benchmark_filter='BM_ReferenceLoop' --benchmark_repetitions="$repeats" \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
  awk -F, '/_median/ { print $7 }')
printf "%-40s %11s %6s %11s %6s %24s %8s\n" job melange words 2-threads x1 "reference loop" vs-ref
TRIALS=400000000
k=0
for algo in sort-binary-insertion sort-v8-timsort; do
  k=$((k + 1))
  ref=$(echo "$reference" | sed -n "${k}p")
  one=$(median_rate 1 melange_rate 1 --algo $algo --n 4 --trials $TRIALS)
  words=$(words_per_trial)
  two=$(median_rate 1 melange_rate 2 --algo $algo --n 4 --trials $TRIALS)
  awk -v n="$algo n=4, ranks, batched" -v m="$one" -v w="$words" -v t="$two" -v r="$ref" \
    'BEGIN { printf "%-40s %11.3e %6.2f %11.3e %5.2fx %24.3e %7.1fx\n", n, m, w, t, t / m, r, m / r }'
done

"$bench" --benchmark_filter='BM_Philox' --benchmark_repetitions="$repeats" \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
  awk -F, '/_median/ { gsub(/"/, "", $1); sub(/_median/, "", $1); rate[$1] = $7 }
           END { printf "raw Philox words/s: simd %.3e, melange scalar %.3e, Random123 scalar %.3e; simd %.1fx Random123\n",
                 rate["BM_PhiloxSimd"], rate["BM_PhiloxScalar"], rate["BM_PhiloxRandom123"],
                 rate["BM_PhiloxSimd"] / rate["BM_PhiloxRandom123"] }'
