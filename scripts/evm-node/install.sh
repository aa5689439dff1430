#!/usr/bin/env bash
# Creates the Python venv for the local EVM test node (scripts/evm-node/server.py): eth-tester with
# its py-evm backend, web3.py and safe-eth-py, pinned in requirements.txt beside this script. Test tooling only.
#
# Usage: scripts/evm-node/install.sh        (venv at ${SIGNERKIT_EVM_VENV:-<repo>/.build/evm-venv})
# Idempotent: a venv whose stamp matches requirements.txt is left alone. PYTHON picks the interpreter.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${SIGNERKIT_EVM_VENV:-$root/.build/evm-venv}"
case "$venv" in /*) ;; *) venv="$root/$venv" ;; esac
requirements="$here/requirements.txt"
stamp="$venv/.signerkit-requirements"
python="${PYTHON:-python3}"

current() { [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$requirements" "$stamp"; }
current && exit 0
mkdir -p "$(dirname "$venv")"
if command -v flock >/dev/null; then
    # Several test processes may ask at once: one installs, the others wait and then find it current.
    exec 9>"$venv.lock"
    flock 9
    current && exit 0
fi
command -v "$python" >/dev/null || { echo "evm-node install: $python not found" >&2; exit 1; }
echo "evm-node install: creating $venv" >&2
rm -rf "$venv"
"$python" -m venv "$venv" || { echo "evm-node install: '$python -m venv' failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --requirement "$requirements"
"$venv/bin/python" -c "import eth_tester, eth; from eth_tester import PyEVMBackend; PyEVMBackend()" \
    || { echo "evm-node install: eth-tester's py-evm backend does not load" >&2; exit 1; }
"$venv/bin/python" -c "from safe_eth.eth.contracts import get_safe_V1_4_1_contract" \
    || { echo "evm-node install: safe-eth-py's contracts do not load" >&2; exit 1; }
cp "$requirements" "$stamp"
echo "evm-node install: done" >&2
