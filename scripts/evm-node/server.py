#!/usr/bin/env python3
"""A small Ethereum JSON-RPC node over eth-tester's py-evm backend, for SignerKit's tests.

Test tooling only: it listens on 127.0.0.1, mines every transaction into its own block at once
(one whose nonce is ahead of its sender's waits, as in a node's pool, until the gap fills),
and answers the handful of methods a wallet needs. Errors are JSON-RPC error objects:
-32000 for rejected transactions and failed calls (with the EVM's own message), -32601 for an
unknown method, -32602 for invalid params, -32600 / -32700 for malformed requests.

    server.py --port 0 [--chain-id N] [--fund 0xADDR]... [--fund-wei WEI] [--parent-pid PID]

Prints `LISTENING <port>` on stdout (flushed) once it accepts connections. JSON-RPC is served on
any path but one test hook: a POST to `/http-status/<code>` answers with that HTTP status and a
plain-text body.
"""

import argparse
import json
import os
import signal
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from eth_tester import EthereumTester, PyEVMBackend
from eth_tester.exceptions import (
    BlockNotFound,
    TransactionFailed,
    TransactionNotFound,
    ValidationError as TesterValidationError,
)
from eth_utils import ValidationError as EVMValidationError, is_address, is_hex, to_checksum_address

DEFAULT_FUND_WEI = 1000 * 10**18
# The tip this node suggests (eth_maxPriorityFeePerGas), like geth's default of 1 gwei.
SUGGESTED_TIP_WEI = 10**9
BLOCK_TAGS = ("latest", "earliest", "pending", "safe", "finalized")


class RPCError(Exception):
    """An error to send back as a JSON-RPC error object."""

    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def invalid_params(message):
    return RPCError(-32602, f"invalid params: {message}")


# ---------------------------------------------------------------------------
# Inbound conversions (JSON-RPC → eth-tester)
# ---------------------------------------------------------------------------


def quantity(value, name):
    """A JSON-RPC quantity (0x-hex string; plain integers tolerated) as an int."""
    if isinstance(value, bool):
        raise invalid_params(f"{name} must be a hex quantity")
    if isinstance(value, int):
        if value < 0:
            raise invalid_params(f"{name} must not be negative")
        return value
    if isinstance(value, str) and value[:2] in ("0x", "0X") and len(value) > 2:
        try:
            return int(value[2:], 16)
        except ValueError:
            pass
    raise invalid_params(f"{name} must be a hex quantity, got {value!r}")


def data_hex(value, name):
    if not isinstance(value, str) or not value.startswith("0x") or len(value) % 2 != 0:
        raise invalid_params(f"{name} must be 0x-prefixed hex bytes")
    if len(value) > 2 and not is_hex(value):
        raise invalid_params(f"{name} must be 0x-prefixed hex bytes")
    return value.lower()


def address(value, name):
    if not isinstance(value, str) or not is_address(value):
        raise invalid_params(f"{name} must be a 20-byte address, got {value!r}")
    return to_checksum_address(value)


def hash32(value, name):
    text = data_hex(value, name)
    if len(text) != 66:
        raise invalid_params(f"{name} must be 32 bytes")
    return text


def block_id(value, name="block"):
    if value is None:
        return "latest"
    if isinstance(value, str) and value in BLOCK_TAGS:
        return value
    return quantity(value, name)


TX_FIELDS = {
    "from": ("from", address),
    "to": ("to", address),
    "gas": ("gas", quantity),
    "gasPrice": ("gas_price", quantity),
    "maxFeePerGas": ("max_fee_per_gas", quantity),
    "maxPriorityFeePerGas": ("max_priority_fee_per_gas", quantity),
    "value": ("value", quantity),
    "nonce": ("nonce", quantity),
    "data": ("data", data_hex),
    "input": ("data", data_hex),
    "chainId": ("chain_id", quantity),
}


