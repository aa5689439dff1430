#!/usr/bin/env python3
"""Writes the seed inputs of Fuzz/Corpus/TARGET from the project's test fixtures and vectors.

Usage: Fuzz/seed_corpus.py TARGET [TARGET ...]   (called by scripts/fuzz.sh --seed, and when a corpus is empty)

Each seed is a file named by the SHA-1 of its bytes, as libFuzzer names the inputs it adds, so seeding again
adds nothing twice. Only the standard library: this runs before anything is installed.
"""
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "Tests" / "SignerKitTestSupport" / "Vectors"
FIXTURES = ROOT / "Tests"


def rows(name):
    """The rows of a ground-truth vector file."""
    with open(VECTORS / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def text(value):
    return value.encode("utf-8")


def compact(value):
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def hex_bytes(value):
    return bytes.fromhex(value[2:] if value.startswith("0x") else value)


def fixture_files(pattern):
    return [p.read_bytes() for p in sorted(FIXTURES.glob(pattern)) if p.is_file()]


def seeds_json():
    out = [compact(r["typedData"]) for r in rows("eip712.jsonl")]
    out += [compact(r) for r in rows("transactions.jsonl")[:10]]
    out += [b"[]", b"{}", b'{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\ud83d\\ude00"]}']
    return out


def seeds_rlp():
    out = [hex_bytes(r["rawTransaction"]) for r in rows("transactions.jsonl") + rows("transactions_type4.jsonl")]
    # Typed transactions are the type byte then an RLP list: the list alone is RLP.
    return out + [raw[1:] for raw in out if raw and raw[0] < 0x7F]


def seeds_typed_data():
    out = [compact(r["typedData"]) for r in rows("eip712.jsonl")]
    for r in rows("eip712_invalid.jsonl"):
        out.append(compact(r["typedData"]) if "typedData" in r else text(r["typedDataJson"]))
    return out + [(VECTORS / "ronin_order.json").read_bytes()]


def seeds_signed_transaction():
    return [hex_bytes(r["rawTransaction"]) for r in rows("transactions.jsonl") + rows("transactions_type4.jsonl")
            + rows("ronin_sponsored.jsonl")]


def seeds_transaction_request():
    sponsored = rows("ronin_sponsored.jsonl")
    signed_by_payer = [dict(r["tx"], payerV=r["payerSignature"]["yParity"], payerR=r["payerSignature"]["r"],
                            payerS=r["payerSignature"]["s"]) for r in sponsored]
    return ([compact(r["tx"]) for r in rows("transactions.jsonl") + rows("transactions_type4.jsonl") + sponsored]
            + [compact(tx) for tx in signed_by_payer])


def seeds_authorization_list():
    out = []
    for r in rows("eip7702_authorizations.jsonl"):
        signed = dict(r["authorization"], yParity=r["yParity"], r=r["r"], s=r["s"])
        out.append(compact([signed]))
    return out + [compact(r["tx"].get("authorizationList", [])) for r in rows("transactions_type4.jsonl")]


def seeds_wallet_rpc_actions():
    order = json.loads((VECTORS / "ronin_order.json").read_text())
    account = "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
    typed = [account, json.dumps(order)]
    out = [
        compact([{"chainId": "eip155:2020", "method": "eth_signTypedData_v4", "params": json.dumps(typed)}]),
        compact([{"type": "walletRpc", "data": {"chainId": "eip155:1", "method": "personal_sign",
                                                "params": ["0x48656c6c6f", account]}}]),
        compact([{"walletRpc": {"chain_id": "eip155:8453", "method": "eth_sendTransaction",
                                "params": [{"from": account, "to": account, "value": "0x1", "data": "0x"}]}}]),
    ]
    for r in rows("transactions.jsonl")[:8]:
        out.append(compact([{"chainId": "eip155:" + str(r["chainId"]), "method": "eth_signTransaction",
                             "params": [r["tx"]]}]))
    for r in rows("eip712.jsonl")[:8]:
        out.append(compact([{"chainId": "eip155:1", "method": "eth_signTypedData_v4",
                             "params": [r["address"], r["typedData"]]}]))
    for r in rows("ronin_sponsored.jsonl")[:4]:
        out.append(compact([{"chainId": "eip155:" + str(r["chainId"]), "method": "ronin_sponsorTransaction",
                             "params": [r["tx"]]}]))
    return out


def seeds_caip():
    return [text(t) for t in ["eip155:1", "eip155:2020", "eip155:8453:0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf",
                              "cosmos:cosmoshub-4", "bip122:000000000019d6689c085ae165831e93",
                              "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv"]]


def seeds_address():
    out = [text(r["address"]) for r in rows("eip712.jsonl") + rows("hd_wallets.jsonl")]
    return out + [text(r["address"].lower()) for r in rows("hd_wallets.jsonl")[:4]] + [text("0x" + "00" * 20)]


def seeds_integer_text():
    return [text(t) for t in ["0", "1", "-1", "0x0", "0x1f", "115792089237316195423570985008687907853269984665640564039457584007913129639935",
                              "0x" + "f" * 64, "-57896044618658097711785492504343953926634992332820282019728792003956564819968",
                              "1e3", "00", "0x", "+5"]]


def seeds_keystore():
    return fixture_files("SoftwareSignerTests/Fixtures/*.json")


def seeds_mnemonic():
    return [text(r["mnemonic"]) for r in rows("hd_wallets.jsonl") + rows("hd_invalid.jsonl") if "mnemonic" in r]


def seeds_derivation_path():
    return sorted({text(r["path"]) for r in rows("hd_wallets.jsonl") + rows("hd_invalid.jsonl") if "path" in r})


def seeds_waypoint_callback():
    return [text(t) for t in [
        "mydapp://callback?state=s1&method=sign&version=1.0&type=success&data=0x" + "ab" * 65,
        "mydapp://callback?state=s2&method=send&type=success&data=0x" + "cd" * 32 + "&address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf",
        "mydapp://callback?state=s3&method=auth&type=success&authorization_code=c0de&address=0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf",
        "http://127.0.0.1:8976/cb?state=s4&method=sign&type=fail&code=1000&message=%5BWALLET_USER_CANCEL%5D+User+rejected",
        "mydapp://callback?state=s5&method=sign&type=fail&code=2001&message=+leading+space",
    ]]


def seeds_id_token():
    import base64
    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=")
    header = b64(compact({"alg": "ES256", "kid": "k1", "typ": "JWT"}))
    payload = b64(compact({"iss": "https://id.fuzz.example", "aud": "fuzz-client", "sub": "user-1",
                           "exp": 1800000600, "iat": 1799999990, "nbf": 1799999990}))
    token = header + b"." + payload + b"." + b64(bytes(64))
    jwks = compact({"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
                              "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
                              "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"}]})
    return [token, jwks]


