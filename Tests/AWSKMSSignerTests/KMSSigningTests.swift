import AWSKMSSigner
import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

/// An AWS KMS key (`ECC_SECG_P256K1`) in a local KMS, every request SigV4-signed by libcurl and checked by the
/// tests' proxy as AWS checks it: the address from `GetPublicKey`, raw digests, and every method through the
/// dispatcher, recovered by eth-account.
@Suite("AWS KMS key signing on a local KMS")
struct KMSSigningTests {
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

    /// A digest of 32 random bytes.
    static func randomDigest() -> Digest32 {
        Digest32((0..<32).map { _ in UInt8.random(in: 0...255) }) ?? Digest32()
    }

    @Test("GetPublicKey gives the address; 120 digests signed low-s, recovering to it, while KMS answers high s too")
    func digests() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let keyID = try await environment.createKey()
        let client = try environment.client()
        let signer = try await AWSKMSKeySigner.load(keyID: keyID, client: client)
        #expect(signer.address == signer.publicKey.address)
        #expect(signer.keyARN.hasSuffix("key/\(keyID)"))

        let half = Self.halfOrder
        let digests = (0..<120).map { _ in Self.randomDigest() }
        // Concurrently: the raw answers of KMS (to see its high-s half) and the signer's final signatures.
        async let raw = withThrowingTaskGroup(of: Bool.self) { group in
            for digest in digests {
                group.addTask {
                    let der = try await client.signDigest(digest, keyID: signer.keyARN)
                    let (_, s) = try ECDSA.signatureComponents(der: der)
                    return UInt256(word: s) > half
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        let signatures = try await withThrowingTaskGroup(of: (Int, RecoverableSignature).self) { group in
            for (index, digest) in digests.enumerated() {
                group.addTask { (index, try await signer.sign(prehash: digest)) }
            }
            return try await group.reduce(into: [Int: RecoverableSignature]()) { $0[$1.0] = $1.1 }
        }
        let highS = try await raw
        #expect(highS > 0, "KMS gave no high s in 120 signatures")
        var ids = Set<UInt8>()
        for (index, digest) in digests.enumerated() {
            let signature = try #require(signatures[index])
            #expect(UInt256(word: signature.s) <= half)
            #expect(try ECDSA.recoverAddress(prehash: digest, signature: signature) == signer.address)
            ids.insert(signature.recoveryId)
        }
        #expect(ids == [0, 1], "both recovery ids occur in 120 signatures")
        let stats = try await environment.kms.stats()
        #expect(stats.rejected == 0)
        #expect(stats.verified >= 241)
    }

    @Test("messages, typed data and every transaction type through the dispatcher, recovered by eth-account")
    func dispatcherMethods() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let keyID = try await environment.createKey()
        try await environment.createAlias("alias/payments-hot", keyID: keyID)
        // By alias, with temporary credentials: the session token travels signed.
        let signer = try await AWSKMSKeySigner.load(
            keyID: "alias/payments-hot", client: try environment.client(KMSEnvironment.temporary))
        let dispatcher = RpcDispatcher()
        try dispatcher.register(signer)

        let account = signer.address.checksummed
        let typedData = Self.mail(contents: "KMS")
        let authority = try PrivateKey(hex: TestKeys.betaHex)
        let tuple = Authorization(chainId: 8453, address: authority.address, nonce: 1).sign(with: authority)
        let transactions = [
            #"{"from":"\#(account)","to":"\#(authority.address.checksummed)","value":"0x1","nonce":"0x0","gas":"0x5208","gasPrice":"0x3b9aca00"}"#,
            #"{"from":"\#(account)","type":"0x1","to":"\#(authority.address.checksummed)","value":"0x2","nonce":"0x1","gas":"0x6000","gasPrice":"0x3b9aca00","accessList":[]}"#,
            #"{"from":"\#(account)","type":"0x2","to":"\#(authority.address.checksummed)","value":"0x3","nonce":"0x2","gas":"0x5208","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00"}"#,
            #"{"from":"\#(account)","type":"0x4","to":"\#(authority.address.checksummed)","value":"0x0","nonce":"0x3","gas":"0x30d40","maxFeePerGas":"0x77359400","maxPriorityFeePerGas":"0x3b9aca00","authorizationList":\#(JSONValue.array([tuple.json]).serialized)}"#,
        ]
        var actions = [
            WalletRpcAction(
                chainId: ChainID(eip155: 8453), method: .personalSign,
                params: #"["0x48656c6c6f204b4d53","\#(account)"]"#),
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
            ["kind": "message", "message": "0x48656c6c6f204b4d53", "signature": .string(results[0])],
            ["kind": "typed", "data": try JSONValue(parsing: typedData), "signature": .string(results[1])],
        ]
        cases += results.dropFirst(2).map { ["kind": "tx", "raw": .string($0)] }
        let recovered = try #require(try await PythonOracle.run(Self.oracle, input: .array(cases)).arrayValue)
        #expect(recovered.count == cases.count)
        for (index, address) in recovered.enumerated() {
            #expect(address.stringValue == account, "action \(index) recovers to the KMS key's account")
        }
        // The type of each raw transaction is the one asked for.
        let types = results.dropFirst(2).map { (try? Hex.decode($0))?.first ?? 0 }
        #expect(types.count == 4 && types[0] >= 0xC0 && Array(types[1...]) == [0x01, 0x02, 0x04])
    }

    @Test("Ronin sponsorship with KMS keys: one signs as the payer (ronin_sponsorTransaction), another as the sender")
    func sponsoredByKMSKeys() async throws {
        let environment = try await KMSEnvironment.start()
        defer { environment.kms.stop() }
        let client = try environment.client()
        let payer = try await AWSKMSKeySigner.load(keyID: try await environment.createKey(), client: client)
        let sender = try await AWSKMSKeySigner.load(keyID: try await environment.createKey(), client: client)
        let outcome = try await SponsoredRoundTrip.run(payer: payer, sender: sender)
        #expect(outcome.payer == payer.address)
        #expect(outcome.sender == sender.address)
        #expect(outcome.raw.first == 0x64)
    }

    /// EIP-712's Mail example with `contents`.
    static func mail(contents: String) -> String {
        #"""
        {"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"version","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},"message":{"from":{"name":"Cow","wallet":"0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"\#(contents)"}}
        """#
    }
}
