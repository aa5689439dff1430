#!/usr/bin/env bash
# Runs every SignerKit test: lints the format (`swift format lint --strict` with .swift-format), builds
# (warnings are errors: -warnings-as-errors), runs the compile-fail, doc-block, API-reference and consumer checks, then
# `swift test` (vectors, SoftHSM2 token, local EVM node, loopback HTTP, Chromium), then the dispatcher
# suites again in a release build, then two signer-service instances on one PostgreSQL store
# (scripts/scale-out-check.sh), then every fuzz target for 15 seconds (scripts/fuzz.sh --smoke: AddressSanitizer,
# libFuzzer; a crash, leak or failed property fails the run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/install-deps.sh" --with-browser
# Python test tooling (local EVM node, local AWS KMS) into .build/evm-venv and .build/kms-venv; tests would do it
# lazily too. The web3signer stand-in (scripts/web3signer-standin) and the Google Cloud KMS and Azure Key Vault
# stand-ins (scripts/cloud-kms-standins) run in the EVM node's venv (eth-account, eth-keys, pycryptodome).
bash "$root/scripts/evm-node/install.sh"
bash "$root/scripts/kms-node/install.sh"
mkdir -p .build
swift format lint --strict --configuration .swift-format --recursive Package.swift Sources Tests Benchmarks Plugins Fuzz
# The same flags for every build of this run, so the checks below reuse this build.
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tee .build/test-build.log
"$root/scripts/compile-fail-check.sh" --skip-build
"$root/scripts/doc-blocks-check.sh" --skip-build
"$root/scripts/architecture-check.sh"  # docs/ARCHITECTURE.md's dependency table = Package.swift
"$root/scripts/docs.sh"  # the API reference (DocC) builds with no warning: no broken symbol or guide link
"$root/scripts/consumer-check.sh"  # SignerKit by version, as a new user adds it (incremental after the first run)
# A hung test must fail the run, not stall CI: 25 minutes is ten times what the suite needs.
timeout --signal=KILL 1500 swift test --skip-build
# The dispatcher's suites once more, optimised: ordering, verification and broadcast safety must not
# depend on debug-build timing.
timeout --signal=KILL 1200 swift test -c release --filter "SignerKitTests\."
# Two service instances on one PostgreSQL store: retried and raced transactions are mined once each.
swift build -c release --product signerkit
SIGNERKIT_BIN="$(swift build -c release --show-bin-path)/signerkit" timeout --signal=KILL 600 \
    "$root/scripts/scale-out-check.sh" --count 200
# Fuzz smoke: every libFuzzer target 15 s (two at a time), built with AddressSanitizer in .build/fuzz.
"$root/scripts/fuzz.sh" --smoke --parallel 2
# Running the tests leaves the tree as it was: nothing new, nothing changed, nothing deleted.
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    changed="$(git -C "$root" status --porcelain)"
    if [[ -n "$changed" ]]; then
        echo "test.sh: the tests changed the tree ($(wc -l <<<"$changed") paths):" >&2
        head -20 <<<"$changed" >&2
        exit 1
    fi
fi
