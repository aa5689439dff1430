#!/usr/bin/env bash
# Two signer-service instances, one PostgreSQL database, one local EVM: COUNT eth_sendTransaction from one
# account, alternating between the instances, some retried with the same Idempotency-Key (through the other
# instance, and raced through both at once). Checks: exactly COUNT transactions mined, nonces 0…COUNT-1, no
# hash twice, every receipt successful, one audit row per answered request, both instances exit 0 on SIGTERM.
#
# Usage: scripts/scale-out-check.sh [--count N]     (default 1000; ends by itself; exit 1 on a failed check)
#   SIGNERKIT_BIN=/path/to/signerkit   use a built binary (default: swift build -c release)
#   SIGNERKIT_EVM_VENV=DIR             the test node's venv (default .build/evm-venv; made if missing)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
count=1000
while [[ $# -gt 0 ]]; do
    case "$1" in
        --count) count="$2"; shift 2 ;;
        *) echo "usage: $0 [--count N]" >&2; exit 2 ;;
    esac
done

export SIGNERKIT_EVM_VENV="${SIGNERKIT_EVM_VENV:-$root/.build/evm-venv}"
"$root/scripts/evm-node/install.sh" >/dev/null
python="$SIGNERKIT_EVM_VENV/bin/python"
if [[ -z "${SIGNERKIT_BIN:-}" ]]; then
    swift build -c release --package-path "$root" --product signerkit >/dev/null
    SIGNERKIT_BIN="$(swift build -c release --package-path "$root" --show-bin-path)/signerkit"
