#!/usr/bin/env python3
"""A fault-injecting HTTP server for SignerKit's tests (Python standard library only).

It listens on 127.0.0.1 (an ephemeral port unless --port is given), prints "LISTENING <port>" on
stdout, and exits when the process --parent-pid names is gone. Every request is recorded (method,
path, headers, body, JSON-RPC method) and then, per the first matching rule:

  reset               read the request, then reset the connection (RST) without forwarding it
  drop_after_forward  forward it upstream, then reset the connection without answering
  hang                hold the connection open without answering (until the client leaves); with
                      "forward": true it is forwarded first
  respond             answer "status", "headers" and "body"; with "forward": true it is forwarded first
                      (a lost answer after the work was done)
  truncate            forward it, then send the upstream answer's headers and only half its body, and close
  redirect            answer "status" (302 default) with "Location: <location>"
  raw                 write "body" to the socket as it is (no status line or headers added), then close

Without a matching rule the request is forwarded to --upstream (a proxy), or answered 404 without one.
A rule matches on "method", "path" (exact), "pathSuffix", "pathContains" and "rpcMethod" (the
"method" member of a JSON-RPC body) when given; "times" limits how often it applies (default 1, -1 =
always). The control API (never recorded): POST /__control/rules {"rules":[…]}, POST
/__control/clear, GET /__control/requests.
"""

import argparse
import http.client
import http.server
import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse

CONTROL = "/__control/"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "proxy-connection", "te",
              "trailer", "upgrade"}


class State:
    def __init__(self, upstream):
        self.upstream = upstream
        self.lock = threading.Lock()
        self.rules = []
        self.requests = []

    def take_rule(self, record):
        with self.lock:
            for rule in self.rules:
                if rule.get("times", 1) == 0 or not matches(rule, record):
                    continue
                if rule.get("times", 1) > 0:
                    rule["times"] = rule.get("times", 1) - 1
                return dict(rule)
        return None


def matches(rule, record):
    if "method" in rule and rule["method"].upper() != record["method"]:
        return False
    path = record["path"].split("?", 1)[0]
    if "path" in rule and rule["path"] != path:
        return False
    if "pathSuffix" in rule and not path.endswith(rule["pathSuffix"]):
        return False
    if "pathContains" in rule and rule["pathContains"] not in record["path"]:
        return False
    if "rpcMethod" in rule and rule["rpcMethod"] != record.get("rpcMethod"):
        return False
    return True


def rpc_method(body):
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("method"), str):
        return value["method"]
    return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.handle_any()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_GET

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        if self.path.startswith(CONTROL):
            return self.control(body)
        text = body.decode("utf-8", "replace")
        record = {
            "method": self.command, "path": self.path,
            "headers": [[name.lower(), value] for name, value in self.headers.items()],
            "body": text, "rpcMethod": rpc_method(text), "time": time.time(),
        }
        rule = self.state.take_rule(record)
        record["action"] = rule["action"] if rule else None
        with self.state.lock:
            self.state.requests.append(record)
        self.close_connection = True
        action = rule["action"] if rule else None
        if action == "reset":
            return self.reset()
        if action == "raw":
            self.wfile.write(rule.get("body", "").encode())
            self.wfile.flush()
            return None
        if action == "redirect":
            return self.answer(rule.get("status", 302), {"Location": rule.get("location", "")}, b"")
        if action == "respond" and not rule.get("forward"):
            return self.answer(rule.get("status", 200), rule.get("headers", {}), rule.get("body", "").encode())
        if action == "hang" and not rule.get("forward"):
            return self.hang()
        answer = self.forward(body)
        if action == "drop_after_forward":
            return self.reset()
        if action == "hang":
            return self.hang()
        if action == "respond":
            return self.answer(rule.get("status", 200), rule.get("headers", {}), rule.get("body", "").encode())
        status, headers, payload = answer
        if action == "truncate":
            return self.answer(status, headers, payload, truncate=True)
        return self.answer(status, headers, payload)

    def forward(self, body):
        upstream = self.state.upstream
        if upstream is None:
            return 404, {"Content-Type": "application/json"}, b'{"code":"not_found","message":"no upstream"}'
        # Bounds a hung upstream (the tests' long polls ask for at most a few seconds).
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port or 80, timeout=30)
        headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
        headers["Connection"] = "close"
        path = upstream.path.rstrip("/") + self.path if upstream.path not in ("", "/") else self.path
        try:
            connection.request(self.command, path, body=body if body or self.command == "POST" else None,
                               headers=headers)
            response = connection.getresponse()
            payload = response.read()
            return response.status, {k: v for k, v in response.getheaders() if k.lower() not in HOP_BY_HOP}, payload
        except OSError as error:
            message = json.dumps({"code": "bad_gateway", "message": str(error)}).encode()
            return 502, {"Content-Type": "application/json"}, message
        finally:
            connection.close()

    def answer(self, status, headers, payload, truncate=False):
        try:
            self.send_response_only(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload[: len(payload) // 2] if truncate else payload)
            self.wfile.flush()
        except OSError:
            pass

    def reset(self):
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            # The file objects hold references to the socket: close them too, so the close is real (RST).
            self.wfile.close()
            self.rfile.close()
            self.connection.close()
        except OSError:
            pass
        self.wfile = _Sink()

    def hang(self):
        deadline = time.time() + 600
        while time.time() < deadline:
            readable, _, _ = select.select([self.connection], [], [], 0.2)
            if readable:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        return
                except OSError:
                    return

    def control(self, body):
        path = self.path.split("?", 1)[0]
        if path == CONTROL + "rules" and self.command == "POST":
            rules = json.loads(body or b"{}").get("rules", [])
            with self.state.lock:
                self.state.rules.extend(rules)
            return self.answer(200, {"Content-Type": "application/json"}, b'{"ok":true}')
        if path == CONTROL + "clear" and self.command == "POST":
            with self.state.lock:
                self.state.rules = []
                self.state.requests = []
            return self.answer(200, {"Content-Type": "application/json"}, b'{"ok":true}')
        if path == CONTROL + "requests":
            with self.state.lock:
                payload = json.dumps({"requests": self.state.requests}).encode()
            return self.answer(200, {"Content-Type": "application/json"}, payload)
        return self.answer(404, {}, b"")


class _Sink:
    closed = True

    def write(self, data):
        return len(data)

    def flush(self):
        pass

    def close(self):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def handle_error(self, request, client_address):
        pass


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
    parser.add_argument("--upstream", default=None)
    parser.add_argument("--parent-pid", type=int, default=None)
    args = parser.parse_args()
    # A child spawned from a thread that blocks signals inherits the mask: unblock, then exit at once.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    Handler.state = State(urllib.parse.urlparse(args.upstream) if args.upstream else None)
    server = Server(("127.0.0.1", args.port), Handler)
    if args.parent_pid:
        threading.Thread(target=watch_parent, args=(args.parent_pid,), daemon=True).start()
    print("LISTENING %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