def seeds_pay_link():
    return [text(t) for t in [
        "https://pay.walletconnect.com/?pid=pay_123", "https://pay.walletconnect.com/pay_123",
        "https://pay.walletconnect.com/pay_path?pid=pay_query",
        "mywallet://walletconnectpay?paymentId=pay_abc",
        "mywallet://wc?uri=wc%3Aabc%402%3Frelay-protocol%3Dirn%26pay%3Dhttps%253A%252F%252Fpay.walletconnect.com%252Fpay_1",
        "wc:abc@2?relay-protocol=irn&symKey=00&pay=https%3A%2F%2Fpay.walletconnect.com%2Fpay_9"]]


def seeds_pay_responses():
    account = "eip155:8453:0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"
    amount = {"unit": "iso4217/USD", "value": "100", "display": {"assetSymbol": "USD", "assetName": "US Dollar",
                                                                 "decimals": 2}}
    action = {"type": "walletRpc", "data": {"chain_id": "eip155:8453", "method": "eth_signTypedData_v4",
                                            "params": json.dumps(["0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf", {}])}}
    info = {"status": "requires_action", "amount": amount, "expiresAt": 1800000000,
            "merchant": {"name": "Shop", "iconUrl": "https://shop.example/icon.png"}}
    option = {"id": "opt_1", "account": account, "amount": amount, "etaS": 5, "expiresAt": 1800000000,
              "actions": [action, {"type": "build", "data": {"data": "opaque"}}],
              "collectData": {"url": "https://pay.walletconnect.com/collect", "fields": [
                  {"id": "fullName", "name": "Full name", "type": "text", "required": True}]}}
    return [
        compact({"info": info, "options": [option]}), compact(info), compact({"actions": [action]}),
        compact({"status": "succeeded", "isFinal": True, "pollInMs": 1000, "info": {
            "optionAmount": amount, "txId": "0x" + "ab" * 32}}),
        compact({"code": "quote_expired", "message": "The quote expired"}),
    ]


