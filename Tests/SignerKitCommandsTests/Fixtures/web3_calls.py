#!/usr/bin/env python3
"""Drives EIP-5792 batches through a running `signerkit serve` with web3.py, as a dapp would (Web3CallsTests).

Test tooling only (the local EVM venv has web3, see scripts/evm-node/requirements.txt):

    web3_calls.py --url URL --node-url NODE --chain-id N --account 0xADDR --sequential-account 0xADDR \
        --token 0xTOKEN --token-abi FILE --executor 0xEXPECTED --executor-artifact FILE \
        --deployer-key-file FILE --owner-key-file FILE
    web3_calls.py --safe --url URL --node-url NODE --chain-id N --account 0xSAFE --submitter 0xADDR \
        --token 0xTOKEN --token-abi FILE

`--account` batches atomically (it delegates itself to the executor in its first batch);
`--sequential-account` sends the same kind of batch without atomicity. Both hold tokens, as does the owner,
whose key signs its own transactions straight to the node (a third party). The deployer's key deploys the
batch executor (from its artifact) at `--executor` midway, so the capability moves from unsupported to
ready. The bearer token is read from stdin (a token never goes on a command line). Every check prints one
line (`ok <check>: <what it saw>`) and the script exits 0 when all passed; the first failure prints
`FAIL <check>: <why>` on stderr and exits 1. Effects are checked against the node itself (`--node-url`),
never by trusting the service alone.

With `--safe`, `--account` is a Safe the service holds (owners and a submitter among its keys, MultiSendCallOnly
configured): it is `supported` at once, and its approve + transfer run in one `execTransaction` the submitter
sends.
"""

import argparse
import json
import sys
import threading
import time
import traceback

from eth_account import Account
from web3 import Web3

# The checks, their output and the service's provider are web3_client.py's (same folder).
from web3_client import CheckFailed, check, ok, provider


class Client:
    """The service (as a dapp's wallet) and the node (the dapp's own view of the chain)."""

    def __init__(self, args, token):
        self.wallet = Web3(provider(args.url, token))
        self.node = Web3(provider(args.node_url, None))
        self.chain_hex = hex(args.chain_id)
        self.account = Web3.to_checksum_address(args.account)
        self.token = self.node.eth.contract(
            address=Web3.to_checksum_address(args.token), abi=json.load(open(args.token_abi))["abi"])
        if args.safe:
            self.submitter = Web3.to_checksum_address(args.submitter)
            return
        self.sequential = Web3.to_checksum_address(args.sequential_account)
        self.executor = Web3.to_checksum_address(args.executor)
        self.executor_artifact = json.load(open(args.executor_artifact))
        self.deployer = Account.from_key(open(args.deployer_key_file).read().strip())
        self.owner = Account.from_key(open(args.owner_key_file).read().strip())

    # -- the wallet (the service) ----------------------------------------------------------------

    def rpc(self, method, params):
        return self.wallet.provider.make_request(method, params)

    def result(self, method, params):
        answer = self.rpc(method, params)
        check(isinstance(answer, dict), f"{method}: the answer is not an object: {answer!r}")
        check("error" not in answer, f"{method}: error {answer.get('error')!r}")
        return answer["result"]

    def error_code(self, method, params):
        answer = self.rpc(method, params)
        check("error" in answer, f"{method}: expected an error, got {answer!r}")
        return answer["error"]["code"]

    def atomic_status(self, address):
        capabilities = self.result("wallet_getCapabilities", [address, [self.chain_hex]])
        return capabilities[self.chain_hex]["atomic"]["status"]

    def batch(self, batch_id, sender, atomic_required, calls):
        params = {"version": "2.0.0", "from": sender, "chainId": self.chain_hex,
                  "atomicRequired": atomic_required, "calls": calls}
        if batch_id is not None:
            params["id"] = batch_id
        return params

    def call(self, function):
        return {"to": self.token.address, "value": "0x0", "data": function._encode_transaction_data()}

    # -- the node --------------------------------------------------------------------------------

    def nonce(self, address, block="latest"):
        return self.node.eth.get_transaction_count(address, block)

    def balance(self, address):
        return self.token.functions.balanceOf(address).call()

    def allowance(self, owner, spender):
        return self.token.functions.allowance(owner, spender).call()

    def send_as(self, account, transaction):
        """Signs `transaction` with a third party's key (eth-account) and sends it to the node itself."""
        transaction = dict(transaction)
        transaction.setdefault("nonce", self.nonce(account.address, "pending"))
        transaction.setdefault("chainId", int(self.chain_hex, 16))
        transaction.setdefault("gas", 300_000)
        transaction.setdefault("maxFeePerGas", 2 * self.node.eth.get_block("latest")["baseFeePerGas"] + 10**9)
        transaction.setdefault("maxPriorityFeePerGas", 10**9)
        signed = account.sign_transaction(transaction)
        return self.node.eth.send_raw_transaction(signed.raw_transaction)

    def token_call_as(self, account, function):
        return self.send_as(account, {"to": self.token.address, "data": function._encode_transaction_data()})

    def mined(self, tx_hash):
        receipt = self.node.eth.wait_for_transaction_receipt(tx_hash, timeout=60, poll_latency=0.05)
        check(receipt["status"] == 1, f"transaction {tx_hash.hex()} reverted")
        return receipt


