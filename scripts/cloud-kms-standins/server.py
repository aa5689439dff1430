#!/usr/bin/env python3
"""Local stand-ins for Google Cloud KMS and Azure Key Vault, for the tests. Test tooling only.

Neither service has an official local emulator, so this implements the parts of their public REST
references SignerKit calls, on 127.0.0.1 only:

Google Cloud KMS (cloudkms.googleapis.com, v1):
  POST /token                    OAuth2 JWT-bearer grant (RFC 7523): the assertion's RS256 signature is
                                 verified with the service account's public key, and iss, aud, scope,
                                 iat and exp are checked as Google's token endpoint does
  GET  /v1/{name}/publicKey      {"pem", "algorithm", "pemCrc32c", "name", "protectionLevel"}
  POST /v1/{name}:asymmetricSign {"digest": {"sha256"}, "digestCrc32c"} -> DER signature with
                                 "signatureCrc32c" and "verifiedDigestCrc32c"
Azure Key Vault (api-version 7.4) and Microsoft Entra ID:
  POST /{tenant}/oauth2/v2.0/token  client-credentials grant, scope https://vault.azure.net/.default
  GET  /keys/{name}/{version}       {"key": JWK (kty EC, crv P-256K, x, y), "attributes"}
  POST /keys/{name}/{version}/sign  {"alg": "ES256K", "value"} -> {"kid", "value": base64url r||s}

Every API request must carry a bearer token this process issued to that service. Signatures are
ECDSA over the digest as given; s is returned in the high half about every other time (as the real
services do: neither normalises s). Errors have each service's JSON error shape.

Usage: server.py --state DIR [--parent-pid PID]
  Writes DIR/gcp-service-account.json (a fresh RSA key, token_uri of this process) and DIR/azure.json
  ({"tenant", "clientId", "clientSecret"}), then prints `LISTENING <port>`.
Control endpoints (loopback tests only):
  POST /__control/key {"service": "gcp"|"azure", "kind": "secp256k1"|"p256", "enabled": true}
        -> {"name": resource name or key id URL, "address": EIP-55 address (secp256k1 only)}
  POST /__control/enable {"name", "enabled"}        enables or disables a key
  POST /__control/fail {"count": N, "status": S}    the next N API requests are answered status S
                                                    (429, 403, 500, ...) in the service's error shape
  POST /__control/revoke                            every token issued so far stops being accepted
  POST /__control/tamper {"count": N, "mode": M}    the next N signatures are spoilt: "crc" (GCP: a wrong
                                                    signatureCrc32c), "otherKey" (made by another key),
                                                    "malformed" (GCP: no signature; Azure: 63 bytes)
  GET  /__control/stats  {"gcpTokens", "azureTokens", "jwtVerified", "signatures", "highS", "failed"}
"""

import argparse
import base64
import hashlib
import http.server
import json
import os
import secrets
import signal
import threading
import time
import urllib.parse

from Crypto.Hash import SHA256
from Crypto.PublicKey import ECC, RSA
from Crypto.Signature import pkcs1_15
from eth_keys import keys

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
SECP256K1_SPKI_PREFIX = bytes.fromhex("3056301006072a8648ce3d020106052b8104000a034200")
GCP_SCOPE = "https://www.googleapis.com/auth/cloudkms"
AZURE_SCOPE = "https://vault.azure.net/.default"


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def der_integer(value):
    raw = value.to_bytes(32, "big").lstrip(b"\0") or b"\0"
    if raw[0] & 0x80:
        raw = b"\0" + raw
    return b"\x02" + bytes([len(raw)]) + raw


def der_signature(r, s):
    body = der_integer(r) + der_integer(s)
    return b"\x30" + bytes([len(body)]) + body


def pem(label, der):
    text = base64.b64encode(der).decode()
    lines = [text[i:i + 64] for i in range(0, len(text), 64)]
    return f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----\n"


class Key:
    """One key: secp256k1 (signs) or P-256 (a key of the wrong algorithm or curve: never signs)."""

    def __init__(self, kind, enabled):
        self.kind = kind
        self.enabled = enabled
        if kind == "secp256k1":
            self.private = keys.PrivateKey(secrets.token_bytes(32))
            point = self.private.public_key.to_bytes()
            self.x, self.y = point[:32], point[32:]
            self.spki = SECP256K1_SPKI_PREFIX + b"\x04" + point
        else:
            ecc = ECC.generate(curve="P-256")
            self.x = int(ecc.pointQ.x).to_bytes(32, "big")
            self.y = int(ecc.pointQ.y).to_bytes(32, "big")
            self.spki = ecc.public_key().export_key(format="DER")

    def sign(self, digest, other_key=False):
        """(r, s) over the digest as given; s flipped to the high half about every other time."""
        signer = keys.PrivateKey(secrets.token_bytes(32)) if other_key else self.private
        signature = signer.sign_msg_hash(digest)
        r, s = signature.r, signature.s
        high = secrets.randbelow(2) == 1
        return r, (N - s if high else s), high


