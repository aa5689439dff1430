"""Drives scripts/scale-out-check.sh: eth_sendTransaction through two service instances, with retries.

The bearer token comes on stdin (never on the command line). Transaction i goes to instance i % 2 under
Idempotency-Key "tx-i"; every 10th is retried through the other instance (the stored answer must come
back, marked Idempotent-Replayed); every 50th is sent through both at once (one runs, the other gets 409
or the stored answer; a later retry gets the stored answer). The node then must hold exactly one
successful transaction per key, with nonces 0..count-1.
"""
import argparse
import http.client
import json
import sys
import threading
import time
import urllib.parse


class Instance:
    """One keep-alive connection to a service instance."""

    def __init__(self, url, token):
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.token = parts.hostname, parts.port, token
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def post(self, body, key):
        headers = {"Content-Type": "application/json", "Authorization": "Bearer " + self.token,
                   "Idempotency-Key": key}
        # A connection the server closed is reopened once; the request is the same idempotent one.
        for attempt in range(2):
            try:
                self.connection.request("POST", "/", body=body, headers=headers)
                response = self.connection.getresponse()
                return response.status, response.getheader("Idempotent-Replayed"), response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
                if attempt == 1:
                    raise


def node_call(url, method, params):
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    connection.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    answer = json.loads(connection.getresponse().read())
    connection.close()
    if "error" in answer:
        raise RuntimeError(f"{method}: {answer['error']}")
    return answer["result"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--node", required=True)
    parser.add_argument("--account", required=True)
    parser.add_argument("--answered-file", required=True)
    parser.add_argument("urls", nargs=2)
    args = parser.parse_args()
    token = sys.stdin.read().strip()
    instances = [Instance(url, token) for url in args.urls]
    racers = [Instance(url, token) for url in args.urls]
    recipient = "0x2d5fd9e4a3a225a78329a64d022581275b4ca416"
    failures = []
    answered = 0
    hashes = []
    stats = {"retried": 0, "raced": 0, "conflicts": 0}

    def body(index):
        tx = {"from": args.account, "to": recipient, "value": hex(1000 + index)}
        return json.dumps({"jsonrpc": "2.0", "id": index, "method": "eth_sendTransaction", "params": [tx]})

    def result(status, payload, what):
        if status != 200:
            failures.append(f"{what}: HTTP {status} {payload[:200]!r}")
            return None
        answer = json.loads(payload)
        if "result" not in answer:
            failures.append(f"{what}: {answer.get('error')}")
            return None
        return answer["result"]

    start = time.monotonic()
    for index in range(args.count):
        key = f"tx-{index}"
        if index % 50 == 49:
            stats["raced"] += 1
            outcomes = [None, None]

            def race(slot):
                outcomes[slot] = racers[slot].post(body(index), key)

            threads = [threading.Thread(target=race, args=(slot,)) for slot in (0, 1)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            ran = [o for o in outcomes if o[0] == 200]
            answered += len(ran)
            stats["conflicts"] += sum(1 for o in outcomes if o[0] == 409)
            if not ran or any(o[0] not in (200, 409) for o in outcomes):
                failures.append(f"{key} raced: {[(o[0], o[2][:120]) for o in outcomes]}")
                continue
            first = result(200, ran[0][2], key)
            if any(result(200, o[2], key) != first for o in ran[1:]):
                failures.append(f"{key} raced: two different answers")
            status, replayed, payload = instances[0].post(body(index), key)
            answered += status == 200
            if result(status, payload, key + " after the race") != first or replayed != "true":
                failures.append(f"{key}: the retry after the race did not replay the answer")
            hashes.append(first)
            continue
        status, _, payload = instances[index % 2].post(body(index), key)
        answered += status == 200
        sent = result(status, payload, key)
        if sent is None:
            continue
        hashes.append(sent)
        if index % 10 == 0:
            stats["retried"] += 1
            status, replayed, payload = instances[(index + 1) % 2].post(body(index), key)
            answered += status == 200
            if result(status, payload, key + " retry") != sent or replayed != "true":
                failures.append(f"{key}: the retry through the other instance did not replay the answer")
    elapsed = time.monotonic() - start
    with open(args.answered_file, "w") as handle:
        handle.write(str(answered))
    print(f"     sent {args.count} in {elapsed:.1f} s ({args.count / elapsed:.0f}/s); retried {stats['retried']} "
          f"through the other instance, raced {stats['raced']} through both ({stats['conflicts']} got 409)")

    mined = int(node_call(args.node, "eth_getTransactionCount", [args.account, "latest"]), 16)
    nonces = []
    for sent in hashes:
        receipt = node_call(args.node, "eth_getTransactionReceipt", [sent])
        if receipt is None or receipt.get("status") != "0x1":
            failures.append(f"{sent}: receipt {receipt}")
        nonces.append(int(node_call(args.node, "eth_getTransactionByHash", [sent])["nonce"], 16))
    checks = [
        (mined == args.count, f"mined transactions from the account: {mined} (expected {args.count})"),
        (len(set(hashes)) == len(hashes) == args.count, f"distinct hashes: {len(set(hashes))} of {len(hashes)}"),
        (sorted(nonces) == list(range(args.count)), f"nonces 0..{args.count - 1}, each once"),
        (not failures, f"failed requests: {len(failures)}"),
    ]
    for ok, text in checks:
        print(("ok   " if ok else "FAIL ") + text)
    for failure in failures[:20]:
        print("     " + failure)
    return 0 if all(ok for ok, _ in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
