#!/usr/bin/env python3
"""Deploys one of the tests' own compiled contracts (Tests/SignerKitTestSupport/Contracts/NAME.json,
made by compile_contracts.py) on the local EVM node, for SignerKit's tests (test tooling only).

Reads one JSON object on stdin, prints one JSON object. The creation is sent as a raw transaction
signed with `key` (an account the test funded), through web3.py against the node at `url`; the
constructor arguments are ABI-encoded by web3.py from the artifact's ABI.

Input: {"url": …, "key": "0x…", "artifact": "<path of NAME.json>", "args": [...]}
Output: {"address": "0x…", "gasUsed": n, "runtimeMatches": true|false}
  runtimeMatches: the code at the new address equals the artifact's runtimeBytecode.
"""
import json
import sys

from eth_account import Account
from web3 import Web3


def main():
    request = json.load(sys.stdin)
    w3 = Web3(Web3.HTTPProvider(request["url"]))
    account = Account.from_key(request["key"])
    with open(request["artifact"]) as handle:
        artifact = json.load(handle)
    contract = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    tx = contract.constructor(*request.get("args", [])).build_transaction({
        "from": account.address,
        "nonce": w3.eth.get_transaction_count(account.address, "pending"),
        "chainId": w3.eth.chain_id,
        "maxFeePerGas": w3.eth.gas_price * 2,
        "maxPriorityFeePerGas": 1,
    })
    signed = account.sign_transaction(tx)
    receipt = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    if receipt["status"] != 1 or not receipt["contractAddress"]:
        raise SystemExit(f"deploy_contract: creating {artifact['contract']} failed")
    address = receipt["contractAddress"]
    code = "0x" + bytes(w3.eth.get_code(address)).hex()
    print(json.dumps({
        "address": address,
        "gasUsed": receipt["gasUsed"],
        "runtimeMatches": code == artifact["runtimeBytecode"],
    }))


if __name__ == "__main__":
    main()
