#!/usr/bin/env python3
"""A stand-in for web3signer's eth1 API, for SignerKit's tests only (loopback, no TLS, no auth).

Written from web3signer's published API documentation (JSON-RPC: eth_accounts, eth_sign, eth_signTypedData,
eth_signTransaction; REST: POST /api/v1/eth1/sign/{publicKey} signing keccak256(data), GET
/api/v1/eth1/publicKeys, GET /upcheck). No web3signer code: web3signer itself (Java) never runs in the tests.
Keys come from --key-file (0x-hex private key files); transactions are signed for --chain-id, as web3signer
signs for its configured chain, and only the members web3signer reads are read. With --lie MODE it answers with something a signer
must never return, so the tests can show SignerKit's dispatcher refusing it:
    other-key    every signature made by another key
    tampered-tx  eth_signTransaction returns a correctly signed transaction whose value is one wei more
    wrong-v      message and typed-data signatures with v flipped (27 <-> 28)
    high-s       message and typed-data signatures with s replaced by n - s (v flipped: same key, high s)
Prints "LISTENING <port>" once it listens on 127.0.0.1, and exits when the --parent-pid process is gone.
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from eth_account import Account
from eth_account.messages import encode_defunct
from eth_keys import keys
from eth_utils import keccak, to_checksum_address

SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


class RPCError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


class Signer:
    def __init__(self, key_hexes, lie, chain_id):
        self.accounts = [Account.from_key(k) for k in key_hexes]
        self.by_address = {a.address.lower(): a for a in self.accounts}
        self.by_public_key = {
            "0x" + keys.PrivateKey(bytes(a.key)).public_key.to_bytes().hex(): a for a in self.accounts
        }
        self.lie = lie
        self.chain_id = chain_id
        self.impostor = Account.create()

    def account(self, address):
        if not isinstance(address, str) or address.lower() not in self.by_address:
            raise RPCError(-32000, "No key found for the from address")
        found = self.by_address[address.lower()]
        return self.impostor if self.lie == "other-key" else found

    def finish(self, signature):
        """A 65-byte r||s||v (v 27/28) signature, bent the way --lie says."""
        r, s, v = signature[:32], int.from_bytes(signature[32:64], "big"), signature[64]
        if v < 27:
            v += 27
        if self.lie == "wrong-v":
            v = 55 - v
        elif self.lie == "high-s":
            s, v = SECP256K1_N - s, 55 - v
        return "0x" + (r + s.to_bytes(32, "big") + bytes([v])).hex()

    # JSON-RPC

    def eth_accounts(self, params):
        return [a.address.lower() for a in self.accounts]

    def eth_sign(self, params):
        if len(params) != 2:
            raise RPCError(-32602, "expected [address, data]")
        account = self.account(params[0])
        signed = account.sign_message(encode_defunct(hexstr=params[1]))
        return self.finish(bytes(signed.signature))

    def eth_signTypedData(self, params):
        if len(params) != 2:
            raise RPCError(-32602, "expected [address, typedData]")
        account = self.account(params[0])
        document = json.loads(params[1]) if isinstance(params[1], str) else params[1]
        signed = account.sign_typed_data(full_message=document)
        return self.finish(bytes(signed.signature))

    def eth_signTransaction(self, params):
        if len(params) != 1 or not isinstance(params[0], dict):
            raise RPCError(-32602, "expected [transaction]")
        request = params[0]
        account = self.account(request.get("from"))
        if "authorizationList" in request:
            raise RPCError(-32602, "authorizationList is not supported")

        def quantity(name):
            value = request.get(name)
            return None if value is None else int(value, 16)

        if request.get("nonce") is None or request.get("gas") is None:
            raise RPCError(-32602, "nonce and gas are required (the stand-in has no downstream node)")
        transaction = {
            "nonce": quantity("nonce"),
            "gas": quantity("gas"),
            "value": quantity("value") or 0,
            "data": request.get("data") or "0x",
            # As web3signer: its configured chain id, whatever the request says (unknown members are ignored).
            "chainId": self.chain_id,
        }
        if request.get("to"):
            transaction["to"] = to_checksum_address(request["to"])
        if request.get("maxFeePerGas") is not None:
            transaction["maxFeePerGas"] = quantity("maxFeePerGas")
            transaction["maxPriorityFeePerGas"] = quantity("maxPriorityFeePerGas") or 0
            transaction["type"] = 2
        elif request.get("gasPrice") is not None:
            transaction["gasPrice"] = quantity("gasPrice")
        else:
            raise RPCError(-32602, "gasPrice or maxFeePerGas is required")
        if request.get("accessList") is not None:
            transaction["accessList"] = request["accessList"]
            transaction.setdefault("type", 1)
        if self.lie == "tampered-tx":
            transaction["value"] += 1
        signed = account.sign_transaction(transaction)
        return "0x" + bytes(signed.raw_transaction).hex()

    # REST

    def sign_for_identifier(self, identifier, data_hex):
        account = self.by_public_key.get(identifier.lower())
        if account is None:
            return None
        if self.lie == "other-key":
            account = self.impostor
        digest = keccak(hexstr=data_hex)
        signature = keys.PrivateKey(bytes(account.key)).sign_msg_hash(digest).to_bytes()
        return self.finish(signature)


class Handler(BaseHTTPRequestHandler):
    signer = None

    def log_message(self, *args):
        pass

    def answer(self, status, body, content_type="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/upcheck":
            self.answer(200, "OK", "text/plain; charset=utf-8")
        elif self.path == "/api/v1/eth1/publicKeys":
            self.answer(200, json.dumps(list(self.signer.by_public_key)))
        else:
            self.answer(404, "")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        prefix = "/api/v1/eth1/sign/"
        if self.path.startswith(prefix):
            try:
                data = json.loads(body)["data"]
                bytes.fromhex(data[2:] if data.startswith("0x") else data)
            except (ValueError, KeyError, TypeError, AttributeError):
                self.answer(400, "")
                return
            signature = self.signer.sign_for_identifier(self.path[len(prefix):], data)
            if signature is None:
                self.answer(404, "")
            else:
                self.answer(200, signature, "text/plain; charset=utf-8")
            return
        if self.path != "/":
            self.answer(404, "")
            return
        try:
            request = json.loads(body)
        except ValueError:
            self.answer(400, json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}))
            return
        reply = {"jsonrpc": "2.0", "id": request.get("id")}
        method = getattr(self.signer, str(request.get("method")), None)
        if method is None or str(request.get("method")).startswith("_") or not request["method"].startswith("eth_"):
            reply["error"] = {"code": -32601, "message": "Method not found"}
        else:
            try:
                reply["result"] = method(request.get("params") or [])
            except RPCError as error:
                reply["error"] = {"code": error.code, "message": error.message}
            except (ValueError, TypeError, KeyError) as error:
                reply["error"] = {"code": -32602, "message": "Invalid params: %s" % error}
        self.answer(200, json.dumps(reply))


def watch_parent(pid):
    while True:
        time.sleep(0.5)
        try:
            os.kill(pid, 0)
        except OSError:
            os._exit(0)
        if os.getppid() == 1:
            os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key-file", action="append", default=[])
    parser.add_argument("--chain-id", type=int, default=1)
    parser.add_argument("--lie", choices=["other-key", "tampered-tx", "wrong-v", "high-s"], default=None)
    parser.add_argument("--parent-pid", type=int, default=None)
    args = parser.parse_args()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    key_hexes = [open(path).read().strip() for path in args.key_file]
    Handler.signer = Signer(key_hexes, args.lie, args.chain_id)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.parent_pid:
        threading.Thread(target=watch_parent, args=(args.parent_pid,), daemon=True).start()
    print("LISTENING %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
