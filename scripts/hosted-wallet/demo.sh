#!/usr/bin/env bash
# Waypoint (hosted wallet) demo and CLI smoke test: a throwaway key runs the hosted-wallet simulator
# on 127.0.0.1, curl plays the browser (it follows the wallet's 302 to SignerKit's loopback
# listener), and every round trip's result is checked against the same key signing locally.
#
#   1. authorize                   -> {address, idToken}; address is the simulator key's
#   2. sign-message (loopback)     -> signature == `signerkit message sign` with the key
#   3. sign-typed-data (loopback)  -> signature == `signerkit typed-data sign` with the key
#   4. send (loopback)             -> a 32-byte transaction hash
#   5. sign-message (deep link)    -> mydapp://callback, delivered by `signerkit waypoint deliver`
#   6. a wallet that signs with another key -> exit 1, "verification failed"
#
# Usage: scripts/hosted-wallet/demo.sh
#   SIGNERKIT_BIN=/path/to/signerkit scripts/hosted-wallet/demo.sh   # use an already built binary
# Needs curl. Everything listens on 127.0.0.1 only; all processes it starts are stopped on exit.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [[ -z "${SIGNERKIT_BIN:-}" ]]; then
    echo "==> building signerkit"
    swift build --package-path "$root" --product signerkit >/dev/null
    SIGNERKIT_BIN="$(swift build --package-path "$root" --show-bin-path)/signerkit"
fi
[[ -x "$SIGNERKIT_BIN" ]] || { echo "demo: $SIGNERKIT_BIN is not an executable" >&2; exit 1; }
command -v curl >/dev/null || { echo "demo: curl is required" >&2; exit 1; }
signerkit() { "$SIGNERKIT_BIN" "$@"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/signerkit-waypoint.XXXXXX")"
chmod 700 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "demo: FAILED: $*" >&2; exit 1; }

# Starts the simulator with extra flags; sets $origin.
start_wallet() {
    signerkit waypoint simulate-wallet --auto approve --exit-after 300 "$@" >"$work/sim.out" 2>"$work/sim.err" &
    pids+=($!)
    origin=""
    for _ in $(seq 100); do
        origin="$(sed -n 's/^listening: //p' "$work/sim.out")"
        [[ -n "$origin" ]] && break
        sleep 0.05
    done
    [[ -n "$origin" ]] || fail "simulator did not start: $(cat "$work/sim.err")"
}

# Runs a round trip in the background, plays the browser on its "open:" URL, and waits.
# The output goes to $work/out, stderr to $work/err; returns the command's status.
round_trip() {
    "$@" >"$work/out" 2>"$work/err" &
    local pid=$! url=""
    for _ in $(seq 100); do
        url="$(sed -n 's/^open: //p' "$work/err")"
        [[ -n "$url" ]] && break
        sleep 0.05
    done
    [[ -n "$url" ]] || { wait "$pid" || true; fail "no open: line from $*: $(cat "$work/err")"; }
    curl -s -L -o "$work/page.html" "$url" || true
    local status=0
    wait "$pid" || status=$?
    return "$status"
}

address="$(signerkit key generate --out "$work/wallet.key")"
signerkit key generate --out "$work/other.key" >/dev/null
echo "==> hosted-wallet simulator for $address"
start_wallet --key-file "$work/wallet.key"
common=(--client-id demo-client --origin "$origin")

echo "==> 1. authorize"
round_trip signerkit waypoint authorize "${common[@]}" || fail "authorize: $(cat "$work/err")"
cat "$work/out"
grep -q "\"address\":\"$address\"" "$work/out" || fail "authorize returned another address"

echo "==> 2. sign-message over the loopback listener"
message="Sign in to the demo: 1+1 & more #1"
round_trip signerkit waypoint sign-message "${common[@]}" --message "$message" --expect-address "$address" \
    || fail "sign-message: $(cat "$work/err")"
remote="$(cat "$work/out")"
local_signature="$(signerkit message sign --text "$message" --key-file "$work/wallet.key")"
echo "$remote"
[[ "$remote" == "$local_signature" ]] || fail "hosted signature differs from the local one"

echo "==> 3. sign-typed-data"
order="$root/docs/examples/ronin_order.json"
round_trip signerkit waypoint sign-typed-data "${common[@]}" --chain-id 2021 --typed-data "$order" \
    --expect-address "$address" || fail "sign-typed-data: $(cat "$work/err")"
remote="$(cat "$work/out")"
echo "$remote"
[[ "$remote" == "$(signerkit typed-data sign --key-file "$work/wallet.key" "$order")" ]] \
    || fail "hosted typed-data signature differs from the local one"

echo "==> 4. send"
round_trip signerkit waypoint send "${common[@]}" --chain-id 2021 --to "$address" --value 1000 \
    || fail "send: $(cat "$work/err")"
cat "$work/out"
[[ "$(cat "$work/out")" =~ ^0x[0-9a-f]{64}$ ]] || fail "send did not print a 32-byte hash"

echo "==> 5. sign-message over a deep link (mydapp://callback -> signerkit waypoint deliver)"
signerkit waypoint sign-message "${common[@]}" --message "deep link" --expect-address "$address" \
    --redirect mydapp://callback --socket "$work/waypoint.sock" >"$work/out" 2>"$work/err" &
pid=$!
url=""
for _ in $(seq 100); do
    url="$(sed -n 's/^open: //p' "$work/err")"
    [[ -n "$url" ]] && break
    sleep 0.05
done
location="$(curl -s -D - -o /dev/null "$url" | sed -n 's/^[Ll]ocation: //p' | tr -d '\r')"
[[ "$location" == mydapp://callback\?* ]] || fail "the wallet did not redirect to mydapp://callback"
signerkit waypoint deliver "$location" --socket "$work/waypoint.sock"
wait "$pid" || fail "deep-link round trip: $(cat "$work/err")"
[[ "$(cat "$work/out")" == "$(signerkit message sign --text "deep link" --key-file "$work/wallet.key")" ]] \
    || fail "deep-link signature differs"
cat "$work/out"

echo "==> 6. a wallet that signs with someone else's key"
start_wallet --key-file "$work/other.key" --reported-address "$address"
status=0
round_trip signerkit waypoint sign-message --client-id demo-client --origin "$origin" --message "x" \
    --expect-address "$address" || status=$?
[[ "$status" -eq 1 ]] || fail "expected exit status 1, got $status"
grep -q "verification failed" "$work/err" || fail "expected a verification error"
grep "^error:" "$work/err"

echo "==> all Waypoint round trips verified"
