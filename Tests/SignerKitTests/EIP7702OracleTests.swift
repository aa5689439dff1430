import EthereumPrimitives
import EthereumTransactions
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// eth-account (the local EVM venv, through a Python subprocess) as an independent oracle on random
/// EIP-7702 inputs: authorization hashes and signatures, and type-4 raw transactions, byte for byte.
@Suite(
    "EIP-7702 against eth-account",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: LocalEVM.venv.appendingPathComponent("bin/python").path),
        "the EVM venv (eth-account) is not installed"))
struct EIP7702OracleTests {
    static let script = """
        import json, sys
        from eth_account import Account
        out = []
        for case in json.load(sys.stdin):
            q = lambda v: int(v, 16)
            if case["kind"] == "auth":
                a = case["authorization"]
                s = Account.sign_authorization(
                    {"chainId": q(a["chainId"]), "address": a["address"], "nonce": q(a["nonce"])}, case["key"])
                out.append({"hash": "0x" + s.authorization_hash.hex(), "yParity": hex(s.y_parity),
                            "r": hex(s.r), "s": hex(s.s)})
            else:
                t = case["tx"]
                tx = {"type": 4, "chainId": q(t["chainId"]), "nonce": q(t["nonce"]), "gas": q(t["gas"]),
                      "maxFeePerGas": q(t["maxFeePerGas"]), "maxPriorityFeePerGas": q(t["maxPriorityFeePerGas"]),
                      "to": t["to"], "value": q(t["value"]), "data": t["data"],
                      "accessList": [{"address": e["address"], "storageKeys": e["storageKeys"]} for e in t["accessList"]],
                      "authorizationList": [{"chainId": q(x["chainId"]), "address": x["address"], "nonce": q(x["nonce"]),
                                             "yParity": q(x["yParity"]), "r": q(x["r"]), "s": q(x["s"])}
                                            for x in t["authorizationList"]]}
                out.append({"raw": "0x" + Account.sign_transaction(tx, case["key"]).raw_transaction.hex()})
        print(json.dumps(out))
        """

    static func oracle(_ cases: [JSONValue]) async throws -> [JSONValue] {
        try #require(try await PythonOracle.run(script, input: .array(cases)).arrayValue)
    }

    /// A random test key as hex (never used for anything real).
    static func keyHex() -> String {
        while true {
            let bytes = (0..<32).map { _ in UInt8.random(in: 0...255) }
            let hex = Hex.encode(bytes)
            if (try? PrivateKey(hex: hex)) != nil { return hex }
        }
    }

    static func randomAddress() -> Address { PrivateKey.generate().address }

    static func randomWord() -> UInt256 {
        UInt256(
            limbs: (.random(in: 0...(.max)), .random(in: 0...(.max)), .random(in: 0...(.max)), .random(in: 0...(.max))))
    }

    static func randomChain() -> UInt256 {
        [0, 1, 8453, UInt256(limbs: (7, 1, 0, 0)), .max, randomWord()].randomElement() ?? 1
    }

    @Test("random authorizations: hash and signature equal eth-account's")
    func authorizations() async throws {
        var cases: [JSONValue] = []
        var mine: [SignedAuthorization] = []
        for _ in 0..<40 {
            let hex = Self.keyHex()
            let nonce: UInt64 = [0, 1, 127, 128, UInt64.max - 1, .random(in: 0..<UInt64.max)].randomElement() ?? 0
            let authorization = Authorization(chainId: Self.randomChain(), address: Self.randomAddress(), nonce: nonce)
            mine.append(authorization.sign(with: try PrivateKey(hex: hex)))
            cases.append(
                .object(JSONObject(["kind": "auth", "key": .string(hex), "authorization": authorization.json])))
        }
        let answers = try await Self.oracle(cases)
        #expect(answers.count == cases.count)
        for (i, (signed, answer)) in zip(mine, answers).enumerated() {
            let context = "case \(i): \(signed.authorization.json.serialized)"
            #expect(signed.authorization.signingHash.hex == answer["hash"]?.stringValue, "\(context)")
            #expect(UInt256(UInt64(signed.yParity)).hexQuantity == answer["yParity"]?.stringValue, "\(context)")
            #expect(signed.r.hexQuantity == answer["r"]?.stringValue, "\(context)")
            #expect(signed.s.hexQuantity == answer["s"]?.stringValue, "\(context)")
        }
    }

    @Test("random type-4 transactions: raw bytes equal eth-account's")
    func transactions() async throws {
        var cases: [JSONValue] = []
        var mine: [SignedTransaction] = []
        for _ in 0..<16 {
            let hex = Self.keyHex()
            let tuples = try (0..<Int.random(in: 1...3)).map { _ in
                Authorization(
                    chainId: Self.randomChain(), address: Self.randomAddress(), nonce: .random(in: 0..<UInt64.max)
                ).sign(with: try PrivateKey(hex: Self.keyHex()))
            }
            let accessList =
                Bool.random()
                ? [AccessListEntry(address: Self.randomAddress(), storageKeys: [Self.randomWord().word])] : []
            let tx = EIP7702Transaction(
                chainId: [1, 8453, UInt256(limbs: (7, 1, 0, 0)), Self.randomWord()].randomElement() ?? 1,
                nonce: UInt256(UInt64.random(in: 0..<(UInt64.max - 1))),
                maxPriorityFeePerGas: UInt256(UInt64.random(in: 0...1_000_000_000)),
                maxFeePerGas: UInt256(UInt64.random(in: 1_000_000_000...UInt64.max)),
                gasLimit: UInt256(UInt64.random(in: 21_000...30_000_000)), destination: Self.randomAddress(),
                value: Bool.random() ? .zero : Self.randomWord(),
                data: (0..<Int.random(in: 0...70)).map { _ in UInt8.random(in: 0...255) }, accessList: accessList,
                authorizationList: tuples)
            mine.append(tx.sign(with: try PrivateKey(hex: hex)))
            let json = JSONObject([
                "chainId": .string(tx.chainId.hexQuantity), "nonce": .string(tx.nonce.hexQuantity),
                "gas": .string(tx.gasLimit.hexQuantity), "maxFeePerGas": .string(tx.maxFeePerGas.hexQuantity),
                "maxPriorityFeePerGas": .string(tx.maxPriorityFeePerGas.hexQuantity),
                "to": .string(tx.destination.checksummed), "value": .string(tx.value.hexQuantity),
                "data": .string(Hex.encode(tx.data)),
                "accessList": .array(
                    accessList.map {
                        .object(
                            JSONObject([
                                "address": .string($0.address.checksummed),
                                "storageKeys": .array($0.storageKeys.map { .string($0.hex) }),
                            ]))
                    }),
                "authorizationList": .array(tuples.map(\.json)),
            ])
            cases.append(.object(JSONObject(["kind": "tx", "key": .string(hex), "tx": .object(json)])))
        }
        let answers = try await Self.oracle(cases)
        #expect(answers.count == cases.count)
        for (i, (signed, answer)) in zip(mine, answers).enumerated() {
            #expect(signed.rawTransactionHex == answer["raw"]?.stringValue, "case \(i): \(cases[i].serialized)")
            #expect(try SignedTransaction.decode(raw: signed.rawTransaction) == signed)
        }
    }
}
