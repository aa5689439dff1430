#!/usr/bin/env python3
"""Part (b) of scripts/load-service.sh: a bounded mixed load on `signerkit serve` (Python stdlib only).

  mixed_load.py load  ...  sends --requests HTTP requests from --clients keep-alive connections, checks every
                           answer, samples the server's VmRSS every second, checks /metrics, recovers one
                           signature per distinct payload with `signerkit recover`, and writes what the audit
                           log and the request log must hold to --expect.
  mixed_load.py audit ...  once the server has stopped: checks the audit log and the request log (stderr)
                           against --expect: every call exactly once, nothing else.

The mix (weights per 100 requests; request n's kind and payload depend on n only, so a run is reproducible):
  25 personal_sign (16 messages, hex and text)       12 eth_signTypedData_v4 (8 Ronin orders, object or text)
   8 eth_accounts                                     8 eth_chainId
  10 signerkit_signActions (typed data + message)     7 signerkit_preview (the same actions)
  10 JSON-RPC batches of 2-6 calls (valid calls, sometimes an invalid call or a notification among them)
  12 invalid requests, each with the JSON-RPC error code it must get (expected errors, not failures):
     -32700 truncated JSON, -32600 jsonrpc "1.0" / empty batch / a bare string, -32601 unknown method /
     eth_blockNumber without upstream / eth_sign while disabled, -32602 personal_sign without address /
     typed data "{}" / signActions with an unknown action (the message names action[1]), -32001 a foreign
     account, -32004 a batch over limits.maxBatchSize
   5 HTTP 401 (no token, a wrong token, a Basic scheme): no audit line
   3 a lone notification (eth_accounts without id): HTTP 204, one audit line
Signatures are deterministic (RFC 6979): every answer for one payload must be the same, and signActions'
results must equal the single-method answers for the same message and order; one answer per payload is
recovered to the key's address by the CLI.
Resident memory: VmRSS once the first --warmup requests are answered against the last sample, at most
max(--rss-margin-percent, --rss-margin-mib) more. On this 2-core machine the allocator settles by 1-2 MiB over
the first ~30,000 requests and then stays flat (a 60,000-request run: +1.2 MiB, flat from 30,000 on), while
a leak of ~230 B per request (less than any request body, answer or audit line) passes 4 MiB in 18,000.
"""
import argparse
import collections
import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.parse

SIGNATURE = re.compile(r"^0x[0-9a-f]{130}$")
CHAIN = "eip155:2021"  # the config's chainId and the Ronin order's domain chainId
FOREIGN = "0x0000000000000000000000000000000000000001"
KNOWN_METHODS = {
    "personal_sign", "eth_signTypedData_v4", "eth_signTypedData", "eth_signTransaction", "eth_sendTransaction",
    "eth_accounts", "eth_chainId", "eth_sign", "signerkit_signActions", "signerkit_preview",
}
WEIGHTS = [("personal", 25), ("typed", 12), ("accounts", 8), ("chainid", 8), ("actions", 10), ("preview", 7),
           ("batch", 10), ("invalid", 12), ("unauthorized", 5), ("notification", 3)]


def dumps(value):
    return json.dumps(value, separators=(",", ":"))


