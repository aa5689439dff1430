#!/usr/bin/env bash
# Creates the Python venv for the local EVM test node (scripts/evm-node/server.py): eth-tester with
# its py-evm backend, web3.py, safe-eth-py and the Vyper compiler, pinned in requirements.txt beside this script.
# Test tooling only. The cloud KMS stand-ins (scripts/cloud-kms-standins/server.py) use its eth-keys and
# pycryptodome too.
#
# Usage: scripts/evm-node/install.sh        (venv at ${SIGNERKIT_EVM_VENV:-<repo>/.build/evm-venv})
# Idempotent: a venv whose stamp matches requirements.txt is left alone. PYTHON picks the interpreter.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${SIGNERKIT_EVM_VENV:-$root/.build/evm-venv}"
case "$venv" in /*) ;; *) venv="$root/$venv" ;; esac
source "$root/scripts/lib/pinned-venv.sh"
install_pinned_venv evm-node "$venv" "$here/requirements.txt" \
    -c "import eth_tester, eth; from eth_tester import PyEVMBackend; PyEVMBackend(); from safe_eth.eth.contracts import get_safe_V1_4_1_contract; import vyper.compiler"
