#!/usr/bin/env python3
"""A local AWS KMS for the tests: ministack behind a loopback proxy that checks every request's
Signature Version 4 exactly as AWS does and can answer as AWS's KMS does when it throttles, denies or
sees expired credentials (which ministack never does). Test tooling only.

ministack has no listen flag: it is started with BIND_HOST=127.0.0.1, a free GATEWAY_PORT, no IoT
mTLS or SFTP listener, no persistence and state and temporary folders inside --state; then every
socket its processes listen on is checked to be a loopback one (else it is killed and this exits 1).

Usage: server.py --state DIR --credentials FILE [--parent-pid PID]
  FILE (JSON, written by the test, mode 0600): {"ACCESS_KEY_ID": {"secret": "...", "token": "..." or null,
  "expired": false, "deny": ["TrentService.Sign", ...]}, ...}
Prints `LISTENING <port>` once the proxy listens on 127.0.0.1 (only the proxy's port is for clients).

Control endpoints on the proxy (unsigned, loopback tests only):
  POST /__control/throttle {"count": N}  the next N KMS requests are answered ThrottlingException
  POST /__control/hold {"count": N, "seconds": S}  the next N requests wait until N are in flight at
        once (or S seconds have passed), so a test can prove its requests overlap
  GET  /__control/stats  {"requests", "verified", "rejected", "throttled", "maxInFlight", "held"}
"""

import argparse
import ctypes
import datetime
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

AUTHORIZATION = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
    r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$"
)
MAX_SKEW = datetime.timedelta(minutes=5)


class State:
    """What the proxy counts and is told to do; one lock guards it."""

    def __init__(self, credentials):
        self.credentials = credentials
        self.lock = threading.Condition()
        self.throttle = 0
        self.hold = 0
        self.hold_until = 0.0
        self.waiting = 0
        self.stats = {"requests": 0, "verified": 0, "rejected": 0, "throttled": 0, "maxInFlight": 0, "held": 0}
        self.in_flight = 0


def aws_error(kind, message):
    """An answer as KMS's JSON protocol gives an error."""
    return 400, json.dumps({"__type": kind, "message": message}).encode()


def expected_signature(method, path, headers, signed, body, key_id, secret, token, region, service, amz_date):
    """The signature AWS computes for this request (botocore's SigV4 over exactly the signed headers)."""
    chosen = {name: value for name, value in headers if name.lower() in signed}
    request = AWSRequest(method=method, url="http://" + chosen.get("Host", chosen.get("host", "")) + path,
                         data=body, headers=chosen)
    request.context["timestamp"] = amz_date
    auth = SigV4Auth(Credentials(key_id, secret, token), service, region)
    canonical = auth.canonical_request(request)
    return auth.signature(auth.string_to_sign(request, canonical), request)


def verify(state, method, path, headers, body):
    """None when the request is signed as AWS requires, else the error answer AWS gives."""
    lookup = {name.lower(): value for name, value in headers}
    match = AUTHORIZATION.match(lookup.get("authorization", ""))
    if not match:
        return aws_error("IncompleteSignatureException", "Authorization header requires a SigV4 signature.")
    key_id, day, region, service, signed_text, signature = match.groups()
    signed = signed_text.split(";")
    if signed != sorted(signed) or service != "kms":
        return aws_error("IncompleteSignatureException", "Malformed credential scope or signed headers.")
    for required in ("host", "x-amz-date", "x-amz-target"):
        if required not in signed:
            return aws_error("IncompleteSignatureException", f"'{required}' must be a signed header.")
    amz_date = lookup.get("x-amz-date", "")
    try:
        when = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    except ValueError:
        return aws_error("IncompleteSignatureException", "X-Amz-Date is malformed.")
    if day != amz_date[:8]:
        return aws_error("InvalidSignatureException", "Credential scope date does not match X-Amz-Date.")
    if abs(datetime.datetime.now(datetime.timezone.utc) - when) > MAX_SKEW:
        return aws_error("InvalidSignatureException", "Signature expired.")
    entry = state.credentials.get(key_id)
    if entry is None:
        return aws_error("UnrecognizedClientException", "The security token included in the request is invalid.")
    token = entry.get("token")
    if token is not None and (lookup.get("x-amz-security-token") != token or "x-amz-security-token" not in signed):
        return aws_error("UnrecognizedClientException", "The security token included in the request is invalid.")
    want = expected_signature(method, path, headers, signed, body, key_id, entry["secret"], token, region,
                              service, amz_date)
    if want != signature:
        return aws_error("InvalidSignatureException", "The request signature we calculated does not match the "
                         "signature you provided.")
    if entry.get("expired"):
        return aws_error("ExpiredTokenException", "The security token included in the request is expired")
    operation = lookup.get("x-amz-target", "")
    if operation in entry.get("deny", []):
        return aws_error("AccessDeniedException", f"User is not authorized to perform: kms:{operation[13:]}")
    return None


class Server(ThreadingHTTPServer):
    """Many clients connect at once (a batch's signatures): a listen backlog of 5, the default, drops their SYNs
    and each dropped one waits a second for its retransmission."""

    request_queue_size = 512
    daemon_threads = True