class Mix:
    """Builds request n: (kind, authorization header or None, body bytes, expected calls, whole-body flag)."""

    def __init__(self, address, typed_data_text, token, max_batch):
        self.address, self.token, self.max_batch = address, token, max_batch
        self.messages = [("0x" + f"load message {k}".encode().hex()) for k in range(12)]
        self.messages += [f"hello load {k}" for k in range(4)]
        assert '"nonce": "0"' in typed_data_text, "the Ronin order fixture has no nonce to vary"
        self.orders = [typed_data_text.replace('"nonce": "0"', f'"nonce": "{k}"', 1) for k in range(8)]
        self.kinds = [kind for kind, weight in WEIGHTS for _ in range(weight)]

    # Calls: each is (request object, expectation); expectation is ("ok", check) or ("error", code[, text]).
    def personal(self, rng, ident):
        k = rng.randrange(len(self.messages))
        account = self.address if rng.random() < 0.5 else self.address.lower()
        return ({"jsonrpc": "2.0", "id": ident, "method": "personal_sign", "params": [self.messages[k], account]},
                ("ok", ("sig", f"m{k}")))

    def typed(self, rng, ident):
        k = rng.randrange(len(self.orders))
        document = json.loads(self.orders[k]) if rng.random() < 0.5 else self.orders[k]
        return ({"jsonrpc": "2.0", "id": ident, "method": "eth_signTypedData_v4", "params": [self.address, document]},
                ("ok", ("sig", f"t{k}")))

    def action_list(self, rng):
        m, t = rng.randrange(len(self.messages)), rng.randrange(len(self.orders))
        typed_params = [self.address, json.loads(self.orders[t])]
        personal_params = [self.messages[m], self.address]
        if rng.random() < 0.5:  # the SDK shape: params as JSON text
            actions = [{"walletRpc": {"chainId": CHAIN, "method": "eth_signTypedData_v4", "params": dumps(typed_params)}},
                       {"walletRpc": {"chainId": CHAIN, "method": "personal_sign", "params": dumps(personal_params)}}]
        else:  # Pay's wire shape
            actions = [{"type": "walletRpc", "data": {"chain_id": CHAIN, "method": "eth_signTypedData_v4",
                                                      "params": typed_params}},
                       {"type": "walletRpc", "data": {"chain_id": CHAIN, "method": "personal_sign",
                                                      "params": personal_params}}]
        params = [actions] if rng.random() < 0.5 else {"actions": actions}
        return params, [f"t{t}", f"m{m}"]

    def actions(self, rng, ident):
        params, keys = self.action_list(rng)
        return ({"jsonrpc": "2.0", "id": ident, "method": "signerkit_signActions", "params": params},
                ("ok", ("sigs", keys)))

    def preview(self, rng, ident):
        params, _ = self.action_list(rng)
        return ({"jsonrpc": "2.0", "id": ident, "method": "signerkit_preview", "params": params},
                ("ok", ("previews", ["eth_signTypedData_v4", "personal_sign"])))

    def simple(self, method, result):
        return lambda rng, ident: ({"jsonrpc": "2.0", "id": ident, "method": method}, ("ok", ("equal", result)))

    def bad_call(self, rng, ident):
        """One invalid call that can also stand inside a batch."""
        a = self.address
        cases = [
            ({"jsonrpc": "1.0", "id": ident, "method": "eth_accounts"}, -32600, None),
            ({"jsonrpc": "2.0", "id": ident, "method": "signerkit_nope"}, -32601, None),
            ({"jsonrpc": "2.0", "id": ident, "method": "eth_blockNumber"}, -32601, None),
            ({"jsonrpc": "2.0", "id": ident, "method": "eth_sign", "params": [a, "0x01"]}, -32601, None),
            ({"jsonrpc": "2.0", "id": ident, "method": "personal_sign", "params": ["0x01"]}, -32602, None),
            ({"jsonrpc": "2.0", "id": ident, "method": "personal_sign", "params": ["0x01", FOREIGN]}, -32001, None),
            ({"jsonrpc": "2.0", "id": ident, "method": "eth_signTypedData_v4", "params": [a, "{}"]}, -32602, None),
            ({"jsonrpc": "2.0", "id": ident, "method": "signerkit_signActions", "params": [[
                {"type": "walletRpc", "data": {"chain_id": CHAIN, "method": "personal_sign", "params": ["0x01", a]}},
                {"walletRpc": {"chainId": CHAIN, "method": "eth_mystery", "params": "[]"}}]]}, -32602, "action[1]"),
        ]
        call, code, text = cases[rng.randrange(len(cases))]
        return call, ("error", code, text)

    def build(self, n):
        """Request n: (kind, authorization, body, calls, single) where calls lists (id, audit method,
        expectation) per call in order, and single marks a body answered by one object."""
        rng = random.Random(n)
        kind = self.kinds[rng.randrange(len(self.kinds))]
        auth = f"Bearer {self.token}"
        builders = {"personal": self.personal, "typed": self.typed, "actions": self.actions,
                    "preview": self.preview, "accounts": self.simple("eth_accounts", [self.address]),
                    "chainid": self.simple("eth_chainId", "0x7e5")}
        ident = f"r{n}" if n % 2 else n
        if kind in builders:
            call, expect = builders[kind](rng, ident)
            return kind, auth, dumps(call).encode(), [(ident, call["method"], expect)], True
        if kind == "batch":
            calls, objects = [], []
            valid = ["personal", "typed", "actions", "preview", "accounts", "chainid"]
            for i in range(rng.randint(2, 6)):
                ident = f"r{n}.{i}"
                roll = rng.random()
                if roll < 0.15:
                    call, expect = self.bad_call(rng, ident)
                elif roll < 0.25:  # a notification: no answer, but an audit line
                    call, expect, ident = {"jsonrpc": "2.0", "method": "eth_chainId"}, ("ok", ("equal", "0x7e5")), None
                else:
                    call, expect = builders[rng.choice(valid)](rng, ident)
                objects.append(call)
                calls.append((ident, call["method"], expect))
            if all(ident is None for ident, _, _ in calls):  # keep one answer: the 204 case is its own kind
                objects[0]["id"] = f"r{n}.0"
                calls[0] = (f"r{n}.0", calls[0][1], calls[0][2])
            return kind, auth, dumps(objects).encode(), calls, False
        if kind == "invalid":
            roll = rng.randrange(12)
            whole = [  # bodies answered by one error with id null; the audit line has method ""
                (b'{"jsonrpc":"2.0","id":1,"method":', -32700),
                (b"[]", -32600),
                (b'"eth_accounts"', -32600),
                (dumps([{"jsonrpc": "2.0", "id": i, "method": "eth_chainId"}
                        for i in range(self.max_batch + 1)]).encode(), -32004),
            ]
            if roll < len(whole):
                body, code = whole[roll]
                return kind, auth, body, [(None, "", ("error", code, None))], True
            call, expect = self.bad_call(rng, ident)
            return kind, auth, dumps(call).encode(), [(ident, call["method"], expect)], True
        if kind == "unauthorized":
            auth = [None, "Bearer wrong-token", f"Basic {self.token}"][rng.randrange(3)]
            return kind, auth, b'{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}', [], True
        assert kind == "notification"
        return kind, auth, b'{"jsonrpc":"2.0","method":"eth_accounts"}', [(None, "eth_accounts", ("ok", ("equal", [self.address])))], True