class State:
    def __init__(self, state_dir, port):
        self.lock = threading.Lock()
        self.port = port
        self.base = f"http://127.0.0.1:{port}"
        self.gcp_keys = {}
        self.azure_keys = {}
        self.tokens = {}  # token -> service
        self.fail = []  # statuses for the next API requests
        self.tamper = []  # modes for the next signatures
        self.stats = {"gcpTokens": 0, "azureTokens": 0, "jwtVerified": 0, "signatures": 0, "highS": 0, "failed": 0}
        rsa = RSA.generate(2048)
        self.sa_public = rsa.public_key()
        self.sa_email = "signer@signerkit-test.iam.gserviceaccount.com"
        self.token_uri = f"{self.base}/token"
        account = {
            "type": "service_account", "project_id": "signerkit-test", "private_key_id": secrets.token_hex(20),
            "private_key": rsa.export_key(pkcs=8).decode() + "\n", "client_email": self.sa_email,
            "client_id": "100000000000000000001", "token_uri": self.token_uri,
        }
        self.tenant = "signerkit-test-tenant"
        self.client_id = "6f1c0b55-0000-4000-8000-5157e2c1a001"
        self.client_secret = "azure-test-secret-" + secrets.token_hex(12)
        for name, content in [("gcp-service-account.json", account),
                              ("azure.json", {"tenant": self.tenant, "clientId": self.client_id,
                                              "clientSecret": self.client_secret})]:
            path = os.path.join(state_dir, name)
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
                json.dump(content, file)

    def issue(self, service):
        token = f"{service}-token-" + secrets.token_urlsafe(24)
        with self.lock:
            self.tokens[token] = service
            self.stats[f"{service}Tokens"] += 1
        return token

    def create(self, service, kind, enabled):
        key = Key(kind, enabled)
        with self.lock:
            if service == "gcp":
                index = len(self.gcp_keys) + 1
                name = (f"projects/signerkit-test/locations/europe-west1/keyRings/signers/cryptoKeys/key-{index}"
                        f"/cryptoKeyVersions/1")
                self.gcp_keys[name] = key
            else:
                name = f"{self.base}/keys/signer-{len(self.azure_keys) + 1}/{secrets.token_hex(16)}"
                self.azure_keys[name] = key
        address = keys.PublicKey(key.x + key.y).to_checksum_address() if kind == "secp256k1" else None
        return name, address


def verify_jwt(state, assertion):
    """Checks the RS256 JWT as Google's token endpoint does; returns None or why it is refused."""
    parts = assertion.split(".")
    if len(parts) != 3:
        return "not a JWT"
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except ValueError:
        return "malformed JWT"
    if header.get("alg") != "RS256":
        return "alg must be RS256"
    try:
        pkcs1_15.new(state.sa_public).verify(SHA256.new((parts[0] + "." + parts[1]).encode()), signature)
    except (ValueError, TypeError):
        return "Invalid JWT Signature."
    now = time.time()
    if claims.get("iss") != state.sa_email:
        return "iss is not the service account"
    if claims.get("aud") != state.token_uri:
        return "aud is not the token URI"
    if GCP_SCOPE not in str(claims.get("scope", "")).split():
        return "scope lacks cloudkms"
    iat, exp = claims.get("iat"), claims.get("exp")
    if not isinstance(iat, int) or not isinstance(exp, int) or iat > now + 300 or exp <= now or exp - iat > 3600:
        return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe."
    with state.lock:
        state.stats["jwtVerified"] += 1
    return None


