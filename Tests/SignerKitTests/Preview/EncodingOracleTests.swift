import EIP712
import EthereumPrimitives
import Foundation
import SignerKit
import SignerKitTestSupport
import Testing

/// An independent oracle for the test payloads: eth-account's EIP-712 digest and eth-abi's calldata (from
/// the local EVM venv, through a Python subprocess) must equal SignerKit's, so the Permit, Permit2 and
/// ERC-3009 documents and ERC-20 calls the preview tests use are the standards' real encodings.
@Suite(
    "Preview payloads against eth-account and eth-abi",
    .enabled(
        if: FileManager.default.isExecutableFile(atPath: LocalEVM.venv.appendingPathComponent("bin/python").path),
        "the EVM venv (eth-account, eth-abi) is not installed"))
struct EncodingOracleTests {
    typealias P = StandardPayloads
    let account = P.address("0x90F8bf6A479f320ead074411a4B0e7944Ea8c9C1")

    static let script = """
        import json, sys
        from eth_account.messages import encode_typed_data
        from eth_utils import keccak
        from eth_abi import encode
        out = []
        for case in json.load(sys.stdin):
            if case["kind"] == "typed":
                s = encode_typed_data(full_message=case["data"])
                out.append("0x" + keccak(b"\\x19" + s.version + s.header + s.body).hex())
            else:
                sig = case["signature"]
                types = sig[sig.index("(") + 1:-1].split(",")
                args = [int(a) if t.startswith("uint") else a for t, a in zip(types, case["args"])]
                out.append("0x" + (keccak(text=sig)[:4] + encode(types, args)).hex())
        print(json.dumps(out))
        """

    static func oracle(_ cases: [JSONValue]) async throws -> [String] {
        try #require(try await PythonOracle.run(script, input: .array(cases)).arrayValue).compactMap(\.stringValue)
    }

    @Test("EIP-712 digests of every recognised typed-data kind, and ERC-20 calldata, match")
    func matches() async throws {
        let now: UInt64 = 1_767_225_600
        let documents: [JSONValue] = [
            P.permit(
                token: P.usdcBase, chainId: 8453, owner: account, spender: P.stranger, value: .max, deadline: .max),
            P.permitSingle(
                chainId: 8453, token: P.usdcBase, amount: UInt256(limbs: (.max, .max, 0xFFFF_FFFF, 0)),
                spender: P.spender, expiration: now + 60, sigDeadline: now + 30),
            P.permitBatch(
                chainId: 8453, tokens: [(P.usdcBase, UInt256(1)), (P.unknownToken, UInt256(2))], spender: P.spender,
                expiration: now, sigDeadline: now),
            P.permitTransferFrom(
                chainId: 8453, token: P.usdcBase, amount: UInt256(5), spender: P.spender, deadline: now),
            P.permitBatchTransferFrom(
                chainId: 8453, tokens: [(P.usdcBase, UInt256(1)), (P.usdcBase, UInt256(2))], spender: P.spender,
                deadline: now),
            P.permitWitnessTransferFrom(
                chainId: 8453, token: P.usdcBase, amount: UInt256(3), spender: P.spender, deadline: now,
                witnessRecipient: P.merchant),
            P.authorization(
                "TransferWithAuthorization", token: P.usdcBase, chainId: 8453, from: account, to: P.merchant,
                value: UInt256(1_000_000), validBefore: now),
            P.authorization(
                "ReceiveWithAuthorization", token: P.usdcBase, chainId: 8453, from: account, to: P.merchant,
                value: UInt256(1_000_000), validBefore: now),
            P.cancelAuthorization(token: P.usdcBase, chainId: 8453, authorizer: account),
        ]
        let calls: [(String, [String], [UInt8])] = [
            (
                "transfer(address,uint256)", [P.merchant.checksummed, "1500000"],
                P.transfer(to: P.merchant, amount: UInt256(1_500_000))
            ),
            (
                "approve(address,uint256)", [P.permit2.checksummed, UInt256.max.decimalString],
                P.approve(spender: P.permit2, amount: .max)
            ),
            (
                "transferFrom(address,address,uint256)", [P.stranger.checksummed, P.merchant.checksummed, "42"],
                P.transferFrom(from: P.stranger, to: P.merchant, amount: UInt256(42))
            ),
            (
                "increaseAllowance(address,uint256)", [P.spender.checksummed, "7"],
                P.increaseAllowance(spender: P.spender, amount: UInt256(7))
            ),
        ]
        var cases: [JSONValue] = documents.map { .object(JSONObject(["kind": .string("typed"), "data": $0])) }
        cases += calls.map {
            .object(
                JSONObject([
                    "kind": .string("call"), "signature": .string($0.0), "args": .array($0.1.map(JSONValue.string)),
                ]))
        }
        let expected = try await Self.oracle(cases)
        try #require(expected.count == cases.count)
        for (i, document) in documents.enumerated() {
            #expect(try TypedData(json: document).digest().hex == expected[i], "document \(i)")
        }
        for (i, call) in calls.enumerated() {
            #expect(Hex.encode(call.2) == expected[documents.count + i], "\(call.0)")
        }
    }
}