def run(client):
    account, sequential, owner = client.account, client.sequential, client.owner.address
    recipient = Web3.to_checksum_address("0x" + "a1" * 20)

    # 1. No executor on chain yet: the allowed delegate executes no batch, so atomic is unsupported, and a
    #    batch that requires atomicity is refused with 5760, nothing sent.
    check(client.atomic_status(account) == "unsupported", "capabilities before the executor exists")
    before = client.nonce(account)
    approve = client.call(client.token.functions.approve(owner, 100))
    transfer = client.call(client.token.functions.transfer(recipient, 250))
    code = client.error_code("wallet_sendCalls", [client.batch("early", account, True, [approve, transfer])])
    check(code == 5760, f"atomicRequired without an executor: code {code}")
    check(client.nonce(account) == before, "nothing sent for the refused batch")
    ok("atomic required", "unsupported, refused with 5760, nothing sent")

    # 2. The executor is deployed where the policy expects it: ready.
    # The executor takes no constructor arguments: its init code is the whole creation data.
    deployed = client.mined(client.send_as(client.deployer, {"data": client.executor_artifact["bytecode"]}))
    check(deployed["contractAddress"] == client.executor, f"executor at {deployed['contractAddress']}")
    check(client.atomic_status(account) == "ready", "capabilities once the executor exists")
    ok("capabilities", "unsupported before the executor, ready once it is deployed")

    # 3. approve + transfer atomically: one type-4 transaction delegating and executing both.
    params = client.batch("atomic-1", account, True, [approve, transfer])
    sent = client.result("wallet_sendCalls", [params])
    check(sent.get("id") == "atomic-1", f"wallet_sendCalls answered {sent!r}")
    status = client.result("wallet_getCallsStatus", ["atomic-1"])
    check(status["status"] == 200 and status["atomic"] is True, f"status {status!r}")
    check(len(status["receipts"]) == 1, "one receipt for an atomic batch")
    tx = client.node.eth.get_transaction(status["receipts"][0]["transactionHash"])
    check(tx["type"] == 4, f"type {tx['type']}")
    check(client.allowance(account, owner) == 100 and client.balance(recipient) == 250, "both effects")
    check(client.nonce(account) == before + 2, "one transaction, its authorization taking the next nonce")
    check(client.node.eth.get_code(account).hex().endswith(client.executor[2:].lower()), "delegated")
    check(client.atomic_status(account) == "supported", "capabilities after the first atomic batch")
    ok("atomic batch", "one type-4 transaction, approve and transfer both applied, status 200, now supported")

    # 4. The same id again: the same batch, nothing sent.
    again = client.result("wallet_sendCalls", [params])
    check(again.get("id") == "atomic-1", f"again: {again!r}")
    check(client.nonce(account) == before + 2 and client.balance(recipient) == 250, "sent once")
    ok("same id", "answered with the same id, nothing sent twice")

    # 5. A batch whose second call reverts on chain: the owner revokes the allowance the transferFrom needs
    #    after the wallet estimated it (the revocation is pending first, then both are mined in one block).
    client.mined(client.token_call_as(client.owner, client.token.functions.approve(account, 500)))
    spender = Web3.to_checksum_address("0x" + "b2" * 20)
    taker = Web3.to_checksum_address("0x" + "c3" * 20)
    calls = [client.call(client.token.functions.approve(spender, 77)),
             client.call(client.token.functions.transferFrom(owner, taker, 300))]
    client.node.provider.make_request("evm_setAutomine", [False])
    answers = {}
    try:
        client.token_call_as(client.owner, client.token.functions.approve(account, 0))
        arrivals = client.node.provider.make_request("eth_newPendingTransactionFilter", [])["result"]

        def send():
            answers["sent"] = client.rpc("wallet_sendCalls", [client.batch("atomic-revert", account, True, calls)])

        thread = threading.Thread(target=send)
        thread.start()
        # Mine once the batch's transaction is in the node's pool, behind the revocation.
        deadline = time.monotonic() + 60
        while not any(client.node.eth.get_transaction(h)["from"] == account
                      for h in client.node.provider.make_request("eth_getFilterChanges", [arrivals])["result"]):
            check(time.monotonic() < deadline and thread.is_alive(), f"the batch never reached the node: {answers}")
            time.sleep(0.05)
        client.node.provider.make_request("evm_mine", [])
    finally:
        client.node.provider.make_request("evm_setAutomine", [True])
    thread.join(120)
    check(answers.get("sent", {}).get("result", {}).get("id") == "atomic-revert", f"answered {answers!r}")
    status = client.result("wallet_getCallsStatus", ["atomic-revert"])
    check(status["status"] == 500 and status["atomic"] is True, f"status {status!r}")
    check([r["status"] for r in status["receipts"]] == ["0x0"], f"receipts {status['receipts']!r}")
    check(client.allowance(account, spender) == 0 and client.balance(taker) == 0, "no state change")
    ok("atomic revert", "the revert undid the approve too: status 500, no state change")

    # 6. The same approve + transfer without atomicity from an account that is not delegated: the approve is
    #    mined, the transfer cannot run (more than the balance) and is never sent.
    start = client.nonce(sequential)
    partial = client.batch("sequential-1", sequential, False, [
        client.call(client.token.functions.approve(owner, 100)),
        client.call(client.token.functions.transfer(recipient, 10**30)),
    ])
    sent = client.result("wallet_sendCalls", [partial])
    check(sent.get("id") == "sequential-1", f"wallet_sendCalls answered {sent!r}")
    status = client.result("wallet_getCallsStatus", ["sequential-1"])
    check(status["status"] == 600 and status["atomic"] is False, f"status {status!r}")
    check([r["status"] for r in status["receipts"]] == ["0x1"], f"receipts {status['receipts']!r}")
    check(client.allowance(sequential, owner) == 100, "the approve applied")
    check(client.nonce(sequential) == start + 1, "one transaction")
    check(client.node.eth.get_code(sequential) == b"", "not delegated")
    client.result("wallet_sendCalls", [partial])
    check(client.nonce(sequential) == start + 1, "the same id again sends nothing")
    ok("non-atomic batch", "the approve mined, the transfer never sent: status 600, not delegated")

    # 7. What a service cannot do, and an id it never saw.
    check(client.error_code("wallet_showCallsStatus", ["atomic-1"]) == 4200, "wallet_showCallsStatus")
    check(client.error_code("wallet_getCallsStatus", ["never-sent"]) == 5730, "unknown id")
    ok("errors", "wallet_showCallsStatus 4200, unknown id 5730")