def call_object(obj):
    """An eth_call / eth_estimateGas transaction object in eth-tester's form."""
    if not isinstance(obj, dict):
        raise invalid_params("transaction must be an object")
    tx = {}
    for key, value in obj.items():
        if value is None or key == "type":
            continue
        if key == "accessList":
            if not isinstance(value, list):
                raise invalid_params("accessList must be an array")
            entries = []
            for entry in value:
                if not isinstance(entry, dict):
                    raise invalid_params("accessList entries must be objects")
                keys = entry.get("storageKeys", [])
                if not isinstance(keys, list):
                    raise invalid_params("storageKeys must be an array")
                entries.append({
                    "address": address(entry.get("address"), "accessList.address"),
                    "storage_keys": tuple(hash32(k, "storageKeys") for k in keys),
                })
            tx["access_list"] = tuple(entries)
            continue
        if key == "authorizationList":
            # EIP-7702 signed tuples, JSON-RPC shape (geth): the estimate charges and applies them.
            if not isinstance(value, list):
                raise invalid_params("authorizationList must be an array")
            tuples = []
            for entry in value:
                if not isinstance(entry, dict):
                    raise invalid_params("authorizationList entries must be objects")
                tuples.append({
                    "chain_id": quantity(entry.get("chainId"), "authorizationList.chainId"),
                    "address": address(entry.get("address"), "authorizationList.address"),
                    "nonce": quantity(entry.get("nonce"), "authorizationList.nonce"),
                    "y_parity": quantity(entry.get("yParity"), "authorizationList.yParity"),
                    "r": quantity(entry.get("r"), "authorizationList.r"),
                    "s": quantity(entry.get("s"), "authorizationList.s"),
                })
            tx["authorization_list"] = tuple(tuples)
            continue
        if key not in TX_FIELDS:
            raise invalid_params(f"unknown transaction field {key!r}")
        target, convert = TX_FIELDS[key]
        tx[target] = convert(value, key)
    return tx


# ---------------------------------------------------------------------------
# Outbound conversions (eth-tester → JSON-RPC)
# ---------------------------------------------------------------------------


def camel(key):
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def rpc(value):
    """eth-tester's snake_case dicts and ints as JSON-RPC camelCase and hex quantities."""
    if value is None or isinstance(value, (bool, str, float)):
        return value
    if isinstance(value, int):
        return hex(value)
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, (list, tuple)):
        return [rpc(item) for item in value]
    if isinstance(value, dict):
        return {camel(k): rpc(v) for k, v in value.items()}
    return str(value)


def format_transaction(tx):
    if isinstance(tx, str):  # a hash, when blocks are asked for without full transactions
        return tx
    out = rpc(tx)
    if "data" in out:
        out["input"] = out.pop("data")
    if out.get("to") == "":  # eth-tester's contract creation; nodes answer null
        out["to"] = None
    return out


def format_log(log):
    out = rpc({k: v for k, v in log.items() if k != "type"})
    out["removed"] = log.get("type") == "removed"
    return out


def format_receipt(receipt):
    out = rpc({k: v for k, v in receipt.items() if k not in ("state_root", "logs")})
    out["logs"] = [format_log(log) for log in receipt.get("logs", ())]
    if out.get("to") == "":  # eth-tester's contract creation; nodes answer null
        out["to"] = None
    return out


def format_block(block):
    out = rpc({k: v for k, v in block.items() if k not in ("transactions", "logs_bloom")})
    bloom = block.get("logs_bloom", 0)
    out["logsBloom"] = "0x" + (bloom.to_bytes(256, "big").hex() if isinstance(bloom, int) else bytes(bloom).hex())
    out["miner"] = out.get("coinbase")
    out["transactions"] = [format_transaction(tx) for tx in block.get("transactions", ())]
    return out


# ---------------------------------------------------------------------------
# The node
# ---------------------------------------------------------------------------


