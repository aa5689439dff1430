#!/usr/bin/env bash
# SignerKit demo: a throwaway key signs the Ronin order (EIP-712) and a personal message (EIP-191),
# recovery returns the key's address both times; then a whole WalletConnect Pay payment runs
# against the bundled local Pay service (scripts/pay-demo.sh).
#
# Usage: scripts/demo.sh
#   SIGNERKIT_BIN=/path/to/signerkit scripts/demo.sh   # use an already built binary
# Without SIGNERKIT_BIN it builds once (swift build -c release) and runs `swift run -c release
# --skip-build signerkit …`. The temporary key is deleted on exit, whatever happens.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Install whatever Debian packages are missing (no-op when all are present).
"$root/scripts/install-deps.sh"
order="$root/docs/examples/ronin_order.json"
message="Hello from SignerKit"

if [[ -n "${SIGNERKIT_BIN:-}" ]]; then
    [[ -x "$SIGNERKIT_BIN" ]] || { echo "demo: SIGNERKIT_BIN=$SIGNERKIT_BIN is not an executable" >&2; exit 1; }
    signerkit() { "$SIGNERKIT_BIN" "$@"; }
else
    echo "==> building signerkit (release)"
    swift build -c release --package-path "$root" --product signerkit >/dev/null
    SIGNERKIT_BIN="$(swift build -c release --package-path "$root" --show-bin-path)/signerkit"
    signerkit() { "$SIGNERKIT_BIN" "$@"; }
fi

workdir="$(mktemp -d "${TMPDIR:-/tmp}/signerkit-demo.XXXXXX")"
cleanup() { rm -rf "$workdir"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
key="$workdir/throwaway.key"

step() { printf '\n==> %s\n' "$*"; }
show() { printf '    %-22s %s\n' "$1" "$2"; }

step "Generate a throwaway key (file mode 0600, deleted when the demo ends)"
address="$(signerkit key generate --out "$key")"
show "key file:" "$key ($(stat -c '%a' "$key" 2>/dev/null || stat -f '%Lp' "$key"))"
show "address:" "$address"

step "EIP-712: hash the Ronin MarketGateway order (docs/examples/ronin_order.json)"
show "digest:" "$(signerkit typed-data hash "$order")"
show "hashes (--json):" "$(signerkit typed-data hash --json "$order")"

step "EIP-712: sign the order (read from stdin with '-')"
typed_signature="$(signerkit typed-data sign --key-file "$key" - <"$order")"
show "signature:" "$typed_signature"

step "EIP-712: recover the signer"
typed_signer="$(signerkit recover typed-data "$order" --signature "$typed_signature")"
show "recovered:" "$typed_signer"

step "EIP-191: hash and sign the personal message \"$message\""
show "digest:" "$(signerkit message hash --text "$message")"
message_signature="$(signerkit message sign --text "$message" --key-file "$key")"
show "signature:" "$message_signature"

step "EIP-191: recover the signer"
message_signer="$(signerkit recover message --text "$message" --signature "$message_signature")"
show "recovered:" "$message_signer"

step "Invalid input is one error line and exit status 65"
set +e
error="$(signerkit message hash --hex 0xabc 2>&1 >/dev/null)"
status=$?
set -e
show "exit status:" "$status"
show "stderr:" "$error"

step "Result"
if [[ "$typed_signer" == "$address" && "$message_signer" == "$address" && "$status" == 65 ]]; then
    echo "    OK: both signatures recover $address"
else
    echo "    FAILED: expected $address, got $typed_signer and $message_signer" >&2
    exit 1
fi

# The main job: a whole WalletConnect Pay payment against the bundled local Pay service.
printf '\n==> WalletConnect Pay: a whole payment through the local Pay service\n'
SIGNERKIT_BIN="$SIGNERKIT_BIN" "$root/scripts/pay-demo.sh"
