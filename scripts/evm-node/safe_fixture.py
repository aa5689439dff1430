#!/usr/bin/env python3
"""Safe v1.4.1 on the local EVM node, for SignerKit's smart-account tests (test tooling only).

Reads one JSON object on stdin, prints one JSON object. The contracts' bytecode comes from the
pinned PyPI package safe-eth-py (SafeL1 1.4.1 singleton, SafeProxyFactory 1.4.1,
CompatibilityFallbackHandler 1.4.1, MultiSendCallOnly 1.4.1); everything is sent as raw transactions signed with `key`
(an account the test funded), through web3.py against the node at `url`.

Input: {"url": …, "key": "0x…", "safes": [{"owners": [...], "threshold": n, "saltNonce": n,
        "deploy": true|false}, …]}
Output: {"singleton", "factory", "handler", "multiSendCallOnly", "safes": [{"address", "factory", "factoryCalldata",
         "deployed"}]}  (a Safe with "deploy": false is counterfactual: its address is computed by
         an eth_call of createProxyWithNonce, nothing is sent)

Or, to cross-check verdicts independently of SignerKit:
Input: {"url": …, "check": [{"account", "hash", "signature", "deploy": {"key", "factory",
        "factoryCalldata"}?}, …]}
Output: {"answers": ["0x…" (the word isValidSignature returned) | "revert: …" | "no code"]}
  A check with "deploy" first sends the factory call as a real transaction (the counterfactual
  Safe gets deployed), then asks the deployed account with a plain eth_call.
"""
import json
import sys

from eth_account import Account
from web3 import Web3
from web3.exceptions import ContractLogicError

from safe_eth.eth.contracts import (
    get_compatibility_fallback_handler_V1_4_1_contract,
    get_multi_send_call_only_V1_4_1_contract,
    get_proxy_factory_V1_4_1_contract,
    get_safe_V1_4_1_contract,
)

ZERO = "0x0000000000000000000000000000000000000000"
ERC1271 = [{
    "type": "function", "name": "isValidSignature", "stateMutability": "view",
    "inputs": [{"name": "hash", "type": "bytes32"}, {"name": "signature", "type": "bytes"}],
    "outputs": [{"name": "", "type": "bytes4"}],
}]


def send(w3, account, tx):
    tx = dict(tx)
    tx.setdefault("from", account.address)
    tx["nonce"] = w3.eth.get_transaction_count(account.address, "pending")
    tx["chainId"] = w3.eth.chain_id
    tx.setdefault("gas", w3.eth.estimate_gas(tx) * 2)
    tx["maxFeePerGas"] = w3.eth.gas_price * 2
    tx["maxPriorityFeePerGas"] = 1
    tx.pop("gasPrice", None)
    signed = account.sign_transaction(tx)
    receipt = w3.eth.wait_for_transaction_receipt(w3.eth.send_raw_transaction(signed.raw_transaction))
    if receipt["status"] != 1:
        raise SystemExit(f"safe_fixture: transaction {tx.get('to')} failed")
    return receipt


def deploy(w3, account, contract):
    receipt = send(w3, account, {"data": contract.bytecode})
    return receipt["contractAddress"]


def setup_safes(w3, request):
    account = Account.from_key(request["key"])
    singleton = deploy(w3, account, get_safe_V1_4_1_contract(w3))
    factory_address = deploy(w3, account, get_proxy_factory_V1_4_1_contract(w3))
    handler = deploy(w3, account, get_compatibility_fallback_handler_V1_4_1_contract(w3))
    multi_send = deploy(w3, account, get_multi_send_call_only_V1_4_1_contract(w3))
    factory = get_proxy_factory_V1_4_1_contract(w3, factory_address)
    safe_abi = get_safe_V1_4_1_contract(w3, singleton)
    safes = []
    for spec in request["safes"]:
        owners = [Web3.to_checksum_address(owner) for owner in spec["owners"]]
        initializer = safe_abi.encode_abi(
            "setup", [owners, spec["threshold"], ZERO, b"", handler, ZERO, 0, ZERO])
        create = factory.functions.createProxyWithNonce(singleton, initializer, spec["saltNonce"])
        address = create.call({"from": account.address})
        calldata = factory.encode_abi("createProxyWithNonce", [singleton, initializer, spec["saltNonce"]])
        if spec.get("deploy", True):
            send(w3, account, {"to": factory_address, "data": calldata})
        safes.append({
            "address": address, "factory": factory_address, "factoryCalldata": calldata,
            "deployed": len(w3.eth.get_code(address)) > 0,
        })
    return {"singleton": singleton, "factory": factory_address, "handler": handler,
            "multiSendCallOnly": multi_send, "safes": safes}


def check(w3, item):
    account = Web3.to_checksum_address(item["account"])
    if "deploy" in item:
        deployer = Account.from_key(item["deploy"]["key"])
        if len(w3.eth.get_code(account)) == 0:
            send(w3, deployer, {"to": item["deploy"]["factory"], "data": item["deploy"]["factoryCalldata"]})
    if len(w3.eth.get_code(account)) == 0:
        return "no code"
    contract = w3.eth.contract(address=account, abi=ERC1271)
    try:
        answer = contract.functions.isValidSignature(
            bytes.fromhex(item["hash"][2:]), bytes.fromhex(item["signature"][2:])).call()
    except ContractLogicError as error:
        return f"revert: {error}"
    return "0x" + answer.hex()


def main():
    request = json.load(sys.stdin)
    w3 = Web3(Web3.HTTPProvider(request["url"], request_kwargs={"timeout": 60}))
    if "check" in request:
        print(json.dumps({"answers": [check(w3, item) for item in request["check"]]}))
    else:
        print(json.dumps(setup_safes(w3, request)))


if __name__ == "__main__":
    main()
