#!/usr/bin/env bash
# Accumulating fuzzing: runs each fuzz target for MINUTES, resuming from the committed corpus
# (fuzz/corpus/<target>), merges what it found back into a minimised corpus, and appends one line
# per target to fuzz/LOG.md (date, commit, target, seconds, executions, corpus size, outcome).
# Commit fuzz/corpus and fuzz/LOG.md afterwards: the corpus is the fuzzers' memory across runs,
# the log is the record of hours run per target (issue 34).
#
#   fuzz/run.sh 30                      # every target for 30 minutes each
#   fuzz/run.sh 120 lint_bytes          # one target for two hours
#   JOBS=2 fuzz/run.sh 60 structured    # two fuzzing processes on one corpus
#   TIMEOUT=5 RSS_MB=512 MALLOC_MB=128  # the bounds (defaults below)
#
# Unlike the CI smoke (smoke.sh), a blow-up counts as a failure, not only a panic: an input may take
# at most TIMEOUT seconds (default 5; the product's bound is 1 s + 1 s per MB of file, this build is
# instrumented and unoptimised in its checks) and the process at most RSS_MB (default 512; the bound
# for a 64 KB input is 64 MB + 40 x its size, plus libFuzzer's own corpus) and one allocation at most
# MALLOC_MB (default 128). Reproducers land in fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")"
minutes=${1:?usage: fuzz/run.sh MINUTES [TARGET...]}
shift
targets=${*:-lint_bytes structured constraints}
jobs=${JOBS:-1}
timeout=${TIMEOUT:-5}
rss_mb=${RSS_MB:-512}
malloc_mb=${MALLOC_MB:-128}

# The same instrumented build as the smoke (it documents the flags); FUZZ_SECONDS=0 only builds.
FUZZ_SECONDS=0 FUZZ_BUILD_ONLY=1 ./smoke.sh
host=$(rustc -vV | sed -n 's/^host: //p')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)

status=0
for target in $targets; do
    corpus="corpus/$target"
    fresh="target/$target.found"
    mkdir -p "$corpus" "artifacts/$target" "$fresh"
    if [ "$target" = lint_bytes ] && [ -z "$(ls -A "$corpus")" ]; then
        find ../tests/models -maxdepth 1 -name '*.onnx' -type f -size -64k -exec cp {} "$corpus/" \;
    fi
    log="target/$target.run.log"
    seconds=$((minutes * 60))
    echo "fuzz run: $target for ${minutes} min ($jobs job(s)), resuming from $(ls "$corpus" | wc -l) inputs"
    # New inputs go to $fresh; the committed corpus is read only, then merged (minimised) below.
    # With JOBS > 1 libFuzzer writes one fuzz-N.log per job into its working directory: each
    # target gets its own, so that targets run side by side do not share logs.
    work="target/$target.work"
    rm -rf "$work" && mkdir -p "$work"
    parallel=()
    [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
    before=$(ls -p "artifacts/$target" | { grep -v / || true; } | sort)
    began=$(date +%s)
    failed=0
    (cd "$work" && nice "../$host/release/$target" "../../$fresh" "../../$corpus" \
        -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb="$rss_mb" \
        -malloc_limit_mb="$malloc_mb" -max_len=65536 -print_final_stats=1 "${parallel[@]}" \
        -artifact_prefix="../../artifacts/$target/") >"$log" 2>&1 || failed=1
    ran=$(( $(date +%s) - began ))
    execs=$( { cat "$log" "$work"/fuzz-*.log 2>/dev/null || true; } \
        | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s+=$1} END {print s+0}')
    # libFuzzer's timeout is wall-clock time, so on a machine busy with other work a fast input
    # can pass it (and stop the run). Each new timeout is replayed alone: one that runs within the
    # bound there is kept apart in artifacts/<target>/under-load/ and named in the log's outcome;
    # any other new artifact (a crash, an out-of-memory, a timeout that replays slow) fails.
    new=$(comm -13 <(echo "$before") <(ls -p "artifacts/$target" | { grep -v / || true; } | sort))
    real=()
    under_load=0
    for artifact in $new; do
        if [[ $artifact == timeout-* ]] \
            && timeout "$timeout" "target/$host/release/$target" "artifacts/$target/$artifact" >/dev/null 2>&1; then
            mkdir -p "artifacts/$target/under-load"
            mv "artifacts/$target/$artifact" "artifacts/$target/under-load/"
            under_load=$((under_load + 1))
        else
            real+=("$artifact")
        fi
    done
    if [ "${#real[@]}" -gt 0 ]; then
        outcome="FAILED (${real[*]})"
        status=1
        tail -n 40 "$log"
    elif [ "$failed" = 1 ] && [ "$under_load" = 0 ]; then
        outcome="FAILED (the fuzzer stopped without an artifact; see fuzz/$log)"
        status=1
    elif [ "$under_load" -gt 0 ]; then
        outcome="ok; stopped by $under_load timeout(s) under load that replay alone within ${timeout}s"
    else
        outcome=ok
    fi
    merged="target/$target.merged"
    rm -rf "$merged" && mkdir -p "$merged"
    nice "target/$host/release/$target" -merge=1 -timeout="$timeout" -rss_limit_mb="$rss_mb" \
        -malloc_limit_mb="$malloc_mb" -max_len=65536 "$merged" "$corpus" "$fresh" \
        >"target/$target.merge.log" 2>&1 || echo "fuzz run: merge of $target failed (see fuzz/target/$target.merge.log)"
    if [ -n "$(ls -A "$merged")" ]; then
        rm -rf "$corpus" && mv "$merged" "$corpus"
    fi
    rm -rf "$fresh"
    size=$(ls "$corpus" | wc -l)
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$(date -u +%Y-%m-%dT%H:%MZ)" "$commit" \
        "$target" "$((ran * jobs))" "$execs" "$size" "$outcome" >>LOG.md
    echo "fuzz run: $target: $execs executions, corpus $size inputs, $outcome"
done
exit "$status"
