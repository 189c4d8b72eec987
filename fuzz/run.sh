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
    outcome=ok
    # New inputs go to $fresh; the committed corpus is read only, then merged (minimised) below.
    if ! nice "target/$host/release/$target" "$fresh" "$corpus" -max_total_time="$seconds" \
        -timeout="$timeout" -rss_limit_mb="$rss_mb" -malloc_limit_mb="$malloc_mb" \
        -max_len=65536 -print_final_stats=1 -jobs="$jobs" -workers="$jobs" \
        -artifact_prefix="artifacts/$target/" >"$log" 2>&1; then
        outcome="FAILED ($(ls "artifacts/$target" | head -n 3 | tr '\n' ' '))"
        status=1
        tail -n 40 "$log"
    fi
    # -jobs>1 writes per-job logs; the stats lines are summed over whatever logs exist.
    execs=$(cat "$log" fuzz-*.log 2>/dev/null \
        | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s+=$1} END {print s+0}')
    rm -f fuzz-*.log
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
        "$target" "$((seconds * jobs))" "$execs" "$size" "$outcome" >>LOG.md
    echo "fuzz run: $target: $execs executions, corpus $size inputs, $outcome"
done
exit "$status"
