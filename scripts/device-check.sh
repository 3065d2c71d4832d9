#!/usr/bin/env bash
# The GPU proof, as one command on a machine with an NVIDIA GPU (sm_90):
# builds the CUDA backend and melange_device_check with nvcc alone (no Debian
# packages needed), runs the checks (GPU tallies = CPU tallies bit for bit
# for every algorithm x {lemire, batched} x n in {4, 6, 7, 9, 11, 52, 110,
# 128} x {ranks, positions, both}, one run past 2^32 trials, samples (into host
# memory, and left in device memory by fill_device), stream
# words = cuRAND's), each under try/catch with a FAIL line, then the GPU and
# CPU benchmarks, and prints a table last with each row's target and
# PASS/MISS. Under 8 minutes; exit status 0 when every check passes.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${CUDA_ARCH:-90}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
work=${MELANGE_DEVICE_BUILD:-${TMPDIR:-/tmp}/melange-device-check}
mkdir -p "$work/include/melange" "$work/obj"

version=$(sed -n 's/^project(melange VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
sed "s/@PROJECT_VERSION@/$version/" core/include/melange/version.hpp.in >"$work/include/melange/version.hpp"

flags=(-std=c++20 -O3 "-arch=sm_$arch" --expt-relaxed-constexpr -Icore/include -Iengine/include
       -Icuda/include "-I$work/include" -DMELANGE_HAVE_CUDA=1 -Xcompiler=-pthread)
sources=(core/src/algorithms.cpp core/src/bounded.cpp core/src/decision_table.cpp core/src/error.cpp core/src/histogram.cpp
         core/src/job.cpp core/src/rank.cpp core/src/trial.cpp
         engine/src/backend_scalar.cpp engine/src/backend_table.cpp engine/src/engine.cpp engine/src/serve.cpp
         cuda/src/backend.cu cuda/src/curand_words.cu cuda/src/device.cu cuda/src/stream_words.cu
         cuda/check/device_check.cpp)

echo "== building for sm_$arch with $("$nvcc" --version | tail -1)"
start=$(date +%s)
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c \
  'src={}; obj='"$work"'/obj/$(echo "$src" | tr / _).o; exec "$0" "$@" -c "$src" -o "$obj"' \
  "$nvcc" "${flags[@]}"
"$nvcc" "${flags[@]}" "$work"/obj/*.o -o "$work/melange_device_check"
echo "== built in $(( $(date +%s) - start )) s"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,memory.total --format=csv,noheader 2>/dev/null || true
echo "== checks and benchmarks"
# The program's own watchdog prints a FAIL line at MELANGE_CHECK_SECONDS;
# `timeout` is the backstop behind it.
export MELANGE_CHECK_SECONDS=${MELANGE_CHECK_SECONDS:-420}
timeout $((MELANGE_CHECK_SECONDS + 30)) "$work/melange_device_check"
