import EthereumPrimitives
import EthereumTransactions
import Foundation
import Secp256k1
import SignerKit

/// One key of any kind (a KMS's, a cloud vault's) through the dispatcher for every method — a personal message,
/// EIP-712 typed data, and transactions of types 0, 1, 2 and 4 — and each result recovered by eth-account: what
/// the KMS suites check of their keys.
public enum EveryMethodCheck {
    /// What came back.
    public struct Outcome: Sendable {
        /// How many actions were signed.
        public let actionCount: Int
        /// The dispatcher's results, in action order (the message, the typed data, then the four transactions).
        public let results: [String]
        /// The account eth-account recovers from each result, in the same order.
        public let recovered: [JSONValue]
    }

    /// eth-account's recovery of messages, typed data and raw transactions.
    static let oracle = """
        import json, sys
        from eth_account import Account
        from eth_account.messages import encode_defunct, encode_typed_data
        out = []
        for case in json.load(sys.stdin):
            if case["kind"] == "message":
                out.append(Account.recover_message(encode_defunct(hexstr=case["message"]), signature=case["signature"]))
            elif case["kind"] == "typed":
                out.append(Account.recover_message(encode_typed_data(full_message=case["data"]),
                                                   signature=case["signature"]))
            else:
                out.append(Account.recover_transaction(case["raw"]))
        print(json.dumps(out))
        """

    /// Signs `Hello <label>`, EIP-712's Mail with `label` as its contents and the four transactions with
    /// `signer` registered in a dispatcher of its own, and recovers every result.
    public static func run(_ signer: any PrehashSigner, label: String) async throws -> Outcome {
        let dispatcher = RpcDispatcher()
        try dispatcher.register(signer)
        let account = signer.address.checksummed
        let message = Hex.encode(Array("Hello \(label)".utf8))
        let typedData = mail(contents: label)
        let authority = try PrivateKey(hex: TestKeys.betaHex)
        let tuple = Authorization(chainId: 8453, address: authority.address, nonce: 1).sign(with: authority)
        let to = authority.address.checksummed
        let transactions = [
            #"{"from":"\#(account)","to":"\#(to)","value":"0x1","nonce":"0x0","gas":"0x5208","gasPrice":"0x3b9aca00"}"#,
            #"{"from":"\#(account)","type":"0x1","to":"\#(to)","value":"0x2","nonce":"0x1","gas":"0x6000","gasPrice":"0x3b9aca00","accessList":[]}"#,
            #"{"from":"\#(account)","type":"0x2","to":"\#(to)","value":"0x3","nonce":"0x2","gas":"0x5208","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00"}"#,
            #"{"from":"\#(account)","type":"0x4","to":"\#(to)","value":"0x0","nonce":"0x3","gas":"0x30d40","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00","authorizationList":\#(JSONValue.array([tuple.json]).serialized)}"#,
        ]
        var actions = [
            WalletRpcAction(
                chainId: ChainID(eip155: 8453), method: .personalSign, params: #"["\#(message)","\#(account)"]"#),
            WalletRpcAction(
                chainId: ChainID(eip155: 1), method: .signTypedDataV4,
                params: "[\(JSONValue.string(account).serialized),\(typedData)]"),
        ]
        actions += transactions.map {
            WalletRpcAction(chainId: ChainID(eip155: 8453), method: .signTransaction, params: "[\($0)]")
        }
        let results = try await dispatcher.sign(actions: actions).results
        var cases: [JSONValue] = [
            ["kind": "message", "message": .string(message), "signature": .string(results[0])],
            ["kind": "typed", "data": try JSONValue(parsing: typedData), "signature": .string(results[1])],
        ]
        cases += results.dropFirst(2).map { ["kind": "tx", "raw": .string($0)] }
        let recovered = try await PythonOracle.run(oracle, input: .array(cases)).arrayValue ?? []
        return Outcome(actionCount: actions.count, results: results, recovered: recovered)
    }

    /// EIP-712's Mail example with `contents`.
    static func mail(contents: String) -> String {
        #"""
        {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"\#(contents)"}}
        """#
    }
}