class Node:
    """eth-tester behind one lock (it is not thread-safe), with the JSON-RPC methods."""

    def __init__(self, chain_id=None):
        backend = PyEVMBackend()
        if chain_id is not None:
            # py-evm builds each VM's chain context from `chain.chain_id` (eth-tester hard-codes it
            # on the class), so setting it on the instance changes the id transactions are checked
            # against and eth_chainId reports.
            backend.chain.chain_id = chain_id
        self.tester = EthereumTester(backend=backend, auto_mine_transactions=True)
        self.lock = threading.Lock()
        # Transactions whose nonce is ahead of their sender's, held as a node's pool queues them
        # (eth-tester itself refuses a gap): sender → {nonce: (raw, hash, decoded)}.
        self.queued = {}
        self.methods = {
            "web3_clientVersion": lambda p: "SignerKit-evm-node/eth-tester-py-evm",
            "eth_chainId": lambda p: hex(self.chain_id),
            "net_version": lambda p: str(self.chain_id),
            "eth_blockNumber": self.block_number,
            "eth_getTransactionCount": self.get_transaction_count,
            "eth_getBalance": self.get_balance,
            "eth_getCode": self.get_code,
            "eth_estimateGas": self.estimate_gas,
            "eth_call": self.call,
            "eth_gasPrice": self.gas_price,
            "eth_maxPriorityFeePerGas": lambda p: hex(SUGGESTED_TIP_WEI),
            "eth_getBlockByNumber": self.get_block_by_number,
            "eth_feeHistory": self.fee_history,
            "eth_sendRawTransaction": self.send_raw_transaction,
            "eth_getTransactionByHash": self.get_transaction_by_hash,
            "eth_getTransactionReceipt": self.get_transaction_receipt,
            "eth_accounts": lambda p: [],
            "eth_newPendingTransactionFilter": self.new_pending_transaction_filter,
            "eth_getFilterChanges": self.get_filter_changes,
            # Test controls (as Hardhat and Anvil name them): mining on demand.
            "evm_setAutomine": self.set_automine,
            "evm_mine": self.mine,
        }

    @property
    def chain_id(self):
        return self.tester.backend.chain.chain_id

    # -- helpers ----------------------------------------------------------

    @staticmethod
    def params(params, minimum, maximum):
        if params is None:
            params = []
        if not isinstance(params, list):
            raise invalid_params("params must be an array")
        if not minimum <= len(params) <= maximum:
            expected = f"{minimum}" if minimum == maximum else f"{minimum} to {maximum}"
            raise invalid_params(f"expected {expected} params, got {len(params)}")
        return params + [None] * (maximum - len(params))

    def head_number(self):
        return self.tester.get_block_by_number("latest")["number"]

    def fund(self, addresses, wei):
        source = self.tester.get_accounts()[0]
        for target in addresses:
            self.tester.send_transaction({
                "from": source,
                "to": to_checksum_address(target),
                "value": wei,
                "gas": 21000,
            })

    # -- methods ----------------------------------------------------------

    def set_automine(self, params):
        (enabled,) = self.params(params, 1, 1)
        if not isinstance(enabled, bool):
            raise invalid_params("expected a boolean")
        if enabled:
            self.tester.enable_auto_mine_transactions()
        else:
            self.tester.disable_auto_mine_transactions()
        return True

    def new_pending_transaction_filter(self, params):
        """A filter of transactions received from now on (eth-tester's own pending-transaction filter)."""
        self.params(params, 0, 0)
        return hex(self.tester.create_pending_transaction_filter())

    def get_filter_changes(self, params):
        (filter_id,) = self.params(params, 1, 1)
        try:
            return list(self.tester.get_only_filter_changes(quantity(filter_id, "filter")))
        except Exception as error:  # noqa: BLE001 - an unknown filter, as a node reports it
            raise RPCError(-32000, f"filter not found: {describe(error)}") from error

    def mine(self, params):
        self.params(params, 0, 0)
        self.tester.mine_blocks(1)
        return "0x0"

    def block_number(self, params):
        self.params(params, 0, 0)
        return hex(self.head_number())

    def get_transaction_count(self, params):
        account, block = self.params(params, 1, 2)
        return hex(self.tester.get_nonce(address(account, "address"), block_id(block)))

    def get_balance(self, params):
        account, block = self.params(params, 1, 2)
        return hex(self.tester.get_balance(address(account, "address"), block_id(block)))

    def get_code(self, params):
        account, block = self.params(params, 1, 2)
        return self.tester.get_code(address(account, "address"), block_id(block))

    def call_object(self, tx):
        """`call_object`, with a funded default sender: py-evm charges calls for gas, geth does not."""
        tx = call_object(tx)
        tx.setdefault("from", self.tester.get_accounts()[0])
        return tx

    def estimate_gas(self, params):
        tx, block = self.params(params, 1, 2)
        try:
            return hex(self.tester.estimate_gas(self.call_object(tx), block_id(block)))
        except TransactionFailed as error:
            raise RPCError(-32000, execution_reverted(error)) from error
        except EVMValidationError as error:  # e.g. the sender cannot pay for the gas
            raise RPCError(-32000, describe(error)) from error

    def call(self, params):
        tx, block = self.params(params, 1, 2)
        try:
            return self.tester.call(self.call_object(tx), block_id(block))
        except TransactionFailed as error:
            raise RPCError(-32000, execution_reverted(error)) from error
        except EVMValidationError as error:  # py-evm charges calls like transactions
            raise RPCError(-32000, describe(error)) from error

    def pending_base_fee(self):
        return self.tester.get_block_by_number("pending")["base_fee_per_gas"]

    def gas_price(self, params):
        self.params(params, 0, 0)
        return hex(self.pending_base_fee() + SUGGESTED_TIP_WEI)

    def get_block_by_number(self, params):
        block, full = self.params(params, 1, 2)
        if full is not None and not isinstance(full, bool):
            raise invalid_params("second param must be a boolean")
        try:
            return format_block(self.tester.get_block_by_number(block_id(block), bool(full)))
        except BlockNotFound:
            return None

    def fee_history(self, params):
        count, newest, percentiles = self.params(params, 2, 3)
        count = quantity(count, "blockCount")
        newest_id = block_id(newest, "newestBlock")
        percentiles = percentiles or []
        if not isinstance(percentiles, list) or any(
            isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 100 for p in percentiles
        ) or percentiles != sorted(percentiles):
            raise invalid_params("rewardPercentiles must be increasing numbers in [0, 100]")
        head = self.head_number()
        if newest_id in ("latest", "safe", "finalized", "pending"):
            newest_number = head
        elif newest_id == "earliest":
            newest_number = 0
        else:
            newest_number = newest_id
        if newest_number > head:
            raise invalid_params(f"block {newest_number} is beyond the head {head}")
        count = max(0, min(count, 1024, newest_number + 1))
        oldest = newest_number - count + 1
        chain = self.tester.backend.chain
        base_fees, ratios, rewards = [], [], []
        for number in range(oldest, newest_number + 1):
            block = chain.get_canonical_block_by_number(number)
            header = block.header
            base_fee = header.base_fee_per_gas or 0
            base_fees.append(hex(base_fee))
            ratios.append(header.gas_used / header.gas_limit if header.gas_limit else 0.0)
            if percentiles:
                rewards.append([hex(r) for r in block_rewards(chain, block, base_fee, percentiles)])
        if count > 0:
            # The base fee of the block after the newest one.
            following = chain.get_canonical_block_by_number(newest_number + 1) if newest_number < head else None
            next_fee = following.header.base_fee_per_gas if following else self.pending_base_fee()
            base_fees.append(hex(next_fee or 0))
        result = {"oldestBlock": hex(oldest if count else newest_number), "baseFeePerGas": base_fees,
                  "gasUsedRatio": ratios}
        if percentiles:
            result["reward"] = rewards
        return result

    def send_raw_transaction(self, params):
        (raw,) = self.params(params, 1, 1)
        raw = data_hex(raw, "transaction")
        if len(raw) <= 2:
            raise invalid_params("empty transaction")
        try:
            builder = self.tester.backend.chain.get_transaction_builder()
            decoded = builder.decode(bytes.fromhex(raw[2:]))
        except Exception as error:  # noqa: BLE001 - any decoding failure is the sender's
            raise RPCError(-32000, f"invalid transaction: {describe(error)}") from error
        tx_chain_id = getattr(decoded, "chain_id", None)
        if tx_chain_id is not None and tx_chain_id != self.chain_id:
            # py-evm does not check this itself; real nodes reject such transactions.
            raise RPCError(-32000, f"invalid chain id: have {tx_chain_id}, want {self.chain_id}")
        sender = getattr(decoded, "sender", None)
        expected = self.tester.get_nonce(to_checksum_address(sender), "pending") if sender else None
        if expected is not None and decoded.nonce > expected:
            # A future nonce: queued until the gap fills, as geth's pool does (not validated until then).
            tx_hash = "0x" + bytes(decoded.hash).hex()
            self.queued.setdefault(sender, {})[decoded.nonce] = (raw, tx_hash, decoded)
            return tx_hash
        try:
            tx_hash = self.tester.send_raw_transaction(raw)
        except Exception as error:  # noqa: BLE001 - the EVM's rejection, as a node reports it
            raise RPCError(-32000, describe(error)) from error
        if sender:
            self.promote_queued(sender)
        return tx_hash

    def promote_queued(self, sender):
        """Sends the sender's queued transactions whose turn has come; a refused one is dropped."""
        waiting = self.queued.get(sender, {})
        while waiting:
            entry = waiting.pop(self.tester.get_nonce(to_checksum_address(sender), "pending"), None)
            if entry is None:
                break
            try:
                self.tester.send_raw_transaction(entry[0])
            except Exception as error:  # noqa: BLE001 - a node drops a queued transaction it cannot run
                print(f"dropped queued transaction {entry[1]}: {describe(error)}", file=sys.stderr)
        if not waiting:
            self.queued.pop(sender, None)

    def queued_transaction(self, tx_hash):
        """A queued transaction as eth_getTransactionByHash shows a pending one (no block)."""
        for sender, waiting in self.queued.items():
            for nonce, (_, queued_hash, decoded) in waiting.items():
                if queued_hash == tx_hash:
                    return {
                        "hash": queued_hash, "from": to_checksum_address(sender), "nonce": hex(nonce),
                        "to": to_checksum_address(decoded.to) if decoded.to else None,
                        "value": hex(decoded.value), "gas": hex(decoded.gas), "input": "0x" + decoded.data.hex(),
                        "blockHash": None, "blockNumber": None, "transactionIndex": None,
                    }
        return None

    def get_transaction_by_hash(self, params):
        (tx_hash,) = self.params(params, 1, 1)
        try:
            return format_transaction(self.tester.get_transaction_by_hash(hash32(tx_hash, "hash")))
        except TransactionNotFound:
            return self.queued_transaction(tx_hash.lower())

    def get_transaction_receipt(self, params):
        (tx_hash,) = self.params(params, 1, 1)
        try:
            return format_receipt(self.tester.get_transaction_receipt(hash32(tx_hash, "hash")))
        except TransactionNotFound:
            return None

    # -- dispatch ---------------------------------------------------------

    def handle(self, request):
        """One JSON-RPC request object → one response object (None for a notification)."""
        if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not isinstance(
            request.get("method"), str
        ):
            return error_response(None, RPCError(-32600, "invalid request"))
        has_id = "id" in request
        request_id = request.get("id")
        method = request["method"]
        try:
            handler = self.methods.get(method)
            if handler is None:
                raise RPCError(-32601, f"the method {method} does not exist/is not available")
            with self.lock:
                result = handler(request.get("params"))
            response = {"jsonrpc": "2.0", "id": request_id, "result": result}
        except RPCError as error:
            response = error_response(request_id, error)
        except (TesterValidationError, BlockNotFound) as error:
            response = error_response(request_id, invalid_params(describe(error)))
        except Exception as error:  # noqa: BLE001 - report, never crash the server
            traceback.print_exc(file=sys.stderr)
            response = error_response(request_id, RPCError(-32603, f"internal error: {describe(error)}"))
        return response if has_id else None


