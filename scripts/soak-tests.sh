#!/usr/bin/env bash
# Runs the full test suite N times (building once) to catch intermittent failures and hangs.
#
# Usage: scripts/soak-tests.sh N [extra `swift test` arguments...]
#
# A run still going after SOAK_HANG_SECONDS (default 300) counts as a hang: the stuck test
# process (the .xctest, else `swift test` itself) gets `gdb -p <pid> -batch -ex "thread apply all bt"`,
# and the run's processes are then killed. Logs and backtraces go to SOAK_DIR (default
# .build/soak-<timestamp>). Ends with a summary: runs, passes, failures, hangs and times.
# Exits 0 only when every run passed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

runs="${1:-}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    echo "usage: scripts/soak-tests.sh N [swift test arguments...]" >&2
    exit 64
fi
shift
hang_seconds="${SOAK_HANG_SECONDS:-300}"
soak_dir="${SOAK_DIR:-$root/.build/soak-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$soak_dir"

if ! command -v gdb >/dev/null; then
    "$root/scripts/install-deps.sh" --with-gdb
fi

echo "soak: building once"
if ! swift build --build-tests >"$soak_dir/build.log" 2>&1; then
    tail -30 "$soak_dir/build.log" >&2
    echo "soak: build failed (see $soak_dir/build.log)" >&2
    exit 1
fi

# Every descendant of pid $1 (swift test starts the .xctest in a process group of its own).
descendants() {
    local child
    for child in $(pgrep -P "$1" 2>/dev/null); do
        echo "$child"
        descendants "$child"
    done
}

# The .xctest process under `swift test` (pid $1), else $1 itself.
test_process() {
    local pid
    for pid in $(descendants "$1"); do
        if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q '\.xctest'; then
            echo "$pid"
            return
        fi
    done
    echo "$1"
}

passes=0 failures=0 hangs=0
times=()
for ((i = 1; i <= runs; i++)); do
    log="$soak_dir/run-$i.log"
    start=$(date +%s)
    # Its own process group (setsid), so a hung run's children can be stopped with it.
    setsid swift test --skip-build "$@" >"$log" 2>&1 &
    leader=$!
    hung=0
    while kill -0 "$leader" 2>/dev/null; do
        if (($(date +%s) - start >= hang_seconds)); then
            hung=1
            break
        fi
        sleep 2
    done
    elapsed=$(($(date +%s) - start))
    if ((hung)); then
        stuck=$(test_process "$leader")
        trace="$soak_dir/run-$i.backtrace.txt"
        {
            echo "run $i: no end after ${elapsed}s; process $stuck: $(tr '\0' ' ' <"/proc/$stuck/cmdline" 2>/dev/null)"
            echo "processes:"
            for pid in "$leader" $(descendants "$leader"); do
                echo "  $pid $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)"
            done
            gdb -p "$stuck" -batch -ex "thread apply all bt" 2>&1
        } >"$trace"
        # Stop what this run started: its process group, then any descendant in a group of its own.
        run_processes="$(descendants "$leader")"
        kill -TERM -- "-$leader" 2>/dev/null
        for pid in $run_processes; do kill -TERM "$pid" 2>/dev/null; done
        sleep 5
        kill -KILL -- "-$leader" 2>/dev/null
        for pid in $run_processes; do kill -KILL "$pid" 2>/dev/null; done
        wait "$leader" 2>/dev/null
        hangs=$((hangs + 1))
        result="HANG (backtrace: $trace)"
    else
        wait "$leader"
        status=$?
        if ((status == 0)); then
            passes=$((passes + 1))
            result="pass"
        else
            failures=$((failures + 1))
            result="FAIL (status $status, log: $log)"
        fi
    fi
    times+=("$elapsed")
    echo "soak: run $i/$runs: $result in ${elapsed}s"
done

sorted=$(printf '%s\n' "${times[@]}" | sort -n)
echo "soak summary: $runs runs, $passes passed, $failures failed, $hangs hung (limit ${hang_seconds}s)"
echo "soak times (s): ${times[*]}; min $(head -1 <<<"$sorted"), median $(sed -n "$(((runs + 1) / 2))p" <<<"$sorted"), max $(tail -1 <<<"$sorted")"
echo "soak logs: $soak_dir"
((passes == runs))
