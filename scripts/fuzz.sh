#!/usr/bin/env bash
# Fuzzes the record readers (audit --input) for a bounded time with libFuzzer
# under ASan and UBSan; new inputs that reach new code are kept in a scratch
# corpus beside the seed corpus in tests/fuzz/corpus. Needs clang.
# Usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
work=${TMPDIR:-/tmp}/melange-fuzz
mkdir -p "$work/corpus"
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Icore/include tests/fuzz/fuzz_records.cpp core/src/records.cpp core/src/rank.cpp core/src/error.cpp \
  -o "$work/fuzz_records"
"$work/fuzz_records" -max_total_time="$seconds" -timeout=5 "$work/corpus" tests/fuzz/corpus