def seeds_http_response_head():
    return [
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nRetry-After: 1e16\r\n\r\n",
        b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n",
        b"HTTP/1.1 302 Found\r\nLocation: https://evil.example/steal?k=1\r\n\r\n",
        b"HTTP/2 307\r\nlocation: //other.example/x\r\nretry-after: Sunday, 06-Nov-94 08:49:37 GMT\r\n\r\n",
        b"HTTP/1.0 200 OK\r\nRetry-After: Sun Nov  6 08:49:37 1994\r\nContent-Length: -1\r\n\r\n",
    ]


def seeds_http_response():
    body = b'{"jsonrpc":"2.0","id":1,"result":"0x1"}'
    return [
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body),
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nRetry-After: 1e16\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 307 Temporary Redirect\r\nLocation: https://evil.example/x\r\nContent-Length: 0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
        b"HTTP/1.0 500 Internal Server Error\r\n\r\nno length, closed",
    ]


def seeds_json_rpc_response():
    receipt = {"transactionHash": "0x" + "ab" * 32, "status": "0x1", "blockNumber": "0x10", "blockHash": "0x" + "cd" * 32,
               "from": "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf", "to": None, "gasUsed": "0x5208",
               "effectiveGasPrice": "0x3b9aca00", "contractAddress": "0x" + "11" * 20}
    return [
        compact({"jsonrpc": "2.0", "id": 7, "result": receipt}),
        compact({"jsonrpc": "2.0", "id": "7", "result": "0x" + "ab" * 32}),
        compact({"jsonrpc": "2.0", "id": 7, "error": {"code": -32000, "message": "nonce too low"}}),
        compact({"jsonrpc": "2.0", "id": 7, "result": None}),
        compact({"jsonrpc": "2.0", "id": 8, "result": "0x1"}),
    ]


def seeds_sign_in_message():
    out = fixture_files("SignerKitTests/Fixtures/eip4361/*.txt")
    return out + [text(r["message"]) for r in rows("siwe_signed.jsonl")]


def seeds_clear_signing_descriptor():
    return fixture_files("SignerKitTests/Fixtures/erc7730-*.json")


def seeds_policy_file():
    return [
        compact({"allowedChains": ["eip155:1", "eip155:8453"], "allowedMethods": ["personal_sign"],
                 "nativeValueCap": "1000000000000000000", "noUnlimitedApprovals": True,
                 "allowedSpenders": ["0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"], "maxValiditySeconds": 3600,
                 "allowedDelegates": {"addresses": ["0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"],
                                      "allowAnyChain": False}}),
        compact({"roninSponsor": {"allowedCalls": [{"contract": "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf",
                                                    "selectors": ["0xa9059cbb"]}],
                                  "maxGas": "300000", "maxFeePerGas": "30000000000", "maxExpirySeconds": 600,
                                  "allowNoExpiry": False, "allowContractCreation": False},
                 "roninSponsorQuota": {"windowSeconds": 86400, "maxTransactions": 20, "maxGasCost": "1000000"}}),
        compact({"tokens": [{"chainId": 8453, "address": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
                             "symbol": "USDC", "decimals": 6}]}),
    ]


