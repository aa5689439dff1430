#!/usr/bin/env bash
# Bounded load test of `signerkit serve` on loopback; it ends by itself and exits 1 when a check fails.
#
#   (a) personal_sign over keep-alive HTTP from 8 clients (wrk), against the same work in process
#       (RpcDispatcher.sign(actions:) from 8 tasks: the "service baseline" benchmark cases, sampled right
#       before and right after each measurement): service req/s, in-process req/s, ratio (must be >=
#       LOAD_MIN_RATIO), p50/p90/p99 latency, and the CPU the server, wrk and the rest of the machine used.
#       Runs once per LOAD_A_VARIANTS: "noaudit" (no auditLog: HTTP + JSON-RPC + dispatcher only, against
#       the dispatcher) and "audit" (auditLog in the temp dir: an fsync per request, group-committed;
#       against the same work in process, the dispatcher plus the call's audit line through the same
#       AuditLog in a temp dir; its ratio to the plain dispatcher is printed too).
#   (b) LOAD_REQUESTS mixed requests (scripts/load-service/mixed_load.py lists the mix) from 8 clients: zero
#       unexpected errors, every call exactly once in the audit log and the request log, /metrics agrees,
#       VmRSS after LOAD_WARMUP requests vs at the end within max(LOAD_RSS_PERCENT %, LOAD_RSS_MIB MiB).
# Each part starts its own `signerkit serve` (temp key, token, config, audit log, journal; no upstream) and
# stops it with SIGTERM, which must end it with status 0.
#
# Usage: scripts/load-service.sh            installs wrk (scripts/install-deps.sh --with-load); needs python3
# Environment (defaults): LOAD_SCRATCH_PATH (.build) the swift build --scratch-path; LOAD_PARTS (ab);
#   LOAD_A_VARIANTS (audit noaudit); LOAD_CLIENTS (8: HTTP connections; the baseline always uses 8 tasks);
#   LOAD_SECONDS (15) per (a) measurement, after 3 s of warm-up; LOAD_MIN_RATIO (0.60); LOAD_REQUESTS (20000);
#   LOAD_WARMUP (2000); LOAD_RSS_PERCENT (10); LOAD_RSS_MIB (4); LOAD_KEEP (0: 1 keeps the temp directory).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
here=$root/scripts/load-service
scratch=${LOAD_SCRATCH_PATH:-$root/.build}
parts=${LOAD_PARTS:-ab}
clients=${LOAD_CLIENTS:-8}
seconds=${LOAD_SECONDS:-15}
address=0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 # of the benchmark key below (a public test key)
key=0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318
baseline_case="service baseline: personal_sign, 8 concurrent tasks"
audited_case="service baseline: personal_sign with an audit line, 8 concurrent tasks"
failed=()

"$root/scripts/install-deps.sh" --with-load >/dev/null
command -v wrk >/dev/null || { echo "load-service: wrk is missing (Debian: apt-get install wrk)" >&2; exit 2; }
cd "$root"
echo "load-service: building (release, scratch path $scratch)"
swift build -c release --scratch-path "$scratch" --product signerkit
swift build -c release --scratch-path "$scratch" --product SignerKitBenchmarks
bin=$(swift build -c release --scratch-path "$scratch" --show-bin-path)

work=$(mktemp -d /tmp/load-service.XXXXXX)
server_pid=""
cleanup() {
    if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid"; fi
    if [[ ${LOAD_KEEP:-0} == 1 ]]; then echo "load-service: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
printf '%s\n' "$key" >"$work/k.hex" && chmod 600 "$work/k.hex"
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
token_hash=$(printf '%s' "$token" | sha256sum | cut -d' ' -f1)

# config NAME MEMBERS: writes $work/NAME.json with extra members (e.g. an auditLog).
config() {
    printf '{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "chainId": "eip155:2021",
  "clients": [{"name": "load", "tokenSha256": "%s"}], "store": {"sqlite": "%s.sqlite"}%s}\n' \
        "$token_hash" "$1" "$2" >"$work/$1.json"
}

# start NAME: runs the server on $work/NAME.json, stderr to $work/NAME.stderr; sets server_pid and url.
start() {
    "$bin/signerkit" serve --config "$work/$1.json" 2>"$work/$1.stderr" >/dev/null &
    server_pid=$!
    url=""
    for _ in $(seq 300); do
        url=$(sed -n '1s/^listening //p' "$work/$1.stderr")
        [[ -n $url ]] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "load-service: the server did not start: $(head -c 2000 "$work/$1.stderr")" >&2
    exit 1
}

# stop: SIGTERM, then at most 30 s for exit status 0.
stop() {
    kill -TERM "$server_pid"
    for _ in $(seq 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$server_pid" 2>/dev/null; then
        failed+=("server $1 did not exit within 30 s of SIGTERM")
        kill -KILL "$server_pid"
    fi
    local status=0
    wait "$server_pid" || status=$?
    server_pid=""
    echo "server $1: SIGTERM -> exit status $status"
    ((status == 0)) || failed+=("server $1 exited with status $status after SIGTERM")
}

# cpu_ticks PID: user + system clock ticks the process has used; busy_ticks: the whole machine's.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
busy_ticks() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9}' /proc/stat; }

# baseline TAG CASE: in-process calls per second from 8 tasks of benchmark CASE, and of the plain
# personal_sign case (both from one run of the "service baseline" cases).
baseline() {
    "$bin/SignerKitBenchmarks" --filter "service baseline" --json "$work/bench-$1.json" >"$work/bench-$1.log"
    python3 -c 'import json, sys
cases = {c["name"]: c for c in json.load(open(sys.argv[1]))["cases"]}
print(round(1e9 / cases[sys.argv[2]]["medianNs"]), round(1e9 / cases[sys.argv[3]]["medianNs"]))' \
        "$work/bench-$1.json" "$2" "$baseline_case"
}

