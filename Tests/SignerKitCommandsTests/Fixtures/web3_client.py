#!/usr/bin/env python3
"""Drives a running `signerkit serve` with web3.py, as an application would (Web3ClientTests).

Test tooling only (the local EVM venv has web3, see scripts/evm-node/requirements.txt):

    web3_client.py --url URL --node-url NODE --chain-id N \
        --account 0xADDR [--account 0xADDR]... --send-from 0xADDR --recipient 0xADDR --value WEI

The bearer token is read from stdin (a token never goes on a command line). `--account` are the
service's accounts, in the configuration's order. Every check prints one line
(`ok <check>: <what it saw>`) and the script exits 0 when all passed; the first failure prints
`FAIL <check>: <why>` on stderr and exits 1. Results are checked with eth-account (signatures
recovered) and against the node directly (`--node-url`), never by trusting the service alone.
"""

import argparse
import json
import sys
import traceback

import requests
from eth_account import Account
from eth_account.messages import encode_defunct, encode_typed_data
from web3 import Web3

PERSONAL_MESSAGE = "SignerKit serve, driven by web3.py"


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def ok(name, detail):
    print(f"ok {name}: {detail}", flush=True)


def provider(url, token):
    """An HTTP provider sending `Authorization: Bearer <token>` (none when `token` is None), as the
    service's documentation tells applications to; no retries, so a failure shows at once."""
    kwargs = {"timeout": 30}
    if token is not None:
        kwargs["headers"] = {"Authorization": f"Bearer {token}"}
    return Web3.HTTPProvider(url, request_kwargs=kwargs, exception_retry_configuration=None)


def result_of(response, method):
    """The `result` of a raw JSON-RPC answer from `make_request`."""
    check(isinstance(response, dict), f"{method}: the answer is not an object: {response!r}")
    check("error" not in response, f"{method}: error {response.get('error')!r}")
    check("result" in response, f"{method}: no result in {response!r}")
    return response["result"]


def mail(chain_id):
    """EIP-712's Mail example on `chain_id`."""
    return {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "Person": [{"name": "name", "type": "string"}, {"name": "wallet", "type": "address"}],
            "Mail": [
                {"name": "from", "type": "Person"},
                {"name": "to", "type": "Person"},
                {"name": "contents", "type": "string"},
            ],
        },
        "primaryType": "Mail",
        "domain": {
            "name": "Ether Mail",
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC",
        },
        "message": {
            "from": {"name": "Cow", "wallet": "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},
            "to": {"name": "Bob", "wallet": "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},
            "contents": "Hello, Bob!",
        },
    }


def check_accounts(w3, args):
    accounts = list(w3.eth.accounts)
    check(accounts == args.account, f"w3.eth.accounts is {accounts}, expected {args.account}")
    ok("accounts", " ".join(accounts))


def check_chain_id(w3, args):
    chain_id = w3.eth.chain_id
    check(chain_id == args.chain_id, f"w3.eth.chain_id is {chain_id!r}, expected {args.chain_id}")
    ok("chain_id", str(chain_id))


def check_batch(w3, args):
    with w3.batch_requests() as batch:
        batch.add(w3.eth.get_balance(args.recipient))
        batch.add(w3.eth.get_block("latest"))
        batch.add(w3.eth.get_transaction_count(args.send_from))
        balance, block, nonce = batch.execute()
    node = Web3(Web3.HTTPProvider(args.node_url, exception_retry_configuration=None))
    check(balance == node.eth.get_balance(args.recipient), f"batch: balance {balance} differs from the node's")
    check(block["number"] == node.eth.block_number, f"batch: block {block['number']} is not the node's head")
    check(nonce == node.eth.get_transaction_count(args.send_from), f"batch: nonce {nonce} differs from the node's")
    ok("batch", "eth_getBalance eth_getBlockByNumber eth_getTransactionCount answered as the node does")


def check_send_transaction(w3, args):
    node = Web3(Web3.HTTPProvider(args.node_url, exception_retry_configuration=None))
    sender, recipient, value = args.send_from, args.recipient, args.value
    recipient_before = w3.eth.get_balance(recipient)
    sender_before = node.eth.get_balance(sender)
    nonce_before = node.eth.get_transaction_count(sender)

    tx_hash = w3.eth.send_transaction({"from": sender, "to": recipient, "value": value})
    check(len(tx_hash) == 32, f"send_transaction returned {tx_hash!r}, not a 32-byte hash")
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.1)
    check(receipt["status"] == 1, f"receipt status {receipt['status']!r}: {dict(receipt)!r}")
    check(receipt["transactionHash"] == tx_hash, f"receipt of {receipt['transactionHash'].hex()}, sent {tx_hash.hex()}")
    check(receipt["from"] == sender, f"receipt from {receipt['from']}, expected {sender}")
    check(receipt["to"] == recipient, f"receipt to {receipt['to']}, expected {recipient}")

    # The node itself has the same transaction, mined, from the service's account.
    mined = node.eth.get_transaction_receipt(tx_hash)
    check(mined["status"] == 1 and mined["blockHash"] == receipt["blockHash"],
          f"the node's receipt {dict(mined)!r} differs from the service's {dict(receipt)!r}")
    tx = node.eth.get_transaction(tx_hash)
    check(tx["from"] == sender, f"transaction from {tx['from']}, expected {sender}")
    check(tx["to"] == recipient, f"transaction to {tx['to']}, expected {recipient}")
    check(tx["value"] == value, f"transaction value {tx['value']}, expected {value}")
    check(tx["chainId"] == args.chain_id, f"transaction chainId {tx.get('chainId')!r}, expected {args.chain_id}")
    check(tx["nonce"] == nonce_before, f"transaction nonce {tx['nonce']}, the account's next was {nonce_before}")

    received = w3.eth.get_balance(recipient) - recipient_before
    check(received == value, f"the recipient's balance grew by {received}, expected {value}")
    spent = sender_before - node.eth.get_balance(sender)
    fee = receipt["gasUsed"] * receipt["effectiveGasPrice"]
    check(spent == value + fee, f"the sender spent {spent}, expected value {value} + fee {fee}")
    ok("send_transaction", f"status 1, from {sender}, to {recipient}, value {value}, recipient +{received}")


