#!/usr/bin/env bash
# Installs what is missing, then configures and builds melange into build/.
#
#   bash scripts/build.sh               the melange program alone, Release: what the
#                                       main job needs (the SIMD kernels of this CPU,
#                                       CUDA only where a GPU is seen)
#   bash scripts/build.sh --with-cuda   the same with the CUDA backend
#   bash scripts/build.sh --all         everything: tests, benchmarks, the fuzz target,
#                                       the Python module, every SIMD architecture's
#                                       kernels, CUDA where nvcc is (the test command)
# Further arguments go to cmake's configure step (-DMELANGE_WITH_MPI=OFF, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
all=0 cuda=auto
args=()
for a in "$@"; do
  case "$a" in
    --all) all=1 ;;
    --with-cuda) cuda=ON ;;
    *) args+=("$a") ;;
  esac
done
bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
# The Python module is built for the interpreter that has NumPy: Debian's
# /usr/bin/python3 (the first python3 on PATH may be another one).
python=()
[ -x /usr/bin/python3 ] && python=(-DPython3_EXECUTABLE=/usr/bin/python3)
if [ "$all" = 1 ]; then
  parts=(-DMELANGE_BUILD_TESTS=ON -DMELANGE_BUILD_BENCH=ON -DMELANGE_BUILD_EXAMPLES=ON -DMELANGE_WITH_PYTHON=ON
         -DMELANGE_WITH_CUDA=ON "-DMELANGE_SIMD_ARCHS=avx512vbmi;avx512;avx2")
else
  # The CUDA kernels take most of a whole build: only for a GPU that is here, or when asked.
  if [ "$cuda" = auto ]; then
    cuda=OFF
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && cuda=ON
  fi
  # The SIMD kernels of this CPU alone (the widest it runs): each kernel file
  # is about a sixth of a build. --all builds every architecture's.
  parts=(-DMELANGE_BUILD_TESTS=OFF -DMELANGE_BUILD_BENCH=OFF -DMELANGE_BUILD_EXAMPLES=OFF -DMELANGE_WITH_PYTHON=OFF
         -DMELANGE_WITH_CUDA="$cuda" -DMELANGE_SIMD_ARCHS=native)
fi
# The quick build runs under Ninja, which starts a library's files before
# the libraries below it are linked (make waits for them): a quarter less
# time. A build folder keeps the generator it was made with.
generator=()
[ "$all" = 0 ] && [ ! -f build/CMakeCache.txt ] && command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${python[@]}" "${parts[@]}" "${args[@]}"
cmake --build build -j"$jobs"
if [ "$all" = 0 ]; then
  echo "melange is built: ./build/cli/melange (melange version says which)."
  echo "To put it on PATH: cmake --install build --prefix ~/.local  (then ~/.local/bin/melange; man melange)"
fi