def make_handler(state, upstream_port):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body, content_type="application/x-amz-json-1.1"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/__control/stats":
                with state.lock:
                    self.answer(200, json.dumps(state.stats).encode(), "application/json")
            else:
                self.answer(404, b"{}", "application/json")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if self.path.startswith("/__control/"):
                return self.control(json.loads(body or b"{}"))
            with state.lock:
                state.stats["requests"] += 1
                state.in_flight += 1
                state.stats["maxInFlight"] = max(state.stats["maxInFlight"], state.in_flight)
            try:
                self.wait_if_held()
                status, answer = self.kms(body)
            finally:
                with state.lock:
                    state.in_flight -= 1
            self.answer(status, answer)

        def wait_if_held(self):
            with state.lock:
                if state.hold <= 0:
                    return
                state.hold -= 1
                state.waiting += 1
                state.stats["held"] += 1
                state.lock.notify_all()
                while state.hold > 0 and time.monotonic() < state.hold_until:
                    state.lock.wait(timeout=max(0.0, state.hold_until - time.monotonic()))
                state.waiting -= 1

        def kms(self, body):
            error = verify(state, "POST", self.path, list(self.headers.items()), body)
            with state.lock:
                if error is not None:
                    state.stats["rejected"] += 1
                    return error
                state.stats["verified"] += 1
                if state.throttle > 0:
                    state.throttle -= 1
                    state.stats["throttled"] += 1
                    return aws_error("ThrottlingException", "Rate exceeded")
            connection = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=60)
            try:
                forwarded = {name: value for name, value in self.headers.items()
                             if name.lower() in ("content-type", "x-amz-target", "authorization", "x-amz-date")}
                connection.request("POST", "/", body=body, headers=forwarded)
                response = connection.getresponse()
                return response.status, response.read()
            finally:
                connection.close()

        def control(self, command):
            with state.lock:
                if self.path == "/__control/throttle":
                    state.throttle = int(command["count"])
                elif self.path == "/__control/hold":
                    state.hold = int(command["count"])
                    state.hold_until = time.monotonic() + float(command.get("seconds", 30))
                else:
                    return self.answer(404, b"{}", "application/json")
            self.answer(200, b"{}", "application/json")

    return Handler


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def descendants(root):
    """`root` and every process below it."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as stat:
                    parents[int(name)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    found, frontier = {root}, [root]
    while frontier:
        current = frontier.pop()
        for pid, parent in parents.items():
            if parent == current and pid not in found:
                found.add(pid)
                frontier.append(pid)
    return found


def listening_addresses(pids):
    """The local addresses of the TCP sockets in LISTEN state and UDP sockets the processes hold."""
    inodes = set()
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            pass
    addresses = []
    for table, listening in (("tcp", "0A"), ("tcp6", "0A"), ("udp", None), ("udp6", None)):
        try:
            with open(f"/proc/net/{table}") as rows:
                next(rows)
                for row in rows:
                    fields = row.split()
                    if fields[9] in inodes and (listening is None or fields[3] == listening):
                        addresses.append((table, fields[1].split(":")[0]))
        except OSError:
            pass
    return addresses


def is_loopback(table, hex_address):
    if table.endswith("6"):
        return hex_address in ("00000000000000000000000001000000", "0000000000000000FFFF00000100007F")
    return hex_address.endswith("7F")  # 127.x.x.x, little-endian


def start_ministack(state_dir):
    port = free_port()
    for sub in ("ministack-state", "tmp"):
        os.makedirs(os.path.join(state_dir, sub), exist_ok=True)
    environment = dict(os.environ)
    environment.update({
        "BIND_HOST": "127.0.0.1", "GATEWAY_PORT": str(port), "IOT_MTLS_ENABLED": "0", "SFTP_ENABLED": "0",
        "PERSIST_STATE": "0", "STATE_DIR": os.path.join(state_dir, "ministack-state"),
        "TMPDIR": os.path.join(state_dir, "tmp"), "LOG_LEVEL": "WARNING",
    })
    log = open(os.path.join(state_dir, "ministack.log"), "w")
    # In this launcher's process group (the tests' harness kills the group) and killed by the kernel when the
    # launcher dies, however it dies: ministack ignores SIGTERM for seconds.
    process = subprocess.Popen([sys.executable, "-m", "ministack"], cwd=state_dir, env=environment,
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                               preexec_fn=die_with_parent)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"ministack exited with {process.returncode}; see {log.name}")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    else:
        stop(process)
        raise SystemExit("ministack did not listen within 60 s")
    addresses = listening_addresses(descendants(process.pid))
    exposed = [a for a in addresses if not is_loopback(*a)]
    if exposed or not addresses:
        stop(process)
        raise SystemExit(f"ministack listens beyond loopback (or nowhere): {addresses}")
    return process, port


def die_with_parent():
    """In the child before exec: SIGKILL when the launcher's thread that started it exits (PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def stop(process):
    """Kills ministack (no state is kept: nothing to shut down gracefully) and reaps it."""
    try:
        process.kill()
        process.wait(timeout=10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", required=True)
    parser.add_argument("--credentials", required=True)
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    with open(args.credentials) as file:
        credentials = json.load(file)
    process, upstream = start_ministack(args.state)
    state = State(credentials)
    server = Server(("127.0.0.1", 0), make_handler(state, upstream))

    def shut_down(*_):
        stop(process)
        os._exit(0)

    signal.signal(signal.SIGTERM, shut_down)
    signal.signal(signal.SIGINT, shut_down)

    def watch_parent():
        while True:
            time.sleep(1)
            if args.parent_pid and not os.path.exists(f"/proc/{args.parent_pid}"):
                shut_down()
            if process.poll() is not None:
                os._exit(1)

    threading.Thread(target=watch_parent, daemon=True).start()
    print(f"LISTENING {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
