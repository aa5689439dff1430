#!/usr/bin/env bash
# Docs that compile: every ```swift block in README.md and docs/*.md is type-checked against the
# package's debug build, as a program of its own (top-level code, `try await` allowed). A block marked
# `<!-- fragment -->` continues the previous one; `<!-- given: … -->` supplies hidden inputs (see
# scripts/lib/doc_blocks.py and docs/ARCHITECTURE.md). Errors name the Markdown file and line.
#
# Usage: scripts/doc-blocks-check.sh [--skip-build] [-v|--verbose] [FILE.md ...]
# Exit status: 0 when every unit compiles, 1 when one does not, 2 on setup errors.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build=1
verbose=0
documents=()
for argument in "$@"; do
    case "$argument" in
        --skip-build) build=0 ;;
        -v | --verbose) verbose=1 ;;
        -h | --help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "doc-blocks-check: unknown argument $argument" >&2; exit 2 ;;
        *) documents+=("$argument") ;;
    esac
done
if [[ ${#documents[@]} -eq 0 ]]; then documents=(README.md docs/*.md); fi

# The library products a reader may import.
libraries=(SignerKit SoftwareSigner PKCS11Signer RedirectSigner WalletConnectPay WalletConnectPayPage EIP712 Secp256k1 EthereumPrimitives EthereumTransactions)
if [[ $build -eq 1 ]]; then
    for library in "${libraries[@]}"; do
        swift build --target "$library" >/dev/null \
            || { echo "doc-blocks-check: swift build --target $library failed" >&2; exit 2; }
    done
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# shellcheck source=lib/swiftc-against-build.sh
source "$root/scripts/lib/swiftc-against-build.sh"
swiftc_against_build "$root" "$scratch" || { echo "doc-blocks-check: setup failed (above)" >&2; exit 2; }

mapfile -t units < <(python3 "$root/scripts/lib/doc_blocks.py" split "$scratch/units" "${documents[@]}")
[[ ${#units[@]} -gt 0 ]] || { echo "doc-blocks-check: no \`\`\`swift blocks in ${documents[*]}" >&2; exit 2; }

failures=0
for unit in "${units[@]}"; do
    label="$(head -n1 "$unit" | sed 's|^// doc-block: ||')"  # docs/PAY.md:16, the opening fence
    output="$scratch/out.txt"
    status=0
    "${swiftc[@]}" "${swiftc_flags[@]}" "$unit" >"$output" 2>&1 || status=$?
    if [[ $status -eq 0 ]] && ! grep -qE '(^|: )error: ' "$output"; then
        echo "ok      $label"
        [[ $verbose -eq 1 ]] && sed 's/^/        /' "$output"
    else
        echo "FAILED  $label does not compile:"
        sed 's/^/        /' "$output"
        failures=$((failures + 1))
    fi
done

if [[ $failures -gt 0 ]]; then
    echo "doc-blocks-check: $failures of ${#units[@]} Swift examples do not compile" >&2
    exit 1
fi
echo "doc-blocks-check: all ${#units[@]} Swift examples in ${documents[*]} compile"
