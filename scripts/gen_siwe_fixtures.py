#!/usr/bin/env python3
"""Writes the signed EIP-4361 fixtures of the SIWE tests, signed by eth-account (an independent oracle).

Each row: name, privateKey, address, message (the exact text), digest (EIP-191 personal_sign), signature
(r||s||v, v = 27/28). The messages are the EIP-4361 examples with the test key's address in place of the
example's, and variants that reach every optional field, an explicit scheme, an IP literal, an empty
statement, an empty request id and an empty resource list.

Run once with the EVM venv's python (eth-account installed) and commit the output; tests never run Python:
    /work/main/.build/evm-venv/bin/python scripts/gen_siwe_fixtures.py
It writes Tests/SignerKitTestSupport/Vectors/siwe_signed.jsonl (read by every test target through Vectors).
"""
import json
import pathlib

from eth_account import Account
from eth_account.messages import defunct_hash_message, encode_defunct

# The fixed test keys of Tests/SignerKitTestSupport/TestKeys.swift (never use them for anything real).
ALPHA = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
BETA = "0x8da4ef21b864d2cc526dbdb2a120bd2874c36c9d0a1fb7f8c63d7f7a8b41de8f"

EIP_TAIL = """

I accept the ExampleOrg Terms of Service: https://example.com/tos

URI: https://example.com/login
Version: 1
Chain ID: 1
Nonce: 32891756
Issued At: 2021-09-30T16:25:24Z
Resources:
- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/
- https://example.com/my-web2-claim.json"""

HEADER = " wants you to sign in with your Ethereum account:\n"


def eip_example(origin, address):
    return origin + HEADER + address + EIP_TAIL


def messages():
    alpha = Account.from_key(ALPHA).address
    beta = Account.from_key(BETA).address
    yield "eip-example-implicit-scheme", ALPHA, eip_example("example.com", alpha)
    yield "eip-example-port", ALPHA, eip_example("example.com:3388", alpha)
    yield "eip-example-explicit-scheme", ALPHA, eip_example("https://example.com", alpha)
    yield "no-statement-every-optional-field", BETA, (
        "app.example.org" + HEADER + beta + "\n\n\n"
        "URI: https://app.example.org/session?from=wallet#top\n"
        "Version: 1\n"
        "Chain ID: 8453\n"
        "Nonce: Zx8pQ2rTw4LmN9aB\n"
        "Issued At: 2026-12-02T10:00:00.123Z\n"
        "Expiration Time: 2026-12-02T10:15:00Z\n"
        "Not Before: 2026-12-02T11:00:00+01:00\n"
        "Request ID: req-42:%2Fx@y\n"
        "Resources:\n"
        "- https://app.example.org/terms\n"
        "- urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66"
    )
    yield "ip-literal-empty-statement-empty-lists", ALPHA, (
        "http://[::1]:8080" + HEADER + alpha + "\n\n\n\n"
        "URI: http://[::1]:8080/\n"
        "Version: 1\n"
        "Chain ID: 31337\n"
        "Nonce: 00000000\n"
        "Issued At: 2026-12-02t10:00:00z\n"
        "Request ID: \n"
        "Resources:"
    )


def main():
    rows = []
    for name, key, message in messages():
        account = Account.from_key(key)
        signed = account.sign_message(encode_defunct(text=message))
        rows.append(
            {
                "name": name,
                "privateKey": key,
                "address": account.address,
                "message": message,
                "digest": "0x" + defunct_hash_message(text=message).hex().removeprefix("0x"),
                "signature": "0x" + signed.signature.hex().removeprefix("0x"),
            }
        )
    text = "".join(json.dumps(row, separators=(",", ":")) + "\n" for row in rows)
    root = pathlib.Path(__file__).resolve().parent.parent
    (root / "Tests" / "SignerKitTestSupport" / "Vectors" / "siwe_signed.jsonl").write_text(text)


if __name__ == "__main__":
    main()