def take_tamper(state):
    """The spoiling asked for the next signature, if any."""
    with state.lock:
        return state.tamper.pop(0) if state.tamper else None


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def reply(self, status, body, headers=()):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def gcp_error(self, status, code, message):
            self.reply(status, {"error": {"code": status, "message": message, "status": code}})

        def azure_error(self, status, code, message, inner=None):
            error = {"code": code, "message": message}
            if inner:
                error["innererror"] = {"code": inner}
            self.reply(status, {"error": error})

        def bearer(self, service):
            value = self.headers.get("Authorization", "")
            token = value[len("Bearer "):] if value.startswith("Bearer ") else ""
            with state.lock:
                return state.tokens.get(token) == service

        def injected_failure(self, service):
            with state.lock:
                status = state.fail.pop(0) if state.fail else None
                if status:
                    state.stats["failed"] += 1
            if status is None:
                return False
            if service == "gcp":
                code = {429: "RESOURCE_EXHAUSTED", 403: "PERMISSION_DENIED"}.get(status, "INTERNAL")
                self.gcp_error(status, code, f"stand-in answers {status}")
            else:
                code = {429: "Throttled", 403: "Forbidden"}.get(status, "InternalError")
                self.azure_error(status, code, f"stand-in answers {status}")
            return True

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            if url.path == "/__control/stats":
                with state.lock:
                    return self.reply(200, dict(state.stats))
            if url.path.startswith("/v1/") and url.path.endswith("/publicKey"):
                return self.gcp_public_key(url.path[len("/v1/"):-len("/publicKey")])
            if url.path.startswith("/keys/"):
                return self.azure_get(url)
            self.reply(404, {"error": "no such path"})

        def do_POST(self):
            url = urllib.parse.urlsplit(self.path)
            body = self.body()
            if url.path.startswith("/__control/"):
                return self.control(url.path[len("/__control/"):], json.loads(body or b"{}"))
            if url.path == "/token":
                return self.gcp_token(body)
            if url.path.endswith("/oauth2/v2.0/token"):
                return self.azure_token(url.path.split("/")[1], body)
            if url.path.startswith("/v1/") and url.path.endswith(":asymmetricSign"):
                return self.gcp_sign(url.path[len("/v1/"):-len(":asymmetricSign")], body)
            if url.path.startswith("/keys/") and url.path.endswith("/sign"):
                return self.azure_sign(url, body)
            self.reply(404, {"error": "no such path"})

        def control(self, command, request):
            if command == "key":
                name, address = state.create(request["service"], request.get("kind", "secp256k1"),
                                             request.get("enabled", True))
                return self.reply(200, {"name": name, "address": address})
            if command == "enable":
                with state.lock:
                    key = state.gcp_keys.get(request["name"]) or state.azure_keys.get(request["name"])
                    key.enabled = request["enabled"]
                return self.reply(200, {})
            if command == "fail":
                with state.lock:
                    state.fail = [int(request["status"])] * int(request["count"])
                return self.reply(200, {})
            if command == "tamper":
                with state.lock:
                    state.tamper = [request["mode"]] * int(request["count"])
                return self.reply(200, {})
            if command == "revoke":
                with state.lock:
                    state.tokens.clear()
                return self.reply(200, {})
            self.reply(404, {"error": "no such control"})

        # Google Cloud KMS

        def gcp_token(self, body):
            form = urllib.parse.parse_qs(body.decode(), strict_parsing=True)
            if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
                return self.reply(400, {"error": "unsupported_grant_type", "error_description": "grant_type"})
            refused = verify_jwt(state, form.get("assertion", [""])[0])
            if refused:
                return self.reply(400, {"error": "invalid_grant", "error_description": refused})
            self.reply(200, {"access_token": state.issue("gcp"), "expires_in": 3599, "token_type": "Bearer"})

        def gcp_key(self, name):
            if not self.bearer("gcp"):
                self.gcp_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
                return None
            if self.injected_failure("gcp"):
                return None
            key = state.gcp_keys.get(name)
            if key is None:
                self.gcp_error(404, "NOT_FOUND", f"{name} not found.")
                return None
            if not key.enabled:
                self.gcp_error(400, "FAILED_PRECONDITION",
                               f"The request cannot be fulfilled. Resource {name} is not in state ENABLED.")
                return None
            return key

        def gcp_public_key(self, name):
            key = self.gcp_key(name)
            if key is None:
                return
            text = pem("PUBLIC KEY", key.spki)
            algorithm = "EC_SIGN_SECP256K1_SHA256" if key.kind == "secp256k1" else "EC_SIGN_P256_SHA256"
            self.reply(200, {"pem": text, "algorithm": algorithm, "pemCrc32c": str(crc32c(text.encode())),
                             "name": name, "protectionLevel": "SOFTWARE"})

        def gcp_sign(self, name, body):
            key = self.gcp_key(name)
            if key is None:
                return
            request = json.loads(body)
            digest = base64.b64decode(request.get("digest", {}).get("sha256", ""))
            if key.kind != "secp256k1" or len(digest) != 32:
                return self.gcp_error(400, "INVALID_ARGUMENT", "digest must be a SHA-256 digest for this key")
            if "digestCrc32c" in request and int(request["digestCrc32c"]) != crc32c(digest):
                return self.gcp_error(400, "INVALID_ARGUMENT", "The checksum in field digest_crc32c did not match")
            mode = take_tamper(state)
            r, s, high = key.sign(digest, other_key=mode == "otherKey")
            with state.lock:
                state.stats["signatures"] += 1
                state.stats["highS"] += int(high)
            signature = der_signature(r, s)
            if mode == "malformed":
                return self.reply(200, {"name": name, "verifiedDigestCrc32c": True})
            self.reply(200, {"signature": base64.b64encode(signature).decode(),
                             "signatureCrc32c": str(crc32c(signature) ^ (1 if mode == "crc" else 0)),
                             "verifiedDigestCrc32c": "digestCrc32c" in request, "name": name,
                             "protectionLevel": "SOFTWARE"})

        # Azure Key Vault

        def azure_token(self, tenant, body):
            form = urllib.parse.parse_qs(body.decode(), strict_parsing=True)
            field = lambda name: form.get(name, [""])[0]
            if tenant != state.tenant:
                return self.reply(400, {"error": "invalid_request", "error_description": "AADSTS90002: Tenant not found."})
            if field("grant_type") != "client_credentials" or field("scope") != AZURE_SCOPE:
                return self.reply(400, {"error": "invalid_request", "error_description": "grant_type or scope"})
            if field("client_id") != state.client_id or field("client_secret") != state.client_secret:
                return self.reply(401, {"error": "invalid_client",
                                        "error_description": "AADSTS7000215: Invalid client secret provided."})
            self.reply(200, {"token_type": "Bearer", "expires_in": 3599, "ext_expires_in": 3599,
                             "access_token": state.issue("azure")})

        def azure_key(self, url, suffix=""):
            if urllib.parse.parse_qs(url.query).get("api-version") != ["7.4"]:
                self.azure_error(400, "BadParameter", "api-version 7.4 is expected")
                return None, None
            if not self.bearer("azure"):
                self.azure_error(401, "Unauthorized", "AKV10000: Request is missing a Bearer or PoP token.")
                return None, None
            if self.injected_failure("azure"):
                return None, None
            kid = state.base + url.path[:len(url.path) - len(suffix)]
            key = state.azure_keys.get(kid)
            if key is None:
                self.azure_error(404, "KeyNotFound", "A key with (name/id) was not found in this key vault.")
                return None, None
            if not key.enabled:
                operation = "sign" if suffix else "get"
                self.azure_error(403, "Forbidden", f"Operation {operation} is not allowed on a disabled key.",
                                 inner="KeyDisabled")
                return None, None
            return kid, key

        def azure_get(self, url):
            kid, key = self.azure_key(url)
            if key is None:
                return
            jwk = {"kid": kid, "kty": "EC", "key_ops": ["sign", "verify"],
                   "crv": "P-256K" if key.kind == "secp256k1" else "P-256", "x": b64url(key.x), "y": b64url(key.y)}
            self.reply(200, {"key": jwk, "attributes": {"enabled": True, "recoveryLevel": "Recoverable+Purgeable"}})

        def azure_sign(self, url, body):
            kid, key = self.azure_key(url, "/sign")
            if key is None:
                return
            request = json.loads(body)
            digest = b64url_decode(request.get("value", ""))
            if request.get("alg") != "ES256K" or key.kind != "secp256k1" or len(digest) != 32:
                return self.azure_error(400, "BadParameter", "alg ES256K over a 32-byte digest is expected")
            mode = take_tamper(state)
            r, s, high = key.sign(digest, other_key=mode == "otherKey")
            with state.lock:
                state.stats["signatures"] += 1
                state.stats["highS"] += int(high)
            value = r.to_bytes(32, "big") + s.to_bytes(32, "big")
            self.reply(200, {"kid": kid, "value": b64url(value[:63] if mode == "malformed" else value)})

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--state", required=True)
    parser.add_argument("--parent-pid", type=int)
    args = parser.parse_args()
    # Tests send a hundred requests at once: a listen backlog of the default 5 would refuse most.
    http.server.ThreadingHTTPServer.request_queue_size = 256
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), None)
    server.daemon_threads = True
    state = State(args.state, server.server_address[1])
    server.RequestHandlerClass = make_handler(state)

    def shut_down(*_):
        os._exit(0)

    signal.signal(signal.SIGTERM, shut_down)
    signal.signal(signal.SIGINT, shut_down)

    def watch_parent():
        while True:
            time.sleep(1)
            if args.parent_pid and not os.path.exists(f"/proc/{args.parent_pid}"):
                shut_down()

    threading.Thread(target=watch_parent, daemon=True).start()
    print(f"LISTENING {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
