#!/usr/bin/env bash
# Builds the API reference with the toolchain's own DocC, as a static site: symbol graphs from the build
# (`swift package dump-symbol-graph`, public API only), then `docc convert` once per library product with its
# catalog (Sources/<Module>/<Module>.docc: an overview page) and the guides from docs/ that belong to it, and
# an index page linking every module. Any DocC warning — a broken symbol link (``Name``), a missing guide
# (<doc:NAME>), a malformed page — fails the build (`--warnings-as-errors`): CI runs this.
#
# Usage: scripts/docs.sh [--skip-graphs] [--output DIR]
#   --skip-graphs  reuse the symbol graphs of the last run
#   --output DIR   where the site goes (default .build/docs); serve it with
#                  `python3 -m http.server -d .build/docs 8000` and open http://127.0.0.1:8000/
# Exit status: 0 when every module converted without a warning, 1 otherwise.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

graphs=1
output="$root/.build/docs"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --skip-graphs) graphs=0 ;;
        --output) output="$(realpath -m "$2")"; shift ;;
        -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "docs: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done

# The library products, and the guides in docs/ each one's reference links.
modules=(EthereumPrimitives Secp256k1 EIP712 EthereumTransactions SignerKit SignerKitHTTP SignerKitCurl EthereumRPC
    SoftwareSigner RedirectSigner RedirectSignerTransports PKCS11Signer AWSKMSSigner CloudKMSSigner RemoteSigner
    WalletConnectPay WalletConnectPayPage)
# An entry is FILE (docs/FILE.md, article FILE) or FILE:ARTICLE when the file's name is taken in the catalog.
declare -A guides=(
    [SignerKit]="DISPATCHER WHAT-YOU-SIGN SIGN-IN SMART-ACCOUNTS EIP-7702 BATCHED-CALLS SERVICE APPROVALS AUDIT VERSIONING"
    [EIP712]="EIP712:EIP712Guide"
    [EthereumTransactions]="RONIN"
    [SoftwareSigner]="HD-WALLETS"
    [RedirectSigner]="REDIRECT"
    [PKCS11Signer]="PKCS11"
    [AWSKMSSigner]="KMS"
    [CloudKMSSigner]="KMS"
    [RemoteSigner]="KMS"
    [WalletConnectPay]="PAY"
)

work="$root/.build/docs-work"
symbols="$(dirname "$(swift build --show-bin-path)")/symbolgraph"
if [[ $graphs -eq 1 ]]; then
    mkdir -p "$work"
    echo "docs: symbol graphs (builds the package)"
    if ! swift package dump-symbol-graph --minimum-access-level public --skip-inherited-docs \
        >"$work/symbol-graphs.log" 2>&1; then
        tail -30 "$work/symbol-graphs.log" >&2
        echo "docs: the symbol graphs could not be built (see $work/symbol-graphs.log)" >&2
        exit 1
    fi
fi

rm -rf "$output" "$work/catalogs"
mkdir -p "$output" "$work/catalogs"
failed=()
for module in "${modules[@]}"; do
    catalog="$work/catalogs/$module/$module.docc"
    graphDir="$work/catalogs/$module/graphs"
    mkdir -p "$graphDir"
    cp -R "Sources/$module/$module.docc/." "$catalog/"
    # A guide's pictures (docs/images/NAME) go into the catalog, and its links name them as DocC finds
    # resources: by file name alone.
    for guide in ${guides[$module]:-}; do
        sed 's|](images/|](|g' "docs/${guide%%:*}.md" >"$catalog/${guide#*:}.md"
    done
    if [[ -n "${guides[$module]:-}" && -d docs/images ]]; then cp -R docs/images "$catalog/images"; fi
    # The module's own graph and the extensions it makes to other modules' types.
    cp "$symbols/$module.symbols.json" "$graphDir/"
    find "$symbols" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$graphDir/" \;
    log="$work/catalogs/$module/docc.log"
    if docc convert "$catalog" --additional-symbol-graph-dir "$graphDir" --output-path "$output/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.signerkit.$module" \
        --transform-for-static-hosting --hosting-base-path "$module" --warnings-as-errors >"$log" 2>&1; then
        echo "ok      $module"
    else
        echo "FAILED  $module"
        grep -E "warning|error" "$log" | sed 's/^/        /' | head -40
        failed+=("$module")
    fi
done

# The site's front page.
{
    echo '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>SignerKit API reference</title>'
    echo '<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46em;margin:3em auto;padding:0 1em}'
    echo 'li{margin:.4em 0}a{color:#0b57d0}</style></head><body><h1>SignerKit API reference</h1>'
    echo '<p>One reference per library product. Guides are linked from each overview.</p><ul>'
    for module in "${modules[@]}"; do
        lower="$(echo "$module" | tr '[:upper:]' '[:lower:]')"
        echo "<li><a href=\"$module/documentation/$lower/\">$module</a></li>"
    done
    echo '</ul></body></html>'
} >"$output/index.html"

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "docs: ${#failed[@]} of ${#modules[@]} modules have DocC warnings: ${failed[*]}" >&2
    exit 1
fi
echo "docs: ${#modules[@]} modules in $output (open $output/index.html through an HTTP server)"