def run_safe(client):
    safe, submitter = client.account, client.submitter
    recipient = Web3.to_checksum_address("0x" + "d4" * 20)
    spender = Web3.to_checksum_address("0x" + "e5" * 20)
    check(client.atomic_status(safe) == "supported", "a deployed Safe that batches is supported")
    before = client.nonce(submitter)
    params = client.batch("safe-1", safe, True, [
        client.call(client.token.functions.approve(spender, 100)),
        client.call(client.token.functions.transfer(recipient, 250)),
    ])
    sent = client.result("wallet_sendCalls", [params])
    check(sent.get("id") == "safe-1", f"wallet_sendCalls answered {sent!r}")
    status = client.result("wallet_getCallsStatus", ["safe-1"])
    check(status["status"] == 200 and status["atomic"] is True, f"status {status!r}")
    check(len(status["receipts"]) == 1, "one receipt")
    tx = client.node.eth.get_transaction(status["receipts"][0]["transactionHash"])
    check(tx["from"] == submitter and tx["to"] == safe, f"sent by {tx['from']} to {tx['to']}")
    check(client.allowance(safe, spender) == 100 and client.balance(recipient) == 250, "both effects")
    check(client.nonce(submitter) == before + 1, "one transaction")
    again = client.result("wallet_sendCalls", [params])
    check(again.get("id") == "safe-1" and client.nonce(submitter) == before + 1, "the same id sends nothing")
    ok("safe batch", "supported; approve and transfer in one execTransaction by the submitter, status 200, sent once")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--safe", action="store_true")
    for name in ("--url", "--node-url", "--account", "--token", "--token-abi"):
        parser.add_argument(name, required=True)
    for name in ("--sequential-account", "--executor", "--executor-artifact", "--deployer-key-file",
                 "--owner-key-file", "--submitter"):
        parser.add_argument(name)
    parser.add_argument("--chain-id", type=int, required=True)
    args = parser.parse_args()
    token = sys.stdin.read().strip()
    try:
        (run_safe if args.safe else run)(Client(args, token))
    except CheckFailed as failure:
        print(f"FAIL {failure}", file=sys.stderr, flush=True)
        sys.exit(1)
    except Exception:  # noqa: BLE001 - any other failure is the test's failure, with its trace
        traceback.print_exc()
        print("FAIL unexpected error", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