def describe(error):
    text = str(error) or type(error).__name__
    if isinstance(error, Exception) and len(error.args) > 1:
        text = ", ".join(str(a) for a in error.args if not isinstance(a, int)) or text
    return text


def execution_reverted(error):
    reason = describe(error)
    return "execution reverted" + (f": {reason}" if reason and reason != "execution reverted" else "")


def block_rewards(chain, block, base_fee, percentiles):
    """Gas-weighted percentiles of the effective tips paid in `block` (geth's method)."""
    receipts = block.get_receipts(chain.chaindb)
    tips, previous = [], 0
    for tx, receipt in zip(block.transactions, receipts):
        used = receipt.gas_used - previous
        previous = receipt.gas_used
        if hasattr(tx, "max_priority_fee_per_gas"):
            tip = min(tx.max_priority_fee_per_gas, tx.max_fee_per_gas - base_fee)
        else:
            tip = tx.gas_price - base_fee
        tips.append((max(tip, 0), used))
    if not tips:
        return [0 for _ in percentiles]
    tips.sort()
    total = sum(used for _, used in tips)
    out, index, cumulative = [], 0, tips[0][1]
    for p in percentiles:
        threshold = total * p / 100
        while cumulative < threshold and index < len(tips) - 1:
            index += 1
            cumulative += tips[index][1]
        out.append(tips[index][0])
    return out


