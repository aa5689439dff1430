#!/usr/bin/env bash
# Creates a throwaway SoftHSM2 token store for development and tests.
#
# Writes DIR/softhsm2.conf (tokendir = DIR/tokens), initialises one token per --label in that
# store and prints shell lines to stdout, so a shell can pick the store up with
#
#     eval "$(scripts/softhsm-token.sh --label signerkit-dev)"
#
# Options:
#   --dir DIR        store directory (created if missing; default: a new mktemp -d directory)
#   --label LABEL    token label (repeatable; default: signerkit-test)
#   --pin-file FILE  read the user PIN from FILE (first line); default: $SIGNERKIT_PIN if set,
#                    else DIR/user.pin if it exists, else a random PIN written there (mode 600)
#   --so-pin-file F  read the security-officer PIN from F; default: DIR/so.pin, created with a
#                    random PIN when missing
#   --module PATH    SoftHSM2 module (default: /usr/lib/softhsm/libsofthsm2.so)
#
# stdout:
#   export SOFTHSM2_CONF=DIR/softhsm2.conf
#   export SIGNERKIT_PKCS11_MODULE=PATH
#   export SIGNERKIT_PIN_FILE=DIR/user.pin        (only when the PIN file was written here)
#
# This is a development token: softhsm2-util only takes PINs on its command line, so they are
# briefly visible in the process list. Never use this script for a token that guards real keys.
set -euo pipefail
umask 077

dir=""
labels=()
pin_file=""
so_pin_file=""
module="/usr/lib/softhsm/libsofthsm2.so"

die() { echo "softhsm-token: $*" >&2; exit 1; }

while (($#)); do
    case "$1" in
        --dir) dir="${2:?--dir needs a value}"; shift 2 ;;
        --label) labels+=("${2:?--label needs a value}"); shift 2 ;;
        --pin-file) pin_file="${2:?--pin-file needs a value}"; shift 2 ;;
        --so-pin-file) so_pin_file="${2:?--so-pin-file needs a value}"; shift 2 ;;
        --module) module="${2:?--module needs a value}"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (try --help)" ;;
    esac
done

command -v softhsm2-util >/dev/null || die "softhsm2-util not found (apt-get install softhsm2)"
[[ -r "$module" ]] || die "module $module not found"
((${#labels[@]})) || labels=("signerkit-test")
for label in "${labels[@]}"; do
    ((${#label} <= 32)) || die "label '$label' is longer than 32 bytes"
done

if [[ -z "$dir" ]]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/softhsm-token.XXXXXX")"
else
    mkdir -p "$dir"
fi
dir="$(cd "$dir" && pwd)"
mkdir -p "$dir/tokens"

random_pin() { od -An -N8 -tx1 /dev/urandom | tr -d ' \n'; }

wrote_pin_file=""
if [[ -n "$pin_file" ]]; then
    IFS= read -r pin <"$pin_file" || [[ -n "${pin:-}" ]] || die "cannot read $pin_file"
elif [[ -n "${SIGNERKIT_PIN:-}" ]]; then
    pin="$SIGNERKIT_PIN"
elif [[ -s "$dir/user.pin" ]]; then
    # A second run on the same store keeps the PIN its earlier tokens use.
    IFS= read -r pin <"$dir/user.pin" || true
    wrote_pin_file="$dir/user.pin"
else
    pin="$(random_pin)"
    printf '%s\n' "$pin" >"$dir/user.pin"
    wrote_pin_file="$dir/user.pin"
fi
if [[ -n "$so_pin_file" ]]; then
    IFS= read -r so_pin <"$so_pin_file" || [[ -n "${so_pin:-}" ]] || die "cannot read $so_pin_file"
elif [[ -s "$dir/so.pin" ]]; then
    IFS= read -r so_pin <"$dir/so.pin" || true
else
    so_pin="$(random_pin)"
    printf '%s\n' "$so_pin" >"$dir/so.pin"
fi
[[ -n "$pin" ]] || die "empty user PIN"

cat >"$dir/softhsm2.conf" <<CONF
# Throwaway SoftHSM2 store written by scripts/softhsm-token.sh
directories.tokendir = $dir/tokens
objectstore.backend = file
log.level = ERROR
slots.removable = false
slots.mechanisms = ALL
library.reset_on_fork = false
CONF

export SOFTHSM2_CONF="$dir/softhsm2.conf"
for label in "${labels[@]}"; do
    softhsm2-util --module "$module" --init-token --free --label "$label" \
        --so-pin "$so_pin" --pin "$pin" >&2 || die "could not initialise token '$label'"
done

printf 'export SOFTHSM2_CONF=%q\n' "$dir/softhsm2.conf"
printf 'export SIGNERKIT_PKCS11_MODULE=%q\n' "$module"
if [[ -n "$wrote_pin_file" ]]; then
    printf 'export SIGNERKIT_PIN_FILE=%q\n' "$wrote_pin_file"
fi
