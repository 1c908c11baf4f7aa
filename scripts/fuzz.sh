#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ and runs each one.
#
# The targets link libFuzzer through the libfuzzer-sys crate and are built
# with the stable toolchain: coverage comes from LLVM's sanitizer-coverage
# pass, which stable rustc runs through -C passes and -C llvm-args. (cargo
# fuzz would want a nightly toolchain for its sanitizer flags.)
#
#   npm run fuzz                      short, deterministic: a fixed seed and a
#                                     fixed number of runs per target, from an
#                                     empty corpus (about a minute, plus the
#                                     first build)
#   FUZZ_SECONDS=3600 npm run fuzz    longer: each target for that many seconds,
#                                     growing a corpus kept in fuzz/corpus/
#   npm run fuzz -- filter            one target only; later arguments go to
#                                     libFuzzer as they are (e.g. -jobs=2)
#
# FUZZ_SEED picks another seed. A crash leaves its input in
# fuzz/artifacts/<target>/; replay it with
#   fuzz/target/<host>/release/<target> fuzz/artifacts/<target>/crash-…
# and turn it into a test in tests/fuzz_regressions.rs.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

declare -A RUNS=([filter]=400000 [empty_lookup]=500000 [sketch]=300000)
targets=()
while [ $# -gt 0 ] && [ -n "${RUNS[$1]+known}" ]; do
  targets+=("$1")
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=(filter empty_lookup sketch)

host=$(rustc -vV | sed -n 's/^host: //p')
# --target keeps these flags off build scripts and proc macros.
RUSTFLAGS="-C passes=sancov-module \
  -C llvm-args=-sanitizer-coverage-level=4 \
  -C llvm-args=-sanitizer-coverage-inline-8bit-counters \
  -C llvm-args=-sanitizer-coverage-pc-table \
  -C llvm-args=-sanitizer-coverage-trace-compares \
  -C debug-assertions -C overflow-checks --cfg fuzzing" \
  cargo build --quiet --release --target "$host" --bins

seed=${FUZZ_SEED:-1}
status=0
for target in "${targets[@]}"; do
  mkdir -p "artifacts/$target"
  if [ -n "${FUZZ_SECONDS:-}" ]; then
    corpus="corpus/$target"
    mkdir -p "$corpus"
    bound=(-max_total_time="$FUZZ_SECONDS")
  else
    corpus=$(mktemp -d)
    bound=(-runs="${RUNS[$target]}")
  fi
  echo "fuzz: $target, seed $seed, ${bound[*]}"
  if ! "target/$host/release/$target" "$corpus" -seed="$seed" "${bound[@]}" -max_len=1024 \
    -artifact_prefix="artifacts/$target/" -print_final_stats=1 "$@" 2>"artifacts/$target/last-run.log"; then
    status=1
    grep -v '^#[0-9]' "artifacts/$target/last-run.log" | tail -40
    echo "fuzz: $target FAILED; the input is in fuzz/artifacts/$target/"
  else
    grep -E '^stat::(number_of_executed_units|new_units_added)|^Done' "artifacts/$target/last-run.log" || true
  fi
  [ -n "${FUZZ_SECONDS:-}" ] || rm -rf "$corpus"
done
exit $status
