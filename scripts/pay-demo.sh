#!/usr/bin/env bash
# WalletConnect Pay demo: runs the local Pay service (`signerkit pay serve-local`), makes a
# throwaway key and pays two payment links the local service knows with `signerkit pay`:
#   1. a wc: URI carrying a Pay link; the first option the key can complete (an ERC-3009 signature);
#   2. the option that needs data collection, with the answers from a JSON file.
# Every step (merchant, amount, options, actions, results, final status) is printed.
#
# Usage: scripts/pay-demo.sh
#   SIGNERKIT_BIN=/path/to/signerkit scripts/pay-demo.sh   # use an already built binary
# Without SIGNERKIT_BIN it builds signerkit once (swift build -c release). The service and the
# temporary files are removed on exit, whatever happens.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"

if [[ -n "${SIGNERKIT_BIN:-}" ]]; then
    [[ -x "$SIGNERKIT_BIN" ]] || { echo "pay-demo: SIGNERKIT_BIN=$SIGNERKIT_BIN is not an executable" >&2; exit 1; }
    bin="$SIGNERKIT_BIN"
else
    echo "==> building signerkit (release)"
    swift build -c release --package-path "$root" --product signerkit >/dev/null
    bin="$(swift build -c release --package-path "$root" --show-bin-path)/signerkit"
fi
signerkit() { "$bin" "$@"; }

workdir="$(mktemp -d "${TMPDIR:-/tmp}/signerkit-pay-demo.XXXXXX")"
service_pid=""
cleanup() {
    if [[ -n "$service_pid" ]] && kill -0 "$service_pid" 2>/dev/null; then
        kill "$service_pid" 2>/dev/null || true
        wait "$service_pid" 2>/dev/null || true
    fi
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { printf '\n==> %s\n' "$*"; }
indent() { sed 's/^/    /'; }

step "Start the local WalletConnect Pay service (signerkit pay serve-local)"
"$bin" pay serve-local --port 0 >"$workdir/service.log" 2>&1 &
service_pid=$!
api_url=""
for _ in $(seq 1 100); do
    if ! kill -0 "$service_pid" 2>/dev/null; then
        echo "pay-demo: the local Pay service exited:" >&2
        cat "$workdir/service.log" >&2
        exit 1
    fi
    line="$(head -n 1 "$workdir/service.log" 2>/dev/null || true)"
    if [[ "$line" == listening\ * ]]; then
        api_url="${line#listening }"
        break
    fi
    sleep 0.1
done
[[ -n "$api_url" ]] || { echo "pay-demo: the local Pay service did not start" >&2; exit 1; }
indent <"$workdir/service.log"

step "Generate a throwaway key (deleted when the demo ends)"
key="$workdir/throwaway.key"
address="$(signerkit key generate --out "$key")"
account="eip155:8453:$address"
echo "    account: $account"

payment_id="pay_demo_$(date +%s)_$RANDOM"
pay_link="https://pay.walletconnect.com/?pid=$payment_id"
encoded_link="$(printf '%s' "$pay_link" | sed -e 's/%/%25/g' -e 's/:/%3A/g' -e 's#/#%2F#g' -e 's/?/%3F/g' -e 's/=/%3D/g')"
wc_uri="wc:7f6e504bfad60b485450578e05678ed3e8e8c4751d3c6160be17160d63ec90f9@2?relay-protocol=irn&pay=$encoded_link"

step "Pay $payment_id (a wc: URI carrying the Pay link; the first option the key can complete)"
echo "    link: $wc_uri"
set +e
signerkit pay "$wc_uri" --key-file "$key" --account "$account" --api-url "$api_url" --max-poll-ms 0 | indent
first_status=${PIPESTATUS[0]}
set -e
echo "    exit status: $first_status"

step "Pay a second link with the option that needs data collection (answers from a JSON file)"
collect_id="${payment_id}_kyc"
printf '{"fullName":"Ada Lovelace","dob":"1815-12-10","tosConfirmed":true}\n' >"$workdir/answers.json"
set +e
signerkit pay "https://pay.walletconnect.com/$collect_id" --key-file "$key" --account "$account" \
    --api-url "$api_url" --option opt_dataCollection_8453_0 --collect-data "$workdir/answers.json" | indent
second_status=${PIPESTATUS[0]}
set -e
echo "    exit status: $second_status"

step "Result"
if [[ "$first_status" == 0 && "$second_status" == 0 ]]; then
    echo "    OK: both payments succeeded"
else
    echo "    FAILED: exit statuses $first_status and $second_status" >&2
    exit 1
fi