def check_personal_sign(w3, args):
    for account in args.account:
        data = Web3.to_hex(text=PERSONAL_MESSAGE)
        signature = result_of(w3.provider.make_request("personal_sign", [data, account]), "personal_sign")
        check(len(bytes.fromhex(signature[2:])) == 65, f"personal_sign: {signature!r} is not 65 bytes")
        signer = Account.recover_message(encode_defunct(text=PERSONAL_MESSAGE), signature=signature)
        check(signer == account, f"personal_sign by {account} recovers to {signer}")
    ok("personal_sign", f"recovers to {' '.join(args.account)}")


def check_typed_data(w3, args):
    typed = mail(args.chain_id)
    signable = encode_typed_data(full_message=typed)
    for account in args.account:
        # As JSON text (MetaMask's form) and as an object: both are served.
        for form, payload in (("text", json.dumps(typed)), ("object", typed)):
            answer = w3.provider.make_request("eth_signTypedData_v4", [account, payload])
            signature = result_of(answer, f"eth_signTypedData_v4 ({form})")
            signer = Account.recover_message(signable, signature=signature)
            check(signer == account, f"eth_signTypedData_v4 ({form}) by {account} recovers to {signer}")
    ok("eth_signTypedData_v4", f"text and object forms recover to {' '.join(args.account)}")


def check_refusals(w3, args):
    stranger = Account.from_key("0x" + "42" * 32).address
    answer = w3.provider.make_request("personal_sign", [Web3.to_hex(text="x"), stranger])
    error = answer.get("error") if isinstance(answer, dict) else None
    check(isinstance(error, dict) and error.get("code") == -32001,
          f"personal_sign for an account the service does not hold answered {answer!r}, expected error -32001")
    ok("unknown account", "error -32001")

    for name, token in (("bad token", args.token + "-wrong"), ("no token", None)):
        w3_bad = Web3(provider(args.url, token))
        try:
            accounts = w3_bad.eth.accounts
        except requests.exceptions.HTTPError as error:
            status = error.response.status_code if error.response is not None else None
            check(status == 401, f"{name}: HTTP {status}, expected 401")
        else:
            raise CheckFailed(f"{name}: eth_accounts answered {accounts!r} instead of HTTP 401")
        ok(name, "HTTP 401")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--node-url", required=True)
    parser.add_argument("--chain-id", type=int, required=True)
    parser.add_argument("--account", action="append", required=True, type=Web3.to_checksum_address)
    parser.add_argument("--send-from", required=True, type=Web3.to_checksum_address)
    parser.add_argument("--recipient", required=True, type=Web3.to_checksum_address)
    parser.add_argument("--value", required=True, type=int)
    args = parser.parse_args()
    args.token = sys.stdin.read().strip()
    check(args.token, "no bearer token on stdin")

    w3 = Web3(provider(args.url, args.token))
    checks = [check_accounts, check_chain_id, check_batch, check_send_transaction, check_personal_sign,
              check_typed_data, check_refusals]
    for step in checks:
        name = step.__name__.removeprefix("check_")
        try:
            step(w3, args)
        except CheckFailed as failure:
            print(f"FAIL {name}: {failure}", file=sys.stderr, flush=True)
            return 1
        except Exception as error:  # noqa: BLE001 - web3's own exceptions name what the service did
            print(f"FAIL {name}: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
            traceback.print_exc(file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
