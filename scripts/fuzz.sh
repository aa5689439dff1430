#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/) with AddressSanitizer and runs them.
#
# Usage: scripts/fuzz.sh [--list] [TARGET ...] [--seconds N] [--smoke] [--parallel J] [--seed] [--minimize]
#   --list        names every target (and what it checks), one per line
#   TARGET        run only these targets (default: every target, one after the other)
#   --seconds N   how long each target runs (default 60)
#   --smoke       what CI runs: every target for 15 seconds
#   --parallel J  run J targets at a time (default 1; the machine's cores are the useful limit)
#   --seed        (re)write the seed inputs of Fuzz/Corpus/TARGET from the test fixtures and vectors first
#   --minimize    instead of fuzzing, fold what runs found (.build/fuzz/corpus/TARGET) into Fuzz/Corpus/TARGET and
#                 shrink it to the inputs that keep its coverage (libFuzzer -merge): the one step that changes
#                 the committed corpus
#
# Corpora live in Fuzz/Corpus/TARGET (seeds committed, seeded again automatically when a folder is empty); a run
# reads them and adds the new inputs it finds to .build/fuzz/corpus/TARGET, so running the tests leaves the tree
# as it was. A crash, a leak, a timeout or a failed property stops that target,
# makes the script exit 1, and leaves the reproducer in .build/fuzz/reproducers/TARGET/ (run it again with
# `SIGNERKIT_FUZZ_TARGET=TARGET .build/fuzz/debug/signerkit-fuzz FILE`). Results, one line per target
# (executions, coverage, features, corpus size), go to stdout and .build/fuzz/summary.tsv.
#
# SwiftPM gives every executable its own `main`, so the binary links libFuzzer's runtime without its main
# (libclang_rt.fuzzer_no_main) and starts libFuzzer itself through LLVMFuzzerRunDriver (Fuzz/Sources).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

list=0 seconds=60 parallel=1 seed=0 minimize=0
chosen=()
while (($#)); do
    case "$1" in
    --list) list=1 ;;
    --seconds) seconds="${2:?--seconds needs a number}"; shift ;;
    --smoke) seconds=15 ;;
    --parallel) parallel="${2:?--parallel needs a number}"; shift ;;
    --seed) seed=1 ;;
    --minimize) minimize=1 ;;
    -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    *) chosen+=("$1") ;;
    esac
    shift
done
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --seconds wants a positive whole number" >&2; exit 64; }
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --parallel wants a positive whole number" >&2; exit 64; }

scratch="$root/.build/fuzz"
binary="$scratch/debug/signerkit-fuzz"

build() {
    local runtime
    runtime="$(find "$(dirname "$(command -v swiftc)")/../lib" -name 'libclang_rt.fuzzer_no_main-x86_64.a' \
        -o -name 'libclang_rt.fuzzer_no_main-aarch64.a' 2>/dev/null | head -1)"
    if [[ -z "$runtime" ]]; then
        echo "fuzz.sh: the Swift toolchain has no libclang_rt.fuzzer_no_main (libFuzzer)" >&2
        exit 69
    fi
    echo "fuzz.sh: building signerkit-fuzz (AddressSanitizer, libFuzzer coverage)" >&2
    local log="$scratch/build.log"
    mkdir -p "$scratch"
    if ! SIGNERKIT_FUZZ=1 swift build --scratch-path "$scratch" --product signerkit-fuzz \
        --sanitize=address \
        -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
        -Xcc -fsanitize=fuzzer-no-link \
        -Xlinker "$runtime" -Xlinker -lstdc++ >"$log" 2>&1; then
        grep -E 'error:' "$log" | sort -u | head -40 >&2 || tail -40 "$log" >&2
        echo "fuzz.sh: build failed (log: $log)" >&2
        exit 1
    fi
}

build
mapfile -t all_targets < <("$binary" --list | cut -f1)
if ((list)); then
    "$binary" --list
    exit 0