class Run:
    """Shared state of the load: the failures, the results seen per payload, the expected audit lines."""

    def __init__(self, total):
        self.lock = threading.Lock()
        self.next = 0
        self.total = total
        self.completed = 0
        self.failures = []
        self.signatures = {}  # payload key -> the one signature every answer for it must be
        self.kinds = collections.Counter()
        self.expected_errors = collections.Counter()
        self.statuses = collections.Counter()
        self.expect = [None] * total  # per request: [status, request id, [[method, code or None], ...]]
        self.latencies = [0.0] * total
        self.connections = 0

    def take(self):
        with self.lock:
            if self.next >= self.total:
                return None
            self.next += 1
            return self.next - 1

    def fail(self, n, text):
        with self.lock:
            self.failures.append(f"request {n}: {text}")

    def signature(self, n, key, value):
        if not isinstance(value, str) or not SIGNATURE.match(value):
            return self.fail(n, f"{key}: not a signature: {str(value)[:100]}")
        with self.lock:
            seen = self.signatures.setdefault(key, value)
        if seen != value:
            self.fail(n, f"{key}: answered {value[:20]}…, an earlier answer for the same payload was {seen[:20]}…")


def check_result(run, n, check, value):
    kind, arg = check
    if kind == "sig":
        run.signature(n, arg, value)
    elif kind == "sigs":
        if not isinstance(value, list) or len(value) != len(arg):
            return run.fail(n, f"expected {len(arg)} results, got {str(value)[:200]}")
        for key, item in zip(arg, value):
            run.signature(n, key, item)
    elif kind == "previews":
        if not isinstance(value, list) or [p.get("method") for p in value] != arg or \
                [p.get("index") for p in value] != list(range(len(arg))):
            run.fail(n, f"unexpected previews {str(value)[:200]}")
    elif value != arg:
        run.fail(n, f"expected {arg}, got {str(value)[:200]}")


def check_answer(run, n, ident, expect, answer):
    if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0" or answer.get("id") != ident:
        return run.fail(n, f"answer for id {ident!r} is {str(answer)[:200]}")
    if expect[0] == "ok":
        if "result" not in answer:
            return run.fail(n, f"id {ident!r}: unexpected error {answer.get('error')}")
        check_result(run, n, expect[1], answer["result"])
    else:
        error = answer.get("error") or {}
        if error.get("code") != expect[1] or (expect[2] and expect[2] not in error.get("message", "")):
            return run.fail(n, f"id {ident!r}: expected error {expect[1]}, got {str(answer)[:200]}")
        with run.lock:
            run.expected_errors[expect[1]] += 1


