#!/usr/bin/env bash
# Registers `signerkit waypoint deliver` as the desktop handler of a custom URL scheme, so that a
# hosted wallet redirecting the browser to SCHEME://callback?… hands the callback to the signer
# waiting in `signerkit waypoint … --redirect SCHEME://callback`.
#
# Usage: scripts/hosted-wallet/register-scheme.sh SCHEME [/path/to/signerkit]
# Writes ~/.local/share/applications/signerkit-waypoint-SCHEME.desktop and makes it the default
# handler of x-scheme-handler/SCHEME (xdg-mime). Linux desktops only; on macOS use an app bundle's
# CFBundleURLTypes or WebAuthenticationSessionTransport instead.
set -euo pipefail

scheme="${1:-}"
[[ "$scheme" =~ ^[a-z][a-z0-9+.-]*$ ]] || { echo "usage: $0 SCHEME [SIGNERKIT]  (scheme: lower-case letters, digits, + . -)" >&2; exit 65; }
case "$scheme" in http | https | file | ftp | mailto) echo "$0: refusing to take over $scheme:" >&2; exit 65 ;; esac
binary="${2:-$(command -v signerkit || true)}"
[[ -n "$binary" && -x "$binary" ]] || { echo "$0: signerkit not found; pass its path" >&2; exit 65; }
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

applications="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
mkdir -p "$applications"
entry="signerkit-waypoint-$scheme.desktop"
cat >"$applications/$entry" <<DESKTOP
[Desktop Entry]
Type=Application
Name=SignerKit Waypoint callback ($scheme)
Exec="$binary" waypoint deliver %u
MimeType=x-scheme-handler/$scheme;
NoDisplay=true
Terminal=false
DESKTOP
if command -v xdg-mime >/dev/null; then
    xdg-mime default "$entry" "x-scheme-handler/$scheme"
    echo "registered $scheme: -> $binary waypoint deliver (default: $(xdg-mime query default "x-scheme-handler/$scheme"))"
else
    echo "wrote $applications/$entry; xdg-mime not found, so set it as the x-scheme-handler/$scheme default yourself"
fi
