#!/usr/bin/env bash
# Compile-fail checks: code that must NOT compile against SignerKit's public API, next to control
# code that must compile with exactly the same compiler invocation (so no check passes because the
# setup is broken, e.g. a missing module).
#
# Each Tests/CompileFail/*.swift starts with one expectation line:
#     // EXPECT: compiles
#     // EXPECT-ERROR: <extended regex>      every error the compiler reports must match it (at least one)
# The files are type-checked with `swiftc -typecheck` against the modules of the debug build
# (`swift build --target SignerKit`, run first unless --skip-build is given). The C modules SignerKit's
# Swift modules import (CSecp256k1, CGcrypt, CGcryptShim, CKeccak, …) are found through module maps:
# every Sources/<target>/module.modulemap and every C target's include directory.
#
# Usage: scripts/compile-fail-check.sh [--skip-build] [-v|--verbose]
# Exit status: 0 when every file behaves as its expectation says, 1 otherwise, 2 on setup errors.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build=1
verbose=0
for argument in "$@"; do
    case "$argument" in
        --skip-build) build=0 ;;
        -v | --verbose) verbose=1 ;;
        -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "compile-fail-check: unknown argument $argument" >&2; exit 2 ;;
    esac
done

if [[ $build -eq 1 ]]; then
    swift build --target SignerKit >/dev/null || { echo "compile-fail-check: swift build --target SignerKit failed" >&2; exit 2; }
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# shellcheck source=lib/swiftc-against-build.sh
source "$root/scripts/lib/swiftc-against-build.sh"
swiftc_against_build "$root" "$scratch" || { echo "compile-fail-check: setup failed (above)" >&2; exit 2; }
flags=("${swiftc_flags[@]}")

shopt -s nullglob
files=("$root"/Tests/CompileFail/*.swift)
[[ ${#files[@]} -gt 0 ]] || { echo "compile-fail-check: no files in Tests/CompileFail" >&2; exit 2; }

failures=0
controls=0
negatives=0
for file in "${files[@]}"; do
    name="${file#"$root"/}"
    header="$(grep -m1 -E '^// EXPECT(-ERROR)?:' "$file" || true)"
    output="$scratch/out.txt"
    status=0
    "${swiftc[@]}" "${flags[@]}" "$file" >"$output" 2>&1 || status=$?
    [[ $verbose -eq 1 ]] && { echo "--- $name (exit $status)"; cat "$output"; }
    errors="$(grep -E '(^|: )error: ' "$output" || true)"
    case "$header" in
        "// EXPECT: compiles")
            controls=$((controls + 1))
            if [[ $status -eq 0 && -z "$errors" ]]; then
                echo "ok      $name compiles"
            else
                echo "FAILED  $name should compile (exit $status):"; sed 's/^/        /' "$output"
                failures=$((failures + 1))
            fi
            ;;
        "// EXPECT-ERROR: "*)
            negatives=$((negatives + 1))
            pattern="${header#// EXPECT-ERROR: }"
            unexpected="$(grep -v -E -e "$pattern" <<<"$errors" || true)"
            if [[ $status -ne 0 && -n "$errors" && -z "$unexpected" ]]; then
                echo "ok      $name is rejected: $(head -n1 <<<"$errors" | sed -E 's/^.*error: //')"
            elif [[ $status -eq 0 ]]; then
                echo "FAILED  $name compiled, but must fail with /$pattern/"
                failures=$((failures + 1))
            else
                echo "FAILED  $name failed, but not (only) with /$pattern/:"; sed 's/^/        /' <<<"${unexpected:-$(cat "$output")}"
                failures=$((failures + 1))
            fi
            ;;
        *)
            echo "FAILED  $name has no '// EXPECT: compiles' or '// EXPECT-ERROR: <regex>' line"
            failures=$((failures + 1))
            ;;
    esac
done

if [[ $controls -eq 0 || $negatives -eq 0 ]]; then
    echo "compile-fail-check: need at least one control (EXPECT: compiles) and one EXPECT-ERROR file" >&2
    exit 1
fi
if [[ $failures -gt 0 ]]; then
    echo "compile-fail-check: $failures of ${#files[@]} files did not behave as expected" >&2
    exit 1
fi
echo "compile-fail-check: all ${#files[@]} files behaved as expected ($negatives rejected, $controls compiled)"