fi
pgbin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
[[ -x "$pgbin/postgres" ]] || { echo "scale-out: no PostgreSQL under /usr/lib/postgresql" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/signerkit-scale-out.XXXXXX")"
chmod 700 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    [[ -f "$work/pg/data/postmaster.pid" ]] && as_pg "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate stop >/dev/null 2>&1
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# PostgreSQL in the temporary directory, on a loopback port, as the postgres user when run as root.
mkdir -p "$work/pg/socket"
if [[ "$(id -u)" == 0 ]]; then
    chown -R postgres "$work/pg"
    chmod 755 "$work"
    as_pg() { runuser -u postgres -- "$@"; }
else
    as_pg() { "$@"; }
fi
password="$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')"
(umask 077; printf '%s\n' "$password" > "$work/pg/password")
[[ "$(id -u)" == 0 ]] && chown postgres "$work/pg/password"
as_pg "$pgbin/initdb" -D "$work/pg/data" -U signerkit --pwfile="$work/pg/password" --auth=scram-sha-256 \
    -E UTF8 --locale=C --no-sync >/dev/null
pgport="$(free_port)"
as_pg "$pgbin/pg_ctl" -D "$work/pg/data" -l "$work/pg/server.log" -w \
    -o "-h 127.0.0.1 -p $pgport -k $work/pg/socket -c fsync=off -c max_connections=100" start >/dev/null
(umask 077; printf '127.0.0.1:%s:*:signerkit:%s\n' "$pgport" "$password" > "$work/pgpass"
    printf '%s\n' "$password" > "$work/pg.password")
psql() { PGPASSFILE="$work/pgpass" "$pgbin/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pgport" \
    -U signerkit "$@"; }
psql -d postgres -c "CREATE DATABASE signer"

# The account, funded on the local EVM.
address="$("$SIGNERKIT_BIN" key generate --out "$work/k.hex")"
"$python" "$root/scripts/evm-node/server.py" --port 0 --chain-id 1337 --fund "$address" --parent-pid $$ \
    > "$work/node.out" 2> "$work/node.log" &
pids+=($!)
for _ in $(seq 300); do grep -q '^LISTENING' "$work/node.out" && break; sleep 0.1; done
node="http://127.0.0.1:$(awk '/^LISTENING/ {print $2}' "$work/node.out")"

# The audit ledger's checkpoint key (one chain for both instances, in PostgreSQL).
checkpoint_address="$("$SIGNERKIT_BIN" key generate --out "$work/checkpoint.hex")"

token="$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
token_hash="$(printf '%s' "$token" | sha256sum | cut -d' ' -f1)"
cat > "$work/service.json" <<JSON
{"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}],
 "clients": [{"name": "payments", "tokenSha256": "$token_hash"}],
 "upstream": {"eip155:1337": "$node"},
 "ledger": {"checkpointKeyFile": "checkpoint.hex", "checkpointEvery": 50},
 "store": {"postgres": {"host": "127.0.0.1", "port": $pgport, "database": "signer", "user": "signerkit",
                        "passwordFile": "pg.password", "sslMode": "disable"}}}
JSON
urls=()
service_pids=()
for instance in a b; do
    "$SIGNERKIT_BIN" serve --config "$work/service.json" 2> "$work/$instance.log" &
    pid=$!
    pids+=("$pid")
    service_pids+=("$pid")
    for _ in $(seq 300); do grep -q '^listening ' "$work/$instance.log" && break; sleep 0.1; done
    urls+=("$(awk '/^listening / {print $2; exit}' "$work/$instance.log")")
done
echo "==> two instances (${urls[*]}), PostgreSQL on 127.0.0.1:$pgport, node $node; $count transactions"

status=0
printf '%s' "$token" | "$python" "$root/scripts/scale-out/driver.py" --count "$count" --node "$node" \
    --account "$address" --answered-file "$work/answered" "${urls[@]}" || status=1
rows="$(psql -d signer -c "SELECT count(*) FROM signerkit_audit WHERE outcome <> 'intent'")"
answered="$(cat "$work/answered" 2>/dev/null || echo '?')"
if [[ "$rows" == "$answered" ]]; then
    echo "ok   audit rows: $rows, one per answered request"
else
    echo "FAIL audit rows: $rows for $answered answered requests"; status=1
fi
# No audit, no broadcast: every transaction's call wrote its intent row before it was signed.
intents="$(psql -d signer -c "SELECT count(*) FROM signerkit_audit WHERE outcome = 'intent'")"
if [[ "$intents" =~ ^[0-9]+$ ]] && (( intents >= count )); then
    echo "ok   intent rows: $intents for $count transactions"
else
    echo "FAIL intent rows: $intents for $count transactions"; status=1
fi
# A receipt from instance a of a call instance b answered verifies offline against its checkpoint.
# POSTs $2 to $1 with the token; prints the body, writes the X-Request-Id to $work/request-id.
rpc() { printf '%s' "$token" | python3 -c 'import sys, urllib.request
token = sys.stdin.read()
request = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="POST",
    headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
with urllib.request.urlopen(request, timeout=30) as response:
    open(sys.argv[3], "w").write(response.headers.get("X-Request-Id", ""))
    sys.stdout.write(response.read().decode())' "$1" "$2" "$work/request-id"; }
rpc "${urls[1]}" '{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x6c6564676572","'"$address"'"]}' >/dev/null
request_id="$(cat "$work/request-id")"
rpc "${urls[0]}" '{"jsonrpc":"2.0","id":1,"method":"signerkit_receipt","params":["'"$request_id"'"]}' \
    > "$work/receipt-answer.json"
python3 -c 'import json, sys
answer = json.load(open(sys.argv[1]))
receipt = answer["result"][0]
json.dump(receipt, open(sys.argv[2], "w"))
open(sys.argv[3], "w").write(receipt["checkpoint"])' "$work/receipt-answer.json" "$work/receipt.json" \
    "$work/checkpoint.txt" 2>/dev/null || true
if "$SIGNERKIT_BIN" audit verify --receipt "$work/receipt.json" --checkpoint "$work/checkpoint.txt" \
    --checkpoint-key "$checkpoint_address" >/dev/null; then
    echo "ok   a receipt from instance a of instance b's call verifies offline"
else
    echo "FAIL the receipt of instance b's call from instance a: $(head -c 300 "$work/receipt-answer.json")"; status=1
fi
ledger="$("$SIGNERKIT_BIN" audit verify --store "$work/service.json" --checkpoint-key "$checkpoint_address" 2>&1)"
ledger_rows="$(psql -d signer -c "SELECT count(*) FROM signerkit_ledger")"
if [[ "$ledger" == "verified $ledger_rows records, "* ]]; then
    echo "ok   the two instances' ledger: $ledger"
else
    echo "FAIL the ledger ($ledger_rows rows): $ledger"; status=1
fi
for pid in "${service_pids[@]}"; do
    kill -TERM "$pid"
    if wait "$pid"; then echo "ok   instance $pid drained and exited 0"; else echo "FAIL instance $pid exit $?"; status=1; fi
done
exit "$status"
