#!/usr/bin/env bash
# The GPU proof, as one command on a machine with an NVIDIA GPU (sm_90):
# builds melange_device_check with CMake (the same target CI builds and runs
# the CPU half of), or without it from the commands CMake wrote into a
# folder it configured elsewhere (scripts/device_check_build.py), runs it
# under a watchdog, and samples the SM clock while
# it runs. Every section prints as it ends, so a run cut short loses only the
# section it was in. Exit status: the check's (0 when no check failed; a
# MISS against a speed target is reported, not failed), 124 past the limit.
#
#   scripts/device-check.sh [--cpu-only] [--quick]     (arguments go to the check)
#
# MELANGE_CHECK_SECONDS (default 240) is the check's own watchdog; `timeout`
# stands behind it 20 s later, and kills 10 s after that.
# MELANGE_DEVICE_PREBUILT=1 runs the check already built in $build (built for
# sm_90 on a machine with the build's packages, and carried to one that has
# the GPU but not the headers): nothing is compiled. After the check, ncu
# profiles the benchmarks' audit kernels where it is installed
# (MELANGE_DEVICE_PROFILE=0: not), into MELANGE_PROFILE_FILE (default stdout).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MELANGE_DEVICE_BUILD:-build-device}
jobs=$(nproc 2>/dev/null || echo 2)

start=$(date +%s)
if [ "${MELANGE_DEVICE_PREBUILT:-0}" = 1 ]; then
  [ -x "$build/tests/melange_device_check" ] || {
    echo "device-check: MELANGE_DEVICE_PREBUILT=1, but $build/tests/melange_device_check is not there: build it first" >&2
    exit 2
  }
  echo "== the check built before, in $build"
elif command -v cmake >/dev/null; then
  python=()
  [ -x /usr/bin/python3 ] && python=(-DPython3_EXECUTABLE=/usr/bin/python3)
  echo "== building melange_device_check for sm_${CUDA_ARCH:-90} in $build"
  mkdir -p "$build"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" "${python[@]}" \
    >"$build/configure.log" 2>&1 || { tail -20 "$build/configure.log"; exit 1; }
  cmake --build "$build" -j"$jobs" --target melange_device_check >"$build/build.log" 2>&1 ||
    { tail -30 "$build/build.log"; exit 1; }
elif [ -f "$build/compile_commands.json" ]; then
  # No CMake here: CMake's own commands, from a folder it configured elsewhere.
  echo "== building melange_device_check from the commands CMake wrote in $build"
  python3 scripts/device_check_build.py "$build" >"$build/build.log" 2>&1 || { tail -30 "$build/build.log"; exit 1; }
else
  echo "device-check: no CMake here, and no folder it configured at $build: run" \
    "'cmake -S . -B $build -DCMAKE_CUDA_ARCHITECTURES=90' where CMake is, and bring $build along" >&2
  exit 2
fi
echo "== built in $(( $(date +%s) - start )) s"

check=$build/tests/melange_device_check
clocks=$(mktemp)
sampler=""
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv,noheader || true
  # The SM clock during the run, twice a second (an idle reading says little).
  nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits -lms 500 >"$clocks" 2>/dev/null &
  sampler=$!
fi
export MELANGE_CHECK_SECONDS=${MELANGE_CHECK_SECONDS:-240}
status=0
timeout -k 10 $((MELANGE_CHECK_SECONDS + 20)) "$check" "$@" || status=$?
if [ -n "$sampler" ]; then
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  sort -n "$clocks" | awk 'NF { v[n++] = $1 } END {
    if (n) printf "SM clock during the run (MHz): min %d, median %d, max %d (%d samples)\n", v[0], v[int(n/2)], v[n-1], n }'
fi
rm -f "$clocks"
# Where the benchmarks' audit kernels spend their time, when the profiler is
# there (MELANGE_DEVICE_PROFILE=0 leaves it out): one launch of each, the
# clocks left as they are, the report into $MELANGE_PROFILE_FILE or stdout.
if [ "${MELANGE_DEVICE_PROFILE:-1}" = 1 ] && command -v ncu >/dev/null; then
  echo "== profile of the audit kernels (ncu)"
  profile=${MELANGE_PROFILE_FILE:-/dev/stdout}
  timeout -k 10 "${MELANGE_PROFILE_SECONDS:-120}" ncu --clock-control none --kernel-name regex:audit_kernel \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats \
    "$check" --profile >"$profile" 2>&1 || echo "profile: ncu stopped with status $? (see $profile)"
  [ "$profile" = /dev/stdout ] || grep -E "audit_kernel|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|No Eligible" "$profile" || true
fi
exit "$status"
