#!/usr/bin/env python3
"""Compiles the tests' own Vyper contracts (Tests/SignerKitTestSupport/Contracts/*.vy) with the Vyper
compiler pinned in scripts/evm-node/requirements.txt (test tooling only).

Each NAME.vy gets NAME.json beside it: {"contract", "source", "compiler", "evmVersion", "abi",
"bytecode" (init code, hex), "runtimeBytecode" (hex)}. The .json files are committed; the tests
deploy them and check that they are what the committed sources compile to.

Usage (with the evm venv's python, .build/evm-venv/bin/python):
    compile_contracts.py            rewrite every NAME.json
    compile_contracts.py --check    change nothing; print {"checked": [...], "stale": [...]} where
                                    "stale" names each NAME.json that differs from a fresh compile
                                    (or is missing), and exit 1 when something is stale
    compile_contracts.py --check --exit-zero   the same, exiting 0 (the tests read the JSON)
"""
import json
import sys
from pathlib import Path

import vyper
from vyper.compiler import compile_code

CONTRACTS = Path(__file__).resolve().parents[2] / "Tests" / "SignerKitTestSupport" / "Contracts"


def artifact(source_path):
    source = source_path.read_text()
    out = compile_code(source, output_formats=["abi", "bytecode", "bytecode_runtime"])
    settings = vyper.compiler.phases.CompilerData(source).settings
    return {
        "contract": source_path.stem,
        "source": source_path.name,
        "compiler": "vyper " + vyper.__long_version__,
        "evmVersion": settings.evm_version,
        "abi": out["abi"],
        "bytecode": out["bytecode"],
        "runtimeBytecode": out["bytecode_runtime"],
    }


def render(data):
    return json.dumps(data, indent=2, sort_keys=False) + "\n"


def main(argv):
    check = "--check" in argv
    checked, stale = [], []
    for source_path in sorted(CONTRACTS.glob("*.vy")):
        target = source_path.with_suffix(".json")
        text = render(artifact(source_path))
        checked.append(target.name)
        if check:
            if not target.exists() or target.read_text() != text:
                stale.append(target.name)
        else:
            target.write_text(text)
    if check:
        print(json.dumps({"checked": checked, "stale": stale}))
        return 1 if stale and "--exit-zero" not in argv else 0
    print("compiled: " + ", ".join(checked), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