def error_response(request_id, error):
    body = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


class Handler(BaseHTTPRequestHandler):
    server_version = "SignerKitEVM/1"
    node = None  # set in main()

    def do_POST(self):  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path.startswith("/http-status/"):
            # Test hook: answer with this HTTP status and a non-JSON body (for clients' HTTP error paths).
            try:
                status = int(self.path.rsplit("/", 1)[1])
            except ValueError:
                status = 400
            payload = b"status requested by the test\n"
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        try:
            request = json.loads(body)
        except ValueError:
            response = error_response(None, RPCError(-32700, "parse error"))
        else:
            if isinstance(request, list):
                if not request:
                    response = error_response(None, RPCError(-32600, "empty batch"))
                else:
                    response = [r for r in (self.node.handle(item) for item in request) if r is not None]
            else:
                response = self.node.handle(request)
        if response is None or response == []:
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        payload = json.dumps(response).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):  # noqa: N802
        self.send_error(405, "JSON-RPC wants POST")

    def log_message(self, format, *args):  # noqa: A002 - quiet: tests read stdout
        pass


def watch_parent(parent):
    """Exit once `parent` is no longer our parent: a crashed test run leaves no node behind."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8545, help="port on 127.0.0.1 (0: any free port)")
    parser.add_argument("--chain-id", type=lambda s: int(s, 0), default=None,
                        help="chain id (default: eth-tester's 131277322940537)")
    parser.add_argument("--fund", action="append", default=[], metavar="0xADDR",
                        help="an address to credit at start (repeatable)")
    parser.add_argument("--fund-wei", type=lambda s: int(s, 0), default=DEFAULT_FUND_WEI,
                        help="how much each --fund address gets (default: 1000 ether)")
    parser.add_argument("--parent-pid", type=int, default=None,
                        help="exit once this process (our parent) is gone")
    args = parser.parse_args()
    # A child spawned from a thread that blocks signals (libdispatch's workers do) inherits the mask;
    # unblock so that SIGTERM / SIGINT stop the node.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    for target in args.fund:
        if not is_address(target):
            parser.error(f"--fund: not an address: {target}")
    if args.chain_id is not None and not 0 < args.chain_id < 2**64:
        parser.error("--chain-id must be in 1..2^64-1")

    node = Node(chain_id=args.chain_id)
    node.fund(args.fund, args.fund_wei)
    Handler.node = node
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    if args.parent_pid is not None:
        threading.Thread(target=watch_parent, args=(args.parent_pid,), daemon=True).start()
    print(f"LISTENING {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