echo "load-service: $(nproc) cores; uptime:$(uptime)"

if [[ $parts == *a* ]]; then
    export LOAD_TOKEN=$token LOAD_ADDRESS=$address
    threads=$((clients < 2 ? clients : 2))
    TIMEFORMAT='%R %U %S'
    for variant in ${LOAD_A_VARIANTS:-audit noaudit}; do
        case $variant in
        audit) config "a-$variant" ', "auditLog": "a-audit.jsonl"' && same_work=$audited_case ;;
        noaudit) config "a-$variant" '' && same_work=$baseline_case ;;
        *) echo "load-service: unknown LOAD_A_VARIANTS member $variant" >&2; exit 2 ;;
        esac
        read -r before plain_before <<<"$(baseline "$variant-before" "$same_work")"
        start "a-$variant"
        wrk -t"$threads" -c"$clients" -d3s -s "$here/personal-sign.lua" "$url/" >/dev/null # warm-up
        ticks=$(cpu_ticks "$server_pid") busy=$(busy_ticks)
        { time wrk -t"$threads" -c"$clients" -d"${seconds}s" --latency -s "$here/personal-sign.lua" "$url/" \
            >"$work/wrk-$variant.out" 2>"$work/wrk-$variant.err"; } 2>"$work/wrk-$variant.time"
        ticks=$(($(cpu_ticks "$server_pid") - ticks)) busy=$(($(busy_ticks) - busy))
        stop "a-$variant"
        read -r after plain_after <<<"$(baseline "$variant-after" "$same_work")"
        line=$(grep '^LOAD ' "$work/wrk-$variant.out") || { cat "$work/wrk-$variant".*; exit 1; }
        declare -A f=()
        for pair in ${line#LOAD }; do f[${pair%%=*}]=${pair#*=}; done
        read -r _ user sys <"$work/wrk-$variant.time"
        ((f[bad] == 0 && f[socket_errors] == 0)) ||
            failed+=("(a) $variant: ${f[bad]} bad answers, ${f[socket_errors]} socket errors: $(head -c 300 "$work/wrk-$variant.err")")
        # The service against the mean of the baselines sampled right before and right after it.
        verdict=$(awk -v r="${f[requests]}" -v d="${f[duration_us]}" -v p50="${f[p50_us]}" -v p90="${f[p90_us]}" \
            -v p99="${f[p99_us]}" -v before="$before" -v after="$after" -v min="${LOAD_MIN_RATIO:-0.60}" \
            -v plain="$(((plain_before + plain_after) / 2))" -v audited="$([[ $variant == audit ]] && echo 1 || echo 0)" \
            -v t="$ticks" -v b="$busy" -v hz="$(getconf CLK_TCK)" -v u="$user" -v s="$sys" 'BEGIN {
            seconds = d / 1e6; rate = r / seconds; ratio = rate / ((before + after) / 2)
            server = t / hz / seconds; wrk = (u + s) / seconds; other = b / hz / seconds - server - wrk
            printf "service %.0f req/s (%d in %.1f s), in process %.0f/s (before %d, after %d): ratio %.3f (need >= %s)",
                rate, r, seconds, (before + after) / 2, before, after, ratio, min
            if (audited) printf "\n    (the in-process figure writes the same audit lines; to the plain dispatcher, %.0f/s: %.3f)",
                plain, rate / plain
            printf "\n    latency p50 %.2f p90 %.2f p99 %.2f ms; CPU cores: server %.2f, wrk %.2f, everything else %.2f: %s",
                p50 / 1e3, p90 / 1e3, p99 / 1e3, server, wrk, (other > 0 ? other : 0),
                (ratio >= min ? "PASS" : "FAIL") }')
        echo "(a) $variant, $clients clients: $verdict"
        [[ $verdict == *PASS ]] || failed+=("(a) $variant: throughput ratio below ${LOAD_MIN_RATIO:-0.60}")
    done
fi

if [[ $parts == *b* ]]; then
    max_batch=10
    config b ', "auditLog": "b-audit.jsonl", "limits": {"maxBatchSize": '$max_batch'}'
    start b
    timeout 1200 python3 "$here/mixed_load.py" load --url "$url" --token "$token" --address "$address" \
        --pid "$server_pid" --requests "${LOAD_REQUESTS:-20000}" --clients "$clients" --max-batch "$max_batch" \
        --warmup "${LOAD_WARMUP:-2000}" --rss-margin-percent "${LOAD_RSS_PERCENT:-10}" \
        --rss-margin-mib "${LOAD_RSS_MIB:-4}" --typed-data "$root/Tests/SignerKitTestSupport/Vectors/ronin_order.json" \
        --signerkit "$bin/signerkit" --work "$work" --expect "$work/b-expect.json" --samples "$work/b-rss.txt" ||
        failed+=("(b) load checks")
    stop b
    python3 "$here/mixed_load.py" audit --expect "$work/b-expect.json" --audit "$work/b-audit.jsonl" \
        --log "$work/b.stderr" || failed+=("(b) audit checks")
fi

echo "load-service: uptime:$(uptime)"
if ((${#failed[@]})); then
    printf 'load-service: FAILED: %s\n' "${failed[@]}"
    exit 1
fi
echo "load-service: all checks passed"
