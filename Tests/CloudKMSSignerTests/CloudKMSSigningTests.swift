import CloudKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// Keys of Google Cloud KMS and Azure Key Vault on the stand-ins: the address from the public key, raw
/// digests (the stand-ins answer high s about every other time), and every method through the dispatcher,
/// recovered by eth-account.
@Suite("Google Cloud KMS and Azure Key Vault signing on the stand-ins")
struct CloudKMSSigningTests {
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

    /// n / 2 for secp256k1: an s above it is high.
    static let halfOrder: UInt256 = 0x7FFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_FFFF_5D57_6E73_57A4_501D_DFE9_2F46_681B_20A0

    @Test(
        "the address from the public key; 110 digests signed low-s, recovering to it, while the service answers high s too",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func digests(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let (name, address) = try await fixture.standins.createKey(service)
        let signer = try await fixture.signer(service, name).signer
        #expect(signer.address.checksummed == address, "the address eth-keys computes for the key")

        let digests = (0..<110).map { _ in Digest32((0..<32).map { _ in UInt8.random(in: 0...255) }) ?? Digest32() }
        let signatures = try await withThrowingTaskGroup(of: (Int, RecoverableSignature).self) { group in
            for (index, digest) in digests.enumerated() {
                group.addTask { (index, try await signer.sign(prehash: digest)) }
            }
            return try await group.reduce(into: [Int: RecoverableSignature]()) { $0[$1.0] = $1.1 }
        }
        var ids = Set<UInt8>()
        for (index, digest) in digests.enumerated() {
            let signature = try #require(signatures[index])
            #expect(UInt256(word: signature.s) <= Self.halfOrder)
            #expect(try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer.address)
            ids.insert(signature.recoveryId)
        }
        #expect(ids == [0, 1], "both recovery ids occur in 110 signatures")
        let stats = try await fixture.standins.stats()
        // At least one per digest (a request that timed out on a loaded machine is repeated: signing is idempotent).
        #expect((stats["signatures"] ?? 0) >= 110)
        #expect((stats["highS"] ?? 0) > 0, "the stand-in answered no high s in 110 signatures")
        // One token for all of it (cached); for GCP, its JWT's RS256 signature verified by the stand-in.
        #expect(stats[service == .gcp ? "gcpTokens" : "azureTokens"] == 1)
        if service == .gcp { #expect(stats["jwtVerified"] == 1) }
    }

    @Test(
        "messages, typed data and every transaction type through the dispatcher, recovered by eth-account",
        arguments: [LocalCloudKMS.Service.gcp, .azure])
    func dispatcherMethods(service: LocalCloudKMS.Service) async throws {
        let fixture = try await CloudKMSFixture.start()
        defer { fixture.standins.stop() }
        let signer = try await fixture.signer(service, try await fixture.standins.createKey(service).name).signer
        let dispatcher = RpcDispatcher()
        try dispatcher.register(signer)

        let account = signer.address.checksummed
        let typedData = Self.mail(contents: "cloud KMS")
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
                chainId: ChainID(eip155: 8453), method: .personalSign,
                params: #"["0x48656c6c6f20636c6f7564","\#(account)"]"#),
            WalletRpcAction(
                chainId: ChainID(eip155: 1), method: .signTypedDataV4,
                params: "[\(JSONValue.string(account).serialized),\(typedData)]"),
        ]
        actions += transactions.map {
            WalletRpcAction(chainId: ChainID(eip155: 8453), method: .signTransaction, params: "[\($0)]")
        }
        let results = try await dispatcher.sign(actions: actions).results
        #expect(results.count == actions.count)
        for signature in results.prefix(2) {
            let bytes = try Hex.decode(signature)
            #expect(bytes.count == 65 && (bytes[64] == 27 || bytes[64] == 28), "v is 27 or 28")
        }
        var cases: [JSONValue] = [
            ["kind": "message", "message": "0x48656c6c6f20636c6f7564", "signature": .string(results[0])],
            ["kind": "typed", "data": try JSONValue(parsing: typedData), "signature": .string(results[1])],
        ]
        cases += results.dropFirst(2).map { ["kind": "tx", "raw": .string($0)] }
        let recovered = try #require(try await PythonOracle.run(Self.oracle, input: .array(cases)).arrayValue)
        #expect(recovered.count == cases.count)
        for (index, address) in recovered.enumerated() {
            #expect(address.stringValue == account, "action \(index) recovers to the key's account")
        }
        let types = results.dropFirst(2).map { (try? Hex.decode($0))?.first ?? 0 }
        #expect(types.count == 4 && types[0] >= 0xC0 && Array(types[1...]) == [0x01, 0x02, 0x04])
    }

    /// EIP-712's Mail example with `contents`.
    static func mail(contents: String) -> String {
        #"""
        {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"\#(contents)"}}
        """#
    }
}