fi
if ((${#chosen[@]})); then
    for t in "${chosen[@]}"; do
        printf '%s\n' "${all_targets[@]}" | grep -qx -- "$t" || {
            echo "fuzz.sh: no target named $t (see --list)" >&2
            exit 64
        }
    done
    targets=("${chosen[@]}")
else
    targets=("${all_targets[@]}")
fi

if ((seed)); then python3 "$root/Fuzz/seed_corpus.py" "${targets[@]}"; fi
for t in "${targets[@]}"; do
    if [[ -z "$(ls -A "Fuzz/Corpus/$t" 2>/dev/null)" ]]; then python3 "$root/Fuzz/seed_corpus.py" "$t"; fi
done

if ((minimize)); then
    for t in "${targets[@]}"; do
        before="$(ls -A "Fuzz/Corpus/$t" | wc -l)"
        rm -rf "$scratch/merge/$t" && mkdir -p "$scratch/merge/$t" "$scratch/corpus/$t"
        # The committed corpus and what fuzzing found since (the scratch corpus), down to what keeps coverage.
        SIGNERKIT_FUZZ_TARGET="$t" SWIFT_BACKTRACE=enable=no "$binary" -merge=1 -timeout=20 -rss_limit_mb=2048 \
            -max_len=16384 "$scratch/merge/$t" "Fuzz/Corpus/$t" "$scratch/corpus/$t" >"$scratch/merge/$t.log" 2>&1 || {
            echo "fuzz.sh: merging $t failed (log: $scratch/merge/$t.log)" >&2
            exit 1
        }
        rm -rf "Fuzz/Corpus/$t" && mv "$scratch/merge/$t" "Fuzz/Corpus/$t" && rm -rf "$scratch/corpus/$t"
        echo "fuzz.sh: $t: $before inputs -> $(ls -A "Fuzz/Corpus/$t" | wc -l)" >&2
    done
    exit 0
fi

# One target for $seconds; prints its summary line; returns libFuzzer's status.
run_one() {
    local t="$1" log="$scratch/logs/$1.log" repro="$scratch/reproducers/$1"
    mkdir -p "$scratch/logs" "$repro" "$scratch/corpus/$t"
    local status=0
    # SWIFT_BACKTRACE: Swift's own crash handler would run (and trip AddressSanitizer) after libFuzzer's.
    # libFuzzer writes (and reduces) only in its first corpus folder: the scratch one under .build, so a run
    # reads the committed corpus and never changes it (scripts/fuzz.sh --minimize folds findings in, on purpose).
    SIGNERKIT_FUZZ_TARGET="$t" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:symbolize=1" \
        "$binary" "$scratch/corpus/$t" "Fuzz/Corpus/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
        -max_len=16384 -print_final_stats=1 -artifact_prefix="$repro/" >"$log" 2>&1 || status=$?
    local runs features coverage corpus
    runs="$(grep -Eo '^stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || true)"
    coverage="$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)"
    features="$(grep -Eo 'ft: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || true)"
    corpus="$(($(ls -A "Fuzz/Corpus/$t" | wc -l) + $(ls -A "$scratch/corpus/$t" | wc -l)))"
    local outcome="ok"
    if ((status != 0)); then
        outcome="FAILED (status $status; reproducer: $(ls -t "$repro" | head -1 | sed "s|^|$repro/|"); log: $log)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%ss\t%s\n' "$t" "${runs:-?}" "${coverage:-?}" "${features:-?}" "$corpus" \
        "$seconds" "$outcome" | tee -a "$scratch/summary.tsv"
    if ((status != 0)); then
        grep -E 'fuzz property failed|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|Fatal error|SUMMARY' "$log" |
            head -5 >&2 || true
    fi
    return "$status"
}

printf 'target\texecutions\tcoverage\tfeatures\tcorpus\ttime\toutcome\n' | tee "$scratch/summary.tsv"
failed=0
if ((parallel == 1)); then
    for t in "${targets[@]}"; do run_one "$t" || failed=1; done
else
    export -f run_one
    export scratch binary seconds
    printf '%s\n' "${targets[@]}" | xargs -P "$parallel" -I{} bash -c 'run_one "$1"' _ {} || failed=1
fi
if ((failed)); then
    echo "fuzz.sh: a target failed (reproducers under $scratch/reproducers/)" >&2
    exit 1
fi
echo "fuzz.sh: ${#targets[@]} target(s), ${seconds}s each: no crash, leak or failed property" >&2
