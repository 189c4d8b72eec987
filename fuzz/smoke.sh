#!/usr/bin/env bash
# Fuzz smoke for CI: builds the fuzz targets and runs each for FUZZ_SECONDS (default 30) seeded
# with tests/models; exits non-zero on a crash, an out-of-memory or a timeout (libFuzzer's own exit
# code). It builds with plain `cargo` and the instrumentation flags cargo-fuzz would pass, not with
# `cargo fuzz`: installing cargo-fuzz takes about 3.5 minutes on a CI machine, the build does not
# need it, and no nightly flag is involved (so neither nightly nor RUSTC_BOOTSTRAP). ASan is left
# out: the crate forbids unsafe code outside the memory map, and it would cost 2-3x in speed.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${FUZZ_SECONDS:-30}
# FUZZ_TARGETS="constraints" runs only some targets (default: all three).
targets=${FUZZ_TARGETS:-lint_bytes structured constraints}

export CARGO_TARGET_DIR="$PWD/target"
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# No --locked: fuzz/Cargo.lock also pins the root crate's dependencies, so a dependency added
# there would fail the smoke until someone refreshed this lock by hand.
# An explicit --target keeps RUSTFLAGS off build scripts and proc macros (as cargo-fuzz does):
# instrumented host code would not link without libFuzzer.
host=$(rustc -vV | sed -n 's/^host: //p')
nice cargo build --release --bins --target "$host"
# run.sh builds through this script so that the flags are written once.
[ -n "${FUZZ_BUILD_ONLY:-}" ] && exit 0

status=0
for target in $targets; do
    # The committed corpus (run.sh keeps it) is read, never written: new inputs go to a scratch
    # directory, so a smoke run leaves the checkout as it was.
    corpus="corpus/$target"
    scratch="target/$target.smoke"
    rm -rf "$scratch"
    mkdir -p "$corpus" "$scratch" "artifacts/$target"
    if [ "$target" = lint_bytes ]; then
        # Seeds: the fixtures, except the multi-megabyte ones (they would set libFuzzer's max_len).
        find ../tests/models -maxdepth 1 -name '*.onnx' -type f -size -64k -exec cp {} "$scratch/" \;
    fi
    echo "fuzz smoke: $target for ${seconds}s"
    if ! nice "target/$host/release/$target" "$scratch" "$corpus" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="artifacts/$target/" 2>"target/$target.log"; then
        tail -n 40 "target/$target.log"
        echo "fuzz smoke: $target FAILED; reproducer in fuzz/artifacts/$target/"
        status=1
    else
        grep -E 'stat::(number_of_executed_units|average_exec_per_sec)' "target/$target.log" || true
    fi
done
exit "$status"
