"""Times eth-account and `signerkit typed-data hash --jsonl` on the same file of typed-data lines.

Usage: compare.py JSONL_FILE SIGNERKIT_BINARY [--rounds N] [--python-lines N]

Every digest eth-account computes must equal the line signerkit prints (the run fails otherwise); the
report gives per-line times (median of the rounds) and how many times faster signerkit is per line.
Test and benchmark tooling only (PyPI, never used by SignerKit at run time).
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

from eth_account.messages import _hash_eip191_message, encode_typed_data


def eth_account_digests(lines):
    digests = []
    for line in lines:
        document = json.loads(line)
        digests.append("0x" + _hash_eip191_message(encode_typed_data(full_message=document)).hex())
    return digests


def timed(function, *arguments):
    start = time.perf_counter()
    result = function(*arguments)
    return time.perf_counter() - start, result


def signerkit_digests(binary, path, threads):
    completed = subprocess.run(
        [binary, "typed-data", "hash", "--jsonl", "--threads", str(threads), path],
        check=True, capture_output=True, text=True)
    return completed.stdout.splitlines()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("signerkit")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--python-lines", type=int, default=2000,
                        help="lines eth-account hashes per round (it is slow; the per-line time is what counts)")
    options = parser.parse_args()
    with open(options.file, encoding="utf-8") as handle:
        lines = [line for line in handle.read().split("\n") if line.strip()]
    python_lines = lines[: options.python_lines]

    python_times, one_times, two_times = [], [], []
    for _ in range(options.rounds):
        elapsed, expected = timed(eth_account_digests, python_lines)
        python_times.append(elapsed / len(python_lines))
        elapsed, one = timed(signerkit_digests, options.signerkit, options.file, 1)
        one_times.append(elapsed / len(lines))
        elapsed, two = timed(signerkit_digests, options.signerkit, options.file, 2)
        two_times.append(elapsed / len(lines))
        if one != two or len(one) != len(lines):
            sys.exit("signerkit: --threads 1 and --threads 2 differ, or a line is missing")
        if one[: len(expected)] != expected:
            sys.exit("signerkit and eth-account disagree on a digest")

    # The fastest round of each: on a shared machine noise only ever adds time, so the minimum is the
    # estimate least disturbed by it (medians are printed too).
    python_us = min(python_times) * 1e6
    one_us = min(one_times) * 1e6
    two_us = min(two_times) * 1e6
    medians = [statistics.median(times) * 1e6 for times in (python_times, one_times, two_times)]
    print(f"lines: {len(lines)} (eth-account: {len(python_lines)} per round), rounds: {options.rounds}")
    print(f"eth-account encode_typed_data + hash      {python_us:10.2f} µs/line   (baseline; median {medians[0]:.2f})")
    print(f"signerkit typed-data hash --jsonl -t 1    {one_us:10.2f} µs/line   {python_us / one_us:6.1f}× faster per line"
          f" (median {medians[1]:.2f})")
    print(f"signerkit typed-data hash --jsonl -t 2    {two_us:10.2f} µs/line   {python_us / two_us:6.1f}× faster per line, "
          f"{one_us / two_us:4.2f}× the one-thread throughput (median {medians[2]:.2f})")
    print("(fastest round of each; whole process runs, start-up included; digests checked equal)")


if __name__ == "__main__":
    main()