def seeds_pkcs11_attributes():
    point = bytes.fromhex("0479be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                          "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")
    return [bytes([0x04, 0x41]) + point, point, bytes([0x04, 0x21, 0x02]) + point[1:33],
            bytes([0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x0A]), bytes([0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]),
            b"\x13\x09secp256k1", b"\x30\x03\x02\x01\x01"]


def seeds_kms_der():
    spki = bytes.fromhex("3056301006072a8648ce3d020106052b8104000a034200044e3b81af9c2234cad09d679ce6035ed1392347ce"
                         "64ce405f5dcd36228a25de6e47fd35c4215d1edf53e6f83de344615ce719bdb0fd878f6ed76f06dd277956de")
    signatures = [bytes.fromhex(text) for text in (
        "3045022028db17e7b71d670ada0ba59d8793a052c9f4d886630647863403b0164cb462ab022100b27bf3ee79d73955fe87c242848e"
        "cee0e925554865e8bde333419656d2594651",
        "3046022100c8bf4c67ec61a9f833e778d845956ad58e78a3b1ee226dd1d08a6cd17cd2cfa3022100e94165d1c17e9692a53df1627705"
        "b5a953508ca04023f0fd8c8b2a8849e6b268")]
    return [spki, spki[:-1], bytes([0x30, 0x81]) + spki[1:]] + signatures + [signatures[0] + b"\x00"]


def seeds_cloud_kms_inputs():
    account = {"type": "service_account", "client_email": "signer@p.iam.gserviceaccount.com",
               "private_key_id": "0f", "token_uri": "https://oauth2.googleapis.com/token",
               "private_key": "-----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n"}
    texts = [json.dumps(account), json.dumps({**account, "token_uri": "http://example.com/token"}),
             "https://payments.vault.azure.net/keys/hot/0123456789abcdef0123456789abcdef",
             "http://127.0.0.1:8200/keys/k/1", "https://v.vault.azure.net/keys/k",
             "projects/p/locations/europe-west1/keyRings/r/cryptoKeys/k/cryptoKeyVersions/1",
             "projects/p/locations/l/keyRings/r/cryptoKeys/k"]
    return [text.encode() for text in texts]


def seeds_service_request():
    account = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
    order = json.loads((VECTORS / "ronin_order.json").read_text())
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "eth_accounts"},
        {"jsonrpc": "2.0", "id": "x", "method": "eth_chainId", "params": []},
        {"jsonrpc": "2.0", "id": 3, "method": "personal_sign", "params": ["0x68656c6c6f", account]},
        {"jsonrpc": "2.0", "id": 4, "method": "eth_signTypedData_v4", "params": [account, json.dumps(order)]},
        {"jsonrpc": "2.0", "id": 5, "method": "eth_signTransaction", "params": [
            {"from": account, "to": account, "value": "0x1", "nonce": "0x0", "gas": "0x5208",
             "maxFeePerGas": "0x3b9aca00", "maxPriorityFeePerGas": "0x1", "chainId": "0x7e5"}]},
        {"jsonrpc": "2.0", "id": 6, "method": "signerkit_signActions", "params": [[
            {"chainId": "eip155:2021", "method": "personal_sign", "params": json.dumps(["0x01", account])}]]},
        {"jsonrpc": "2.0", "id": 7, "method": "signerkit_preview", "params": {"actions": [
            {"type": "walletRpc", "data": {"chain_id": "eip155:2021", "method": "personal_sign", "params": ["0x01", account]}}]}},
        {"jsonrpc": "2.0", "method": "eth_accounts"},
    ]
    return [compact(c) for c in calls] + [compact(calls[:4]), compact(calls), b"[]", b"{"]


def seeds_erc6492_wrapper():
    def word(value):
        return value.to_bytes(32, "big")

    def padded(data):
        return word(len(data)) + data + bytes(-len(data) % 32)

    def wrapper(factory, calldata, signature):
        head = bytes(12) + factory + word(96) + word(96 + len(padded(calldata)))
        return head + padded(calldata) + padded(signature) + bytes.fromhex("6492" * 16)

    factory = bytes.fromhex("4e1dcf7ad4e460cfd30791ccc4f9c8a4f820ec67")
    create = bytes.fromhex("1688f0b9") + bytes(12) + bytes.fromhex("41675c099f32341bf84bfc5382af534df5c7461a") + word(1)
    return [
        wrapper(factory, create, b"\x11" * 65),
        wrapper(factory, b"", b""),
        wrapper(factory, b"\x01\x02\x03", b"\x22" * 130),
        bytes.fromhex("6492" * 16),
    ]


def seeds_erc7821_batch():
    def word(value):
        return value.to_bytes(32, "big")

    def padded(data):
        return word(len(data)) + data + bytes(-len(data) % 32)

    def calls(items):
        heads, tails = b"", b""
        for target, value, data in items:
            heads += word(32 * len(items) + len(tails))
            tails += bytes(12) + target + word(value) + word(96) + padded(data)
        return word(32) + word(len(items)) + heads + tails

    def execute(items):
        return bytes.fromhex("e9ae5c53") + b"\x01" + bytes(31) + word(64) + padded(calls(items))

    token = bytes.fromhex("00000000000000000000000000000000000c0de0")
    approve = bytes.fromhex("095ea7b3") + bytes(12) + bytes.fromhex("11" * 20) + word(100)
    transfer = bytes.fromhex("a9059cbb") + bytes(12) + bytes.fromhex("22" * 20) + word(40)
    return [
        execute([]),
        execute([(token, 0, approve), (token, 0, transfer)]),
        execute([(bytes(20), 7, b""), (token, 1, bytes(range(33)))]),
        bytes.fromhex("e9ae5c53"),
    ]


