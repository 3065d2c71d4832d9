#!/usr/bin/env bash
# Side by side, in one run, measured one way: melange's rows, both scalar
# peers (std::shuffle + std::mt19937_64, and Fisher-Yates by batched ranged
# integers over lehmer64, the fastest scalar shuffle known) and the Philox
# limit all come from `melange bench` (in-process runs sized by its
# warm-up, every side run in turn, medians of 5), so the ratios here are
# the bench's own. Added beside them: NumPy doing the same audit, the peer
# built -O3 -march=native as a check that the bench's build of it is no
# slower, the sort one-liners against melange's coin-by-coin reference
# loop, and raw Philox words (melange SIMD against Random123 scalar).
# Usage: compare.sh MELANGE BATCHED_SHUFFLE_AUDIT MELANGE_BENCH [SECONDS]
#   MELANGE_BACKEND=avx2 pins the architecture (default: simd, the widest).
set -euo pipefail
melange=$1 native_peer=$2 bench=$3 seconds=${4:-40}
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-/usr/bin/python3}
backend=${MELANGE_BACKEND:-simd}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

# The median of 3 runs of a command that prints a rate as field $field.
median_rate() {
  local field=$1; shift
  for _ in 1 2 3; do "$@" | awk -v f="$field" 'NF >= f { print $f }' | tail -1; done |
    sort -g | awk '{ r[NR] = $1 } END { print r[int((NR + 1) / 2)] }'
}

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo "# melange compare: $cpu, $(getconf _NPROCESSORS_ONLN) hardware threads; melange on $backend"

# melange bench, one document per method: fisher-yates at n = 4 (rank
# histogram, one Philox block a trial) and 52 (position matrix), 1 and 2 threads.
for method in batched lemire; do
  "$melange" bench --algo fisher-yates --n 4,8,52 --backend "$backend" --threads 1,2 --method "$method" \
    --seconds "$seconds" --quiet --json "$scratch/$method.json" >/dev/null
done
"$melange" bench --algo sort-binary-insertion,sort-v8-timsort --n 4 --backend "$backend" --threads 1,2 \
  --seconds "$((seconds / 2 + 1))" --quiet --json "$scratch/sorts.json" >/dev/null

# NumPy's rate for the rows' audits, and the -march=native peer's.
numpy_n4=$(median_rate 3 "$python" "$here/numpy_audit.py" rank 4 5e6)
numpy_n8=$(median_rate 3 "$python" "$here/numpy_audit.py" rank 8 2e6)
numpy_n52=$(median_rate 3 "$python" "$here/numpy_audit.py" position 52 1e6)
native_n4=$(median_rate 3 "$native_peer" rank 4 2e7)
native_n8=$(median_rate 3 "$native_peer" rank 8 1e7)
native_n52=$(median_rate 3 "$native_peer" position 52 2e6)
reference=$("$bench" --benchmark_filter='BM_ReferenceLoop' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
  awk -F, '/_median/ { print $7 }' | paste -sd, -)
philox=$("$bench" --benchmark_filter='BM_Philox' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=csv 2>/dev/null |
  awk -F, '/_median/ { gsub(/"/, "", $1); sub(/_median/, "", $1); printf "%s=%s,", $1, $7 }')

"$python" - "$scratch" "$numpy_n4,$numpy_n8,$numpy_n52" "$native_n4,$native_n8,$native_n52" "$reference" "$philox" <<'PY'
import json, sys
scratch, numpy, native, reference, philox = sys.argv[1:]
numpy = dict(zip((4, 8, 52), map(float, numpy.split(","))))
native = dict(zip((4, 8, 52), map(float, native.split(","))))

def rows(name):
    with open(f"{scratch}/{name}.json") as f:
        doc = json.load(f)
    return doc, {(r["algorithm"], r["n"], r["threads"]): r for r in doc["rows"]}

doc, _ = rows("batched")
print(f"# melange bench on {doc['rows'][0]['ran_on']}: {doc['repeats']} runs of each side in turn, medians; "
      f"std::shuffle, batched peer and limit measured beside each row on as many threads")
head = ("job (1 thread)", "melange", "words", "2 threads", "std::shuffle", "batched", "numpy",
        "vs std", "vs batched", "vs numpy", "of limit", "peer -march=native")
print("%-38s %10s %6s %10s %12s %10s %10s %7s %10s %9s %8s %18s" % head)
for method in ("batched", "lemire"):
    _, by = rows(method)
    for n, tally in ((4, "ranks"), (8, "ranks"), (52, "positions")):
        one, two = by[("fisher-yates", n, 1)], by[("fisher-yates", n, 2)]
        m = one["shuffles_per_second"]["median"]
        limit = one["limit_fraction"]
        mark = "?" if one["noisy"] else ""
        print("%-38s %9.3e%1s %6.2f %10.3e %12.3e %10.3e %10.3e %6.1fx %9.1fx %8.1fx %8s %10.3e (%.2fx)" % (
            f"fisher-yates n={n}, {tally}, {method}", m, mark, one["words_per_trial"],
            two["shuffles_per_second"]["median"], one["std_shuffle_per_second"], one["batched_per_second"],
            numpy[n], one["ratio"], one["batched_ratio"], m / numpy[n],
            "-" if limit is None else "%.2f" % limit,
            native[n], native[n] / one["batched_per_second"]))
_, sorts = rows("sorts")
refs = [float(x) for x in reference.split(",") if x]
for k, algo in enumerate(("sort-binary-insertion", "sort-v8-timsort")):
    r = sorts[(algo, 4, 1)]
    m = r["shuffles_per_second"]["median"]
    lim = r["limit_fraction"]
    print(f"{algo} n=4, ranks: {m:.3e}/s, {r['words_per_trial']:.2f} words, 2 threads "
          f"{sorts[(algo, 4, 2)]['shuffles_per_second']['median']:.3e}/s; reference loop {refs[k]:.3e}/s "
          f"({m / refs[k]:.1f}x); of limit {'-' if lim is None else '%.2f' % lim}")
rate = dict(kv.split("=") for kv in philox.strip(",").split(",") if kv)
simd, scalar, r123 = (float(rate[k]) for k in ("BM_PhiloxSimd", "BM_PhiloxScalar", "BM_PhiloxRandom123"))
print(f"raw Philox words/s: simd {simd:.3e}, melange scalar {scalar:.3e}, Random123 scalar {r123:.3e}; "
      f"simd {simd / r123:.1f}x Random123")
print("?: a row whose runs spread over 10% (melange bench says why); peer -march=native: "
      "batched_shuffle_audit (bench/), the same source, and its rate over the bench's batched peer")
PY