def check_response(run, n, kind, calls, single, status, headers, body):
    request_id = headers.get("X-Request-Id")
    if kind == "unauthorized":
        if status != 401 or json.loads(body or b"null") != {"error": "unauthorized"} or \
                headers.get("WWW-Authenticate") != "Bearer":
            run.fail(n, f"expected 401, got HTTP {status} {body[:200]!r}")
        return None
    if kind == "notification":
        if status != 204 or body:
            run.fail(n, f"expected 204, got HTTP {status} {body[:200]!r}")
        return None
    if status != 200 or not request_id:
        run.fail(n, f"HTTP {status} (X-Request-Id {request_id}) {body[:200]!r}")
        return request_id
    try:
        answer = json.loads(body)
    except ValueError:
        run.fail(n, f"answer is not JSON: {body[:200]!r}")
        return request_id
    answered = [(ident, expect) for ident, _, expect in calls if ident is not None or single]
    answers = [answer] if single else answer
    if not isinstance(answers, list) or len(answers) != len(answered):
        run.fail(n, f"expected {len(answered)} answers, got {str(answer)[:200]}")
        return request_id
    for (ident, expect), item in zip(answered, answers):
        check_answer(run, n, ident, expect, item)
    return request_id


def client(run, mix, url):
    parsed = urllib.parse.urlsplit(url)
    connection = None
    while (n := run.take()) is not None:
        kind, auth, body, calls, single = mix.build(n)
        headers = {"Content-Type": "application/json"}
        if auth:
            headers["Authorization"] = auth
        try:
            if connection is None:
                connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
                with run.lock:
                    run.connections += 1
            start = time.perf_counter()
            connection.request("POST", "/", body=body, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            run.latencies[n] = time.perf_counter() - start
            status, response_headers = response.status, response.headers
            if response.will_close:
                connection.close()
                connection = None
        except (OSError, http.client.HTTPException) as error:
            run.fail(n, f"{kind}: {type(error).__name__}: {error}")
            if connection is not None:
                connection.close()
            connection = None
            continue
        try:
            request_id = check_response(run, n, kind, calls, single, status, response_headers, payload)
        except Exception as error:  # a checker bug must fail the run, not end a client thread
            run.fail(n, f"{kind}: checking the answer raised {type(error).__name__}: {error}")
            request_id = response_headers.get("X-Request-Id")
        audit = [[method, expect[1] if expect[0] == "error" else None] for _, method, expect in calls]
        with run.lock:
            run.expect[n] = [status, request_id, audit]
            run.kinds[kind] += 1
            run.statuses[status] += 1
            run.completed += 1
    if connection is not None:
        connection.close()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def metrics(url):
    parsed = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    requests, unauthorized = collections.Counter(), None
    for line in text.splitlines():
        if match := re.match(r'signerkit_requests_total\{method="([^"]*)",outcome="([^"]*)"\} (\d+)$', line):
            requests[(match[1], match[2])] = int(match[3])
        elif line.startswith("signerkit_unauthorized_total "):
            unauthorized = int(line.split()[1])
    return requests, unauthorized


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def recover(signerkit, work, run, mix):
    """One `signerkit recover` per distinct payload: each signature must recover to the key's address."""
    bad = []
    for key, signature in sorted(run.signatures.items()):
        index = int(key[1:])
        if key[0] == "m":
            message = mix.messages[index]
            source = ["--hex", message] if message.startswith("0x") else ["--text", message]
            command = [signerkit, "recover", "message", *source, "--signature", signature]
        else:
            path = os.path.join(work, f"order-{index}.json")
            with open(path, "w") as file:
                file.write(mix.orders[index])
            command = [signerkit, "recover", "typed-data", path, "--signature", signature]
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if result.returncode != 0 or result.stdout.strip().lower() != mix.address.lower():
            bad.append(f"{key}: {result.stdout.strip()} {result.stderr.strip()[:200]}")
    return bad


def load(args):
    with open(args.typed_data) as file:
        mix = Mix(args.address, file.read(), args.token, args.max_batch)
    run = Run(args.requests)
    samples = []  # (seconds, completed requests, VmRSS KiB), one a second
    threads = [threading.Thread(target=client, args=(run, mix, args.url), daemon=True) for _ in range(args.clients)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    while any(thread.is_alive() for thread in threads) and time.monotonic() < start + args.max_seconds:
        if time.monotonic() >= start + len(samples):
            samples.append((time.monotonic() - start, run.completed, rss_kib(args.pid)))
        time.sleep(0.02)
    elapsed = time.monotonic() - start
    samples.append((elapsed, run.completed, rss_kib(args.pid)))
    failures = list(run.failures)
    if any(thread.is_alive() for thread in threads):
        failures.append(f"the load did not finish within {args.max_seconds} s ({run.completed} done)")

    # The expected audit lines, and what /metrics must count by now.
    calls = [(method, code) for entry in run.expect if entry for method, code in entry[2]]
    expected = collections.Counter(
        (method if method in KNOWN_METHODS else "other", "ok" if code is None else f"error_{-code}")
        for method, code in calls)
    counted, unauthorized = metrics(args.url)
    if counted != expected:
        diff = {k: (counted.get(k, 0), expected.get(k, 0)) for k in set(counted) | set(expected)
                if counted.get(k, 0) != expected.get(k, 0)}
        failures.append(f"/metrics signerkit_requests_total differs (counted, expected): {diff}")
    if unauthorized != run.statuses[401]:
        failures.append(f"/metrics signerkit_unauthorized_total is {unauthorized}, {run.statuses[401]} were sent")
    failures += [f"recover: {line}" for line in recover(args.signerkit, args.work, run, mix)]

    # Resident memory: after the warm-up against the end.
    warm = next((s for s in samples if s[1] >= args.warmup), samples[-1])
    end = samples[-1]
    after = [s for s in samples if s[1] >= warm[1]]
    slope = 0.0
    if len(after) > 2 and after[-1][1] > after[0][1]:
        mean_x = sum(s[1] for s in after) / len(after)
        mean_y = sum(s[2] for s in after) / len(after)
        covariance = sum((s[1] - mean_x) * (s[2] - mean_y) for s in after)
        variance = sum((s[1] - mean_x) ** 2 for s in after)
        slope = covariance / variance * 1024 if variance else 0.0  # bytes per request
    growth = end[2] - warm[2]
    margin = max(args.rss_margin_percent / 100 * warm[2], args.rss_margin_mib * 1024)
    if growth > margin:
        failures.append(f"resident memory grew {growth} KiB after the warm-up (allowed {margin:.0f} KiB)")

    latencies = [value for value in run.latencies if value]
    print(f"(b) {run.completed} requests in {elapsed:.1f} s ({run.completed / elapsed:.0f} req/s) from "
          f"{args.clients} clients over {run.connections} connections; {len(calls)} JSON-RPC calls")
    print("(b) kinds: " + ", ".join(f"{k} {run.kinds[k]}" for k, _ in WEIGHTS))
    print("(b) HTTP statuses: " + ", ".join(f"{s}: {c}" for s, c in sorted(run.statuses.items())))
    print("(b) expected JSON-RPC errors: " + ", ".join(f"{c}: {k}" for c, k in sorted(run.expected_errors.items())))
    print(f"(b) latency p50 {percentile(latencies, 0.5) * 1e3:.2f} ms, p99 {percentile(latencies, 0.99) * 1e3:.2f} ms")
    print(f"(b) distinct payloads signed {len(run.signatures)}, each answer identical and recovered to the key")
    print(f"(b) VmRSS: start {samples[0][2]} KiB, after warm-up ({warm[1]} requests, {warm[0]:.0f} s) {warm[2]} KiB, "
          f"max {max(s[2] for s in samples)} KiB, end {end[2]} KiB: growth {growth:+d} KiB "
          f"(limit max({args.rss_margin_percent:g} %, {args.rss_margin_mib:g} MiB) = {margin:.0f} KiB), "
          f"trend {slope:+.1f} B/request over {len(after)} samples")
    with open(args.samples, "w") as file:
        file.writelines(f"{t:.1f} {c} {r}\n" for t, c, r in samples)
    with open(args.expect, "w") as file:
        json.dump([entry for entry in run.expect if entry], file)
    return report(failures, "(b) load")


def audit(args):
    with open(args.expect) as file:
        expect = json.load(file)
    failures = []
    lines = collections.defaultdict(list)  # request id -> audit lines
    with open(args.audit) as file:
        for number, text in enumerate(file, 1):
            try:
                line = json.loads(text)
                lines[line["requestId"]].append(line)
            except (ValueError, KeyError) as error:
                failures.append(f"audit line {number} is not a JSON audit line ({error}): {text[:200]!r}")
    with open(args.log) as file:
        log = [json.loads(text) for text in file.read().splitlines()[1:]]  # after the "listening" line
    log_status = {entry["requestId"]: entry["status"] for entry in log if entry.get("msg") == "request"}
    if len(log) != len(expect) or len(log_status) != len(expect):
        failures.append(f"request log: {len(log)} lines, {len(log_status)} request ids, for {len(expect)} requests")
    answered = {}
    for status, request_id, calls in expect:
        if request_id is not None:
            answered[request_id] = calls
            if log_status.get(request_id) != status:
                failures.append(f"request log: {request_id} has status {log_status.get(request_id)}, sent {status}")
    # 204 answers carry no X-Request-Id: their ids come from the request log.
    quiet = [calls for status, _, calls in expect if status == 204]
    quiet_ids = [rid for rid, status in log_status.items() if status == 204]
    unauthorized_ids = {rid for rid, status in log_status.items() if status == 401}
    if len(quiet_ids) != len(quiet):
        failures.append(f"request log: {len(quiet_ids)} requests answered 204, {len(quiet)} sent")
    for rid in quiet_ids if quiet else []:
        answered[rid] = quiet[0]  # every 204 request of the mix is the same lone eth_accounts notification
    lost = duplicated = wrong = 0
    for request_id, calls in answered.items():
        got = lines.get(request_id, [])
        indices = collections.Counter(line.get("call") for line in got)
        lost += sum(1 for index in range(len(calls)) if indices[index] == 0)
        duplicated += sum(count - 1 for count in indices.values() if count > 1)
        for line in got:
            index = line.get("call")
            if not isinstance(index, int) or not 0 <= index < len(calls):
                wrong += 1
                continue
            method, code = calls[index]
            outcome = "ok" if code is None else "error"
            if line.get("method") != method or line.get("outcome") != outcome or line.get("code") != code or \
                    line.get("client") != "load" or (code is None) != ("resultHash" in line):
                wrong += 1
                if wrong <= 5:
                    failures.append(f"audit {request_id} call {index}: {line} (expected {method} {code})")
    strays = [rid for rid in lines if rid not in answered]
    audit_calls = sum(len(group) for group in lines.values())
    expected_calls = sum(len(calls) for calls in answered.values())
    if lost or duplicated or wrong or strays:
        failures.append(f"audit: {lost} lost, {duplicated} duplicated, {wrong} wrong lines, {len(strays)} request ids "
                        f"no request answered ({len(unauthorized_ids & set(strays))} of them 401s)")
    print(f"(b) audit log: {audit_calls} lines for {expected_calls} calls of {len(answered)} answered requests "
          f"({len(quiet_ids)} of them 204); lost {lost}, duplicated {duplicated}, wrong {wrong}, stray {len(strays)}; "
          f"request log: {len(log)} lines")
    return report(failures, "(b) audit")


def report(failures, what):
    for failure in failures[:20]:
        print(f"FAIL {what}: {failure}")
    if len(failures) > 20:
        print(f"FAIL {what}: … and {len(failures) - 20} more")
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("load")
    for flag in ["--url", "--token", "--address", "--typed-data", "--signerkit", "--work", "--expect", "--samples"]:
        run.add_argument(flag, required=True)
    run.add_argument("--pid", type=int, required=True, help="the server's pid (VmRSS)")
    run.add_argument("--requests", type=int, default=20000)
    run.add_argument("--clients", type=int, default=8)
    run.add_argument("--max-batch", type=int, required=True, help="the config's limits.maxBatchSize")
    run.add_argument("--warmup", type=int, default=2000, help="requests before the RSS reference sample")
    run.add_argument("--rss-margin-percent", type=float, default=10)
    run.add_argument("--rss-margin-mib", type=float, default=4)
    run.add_argument("--max-seconds", type=float, default=900)
    check = commands.add_parser("audit")
    for flag in ["--expect", "--audit", "--log"]:
        check.add_argument(flag, required=True)
    args = parser.parse_args()
    return load(args) if args.command == "load" else audit(args)


if __name__ == "__main__":
    sys.exit(main())