def seeds_wallet_send_calls():
    sender = "0xd46e8dd67c5d32be8058bb8eb970870f07244567"
    to = "0x54f1c1965b355e1ab9ec3465616136be35bb5ff7"
    base = {"version": "2.0.0", "from": sender, "chainId": "0x2105", "atomicRequired": True,
            "calls": [{"to": to, "value": "0x10", "data": "0x095ea7b3"}, {"to": to}]}
    return [json.dumps(seed).encode() for seed in [
        base,
        dict(base, id="order-7", capabilities={"paymasterService": {"url": "https://x", "optional": True}}),
        dict(base, capabilities={"paymasterService": {"url": "https://x"}}),
        dict(base, calls=[{"data": "0x00"}]),
        dict(base, version="1.0"),
        dict(base, calls=[{"to": to}] * 17),
    ]]


def seeds_signed_note():
    # The worked example of Tests/SignerKitTests/Ledger/LedgerWorkedExampleTests.swift, and pieces of it.
    body = "signer.example.com/audit\n3\nLP73YnWX4AtWSXV3Stco7yEHBnWfym1kE4xt/By/LNo=\ntime 1767225600\n"
    line = ("\u2014 signer.example.com/audit tcs7Kp8Djwxk6f7mdntjBdsLjHgiSgXuifoutc4bmLquzyj4cu3FwgTMEwBQLUY3Vu"
            "I9POsVCUnmTu+lrTHVPbAiv7Ab\n")
    return [text.encode() for text in [
        body + "\n" + line,
        body,
        body + "\n" + line + line.replace("signer.example.com/audit", "witness.example/w"),
        "example.com/log\n0\n47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=\n",
    ]]


SEEDS = {
    "json": seeds_json,
    "kms-der": seeds_kms_der,
    "cloud-kms-inputs": seeds_cloud_kms_inputs,
    "typed-data": seeds_typed_data,
    "rlp": seeds_rlp,
    "signed-transaction": seeds_signed_transaction,
    "transaction-request": seeds_transaction_request,
    "authorization-list": seeds_authorization_list,
    "wallet-rpc-actions": seeds_wallet_rpc_actions,
    "caip": seeds_caip,
    "address": seeds_address,
    "integer-text": seeds_integer_text,
    "keystore": seeds_keystore,
    "mnemonic": seeds_mnemonic,
    "derivation-path": seeds_derivation_path,
    "waypoint-callback": seeds_waypoint_callback,
    "id-token": seeds_id_token,
    "pay-link": seeds_pay_link,
    "pay-responses": seeds_pay_responses,
    "http-response-head": seeds_http_response_head,
    "http-response": seeds_http_response,
    "json-rpc-response": seeds_json_rpc_response,
    "sign-in-message": seeds_sign_in_message,
    "clear-signing-descriptor": seeds_clear_signing_descriptor,
    "policy-file": seeds_policy_file,
    "pkcs11-attributes": seeds_pkcs11_attributes,
    "service-request": seeds_service_request,
    "erc6492-wrapper": seeds_erc6492_wrapper,
    "signed-note": seeds_signed_note,
    "erc7821-batch": seeds_erc7821_batch,
    "wallet-send-calls": seeds_wallet_send_calls,
}


def main(targets):
    for target in targets:
        make = SEEDS.get(target)
        if make is None:
            print(f"seed_corpus.py: no seeds for {target}", file=sys.stderr)
            continue
        folder = ROOT / "Fuzz" / "Corpus" / target
        folder.mkdir(parents=True, exist_ok=True)
        written = 0
        for seed in make():
            path = folder / hashlib.sha1(seed).hexdigest()
            if not path.exists():
                path.write_bytes(seed)
                written += 1
        print(f"seed_corpus.py: {target}: {written} new seed(s)", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
