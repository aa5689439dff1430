#!/usr/bin/env bash
# Installs the Debian packages SignerKit needs, skipping those already present.
# Usage: scripts/install-deps.sh [--with-browser] [--with-gdb] [--with-load]   (apt-get, through sudo when not root)
# --with-gdb: the debugger scripts/soak-tests.sh takes backtraces of hung runs with.
# --with-load: wrk, the HTTP load generator of scripts/load-service.sh.
set -euo pipefail
packages=(libsecp256k1-dev libgcrypt20-dev libp11-kit-dev libcurl4-openssl-dev libmicrohttpd-dev libsqlite3-dev libpq-dev postgresql softhsm2 opensc python3-venv python3-pip)
for option in "$@"; do
    case "$option" in
    --with-browser) packages+=(chromium) ;;
    --with-gdb) packages+=(gdb) ;;
    --with-load) packages+=(wrk) ;;
    esac
done
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
    echo "install-deps: all packages present"
    exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
