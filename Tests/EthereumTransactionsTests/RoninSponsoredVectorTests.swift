import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import SignerKitTestSupport
import Testing

/// One row of `ronin_sponsored.jsonl`.
struct RoninSponsoredVector: Sendable, CustomTestStringConvertible {
    let row: JSONValue
    var testDescription: String { row["name"]?.stringValue ?? "?" }
    func string(_ key: String) -> String { row[key]?.stringValue ?? "" }
    func signature(_ key: String, _ part: String) -> String { row[key]?[part]?.stringValue ?? "" }

    static let all: [RoninSponsoredVector] = ((try? Vectors.rows("ronin_sponsored.jsonl")) ?? []).map(Self.init)
}

@Suite("Ronin sponsored transactions (type 0x64): ground-truth vectors")
struct RoninSponsoredVectorTests {
    @Test func allRowsLoad() { #expect(RoninSponsoredVector.all.count == 20) }

    @Test(
        "payer hash and signature, sender hash and signature, raw, hash, both recoveries",
        arguments: RoninSponsoredVector.all)
    func row(_ vector: RoninSponsoredVector) throws {
        let request = try TransactionRequest(json: try #require(vector.row["tx"]))
        #expect(request.type == .roninSponsored)
        let chainId = try UInt256(text: vector.string("chainId"))
        let payerKey = try PrivateKey(hex: vector.string("payerPrivateKey"))
        let senderKey = try PrivateKey(hex: vector.string("senderPrivateKey"))
        #expect(payerKey.address == (try Address(vector.string("payer"))))
        #expect(senderKey.address == (try Address(vector.string("sender"))))

        // The payer's side.
        let payerHash = try request.roninPayerSigningHash(chainId: chainId)
        #expect(payerHash.hex == vector.string("payerSigningHash"))
        let payerSignature = payerKey.sign(prehash: payerHash)
        #expect(UInt256(UInt64(payerSignature.recoveryId)).hexQuantity == vector.signature("payerSignature", "yParity"))
        #expect(UInt256(word: payerSignature.r).hexQuantity == vector.signature("payerSignature", "r"))
        #expect(UInt256(word: payerSignature.s).hexQuantity == vector.signature("payerSignature", "s"))

        // The request with the payer's fields added, as `tx sponsor` prints it, reads back.
        var sponsored = request
        sponsored.payerSignature = payerSignature
        let reread = try TransactionRequest(json: sponsored.json)
        #expect(reread == sponsored)

        // The sender's side.
        let transaction = try reread.roninSponsored(chainId: chainId)
        #expect(transaction.signingHash.hex == vector.string("senderSigningHash"))
        let signed = transaction.sign(with: senderKey)
        #expect(UInt256(word: signed.signature.r).hexQuantity == vector.signature("senderSignature", "r"))
        #expect(UInt256(word: signed.signature.s).hexQuantity == vector.signature("senderSignature", "s"))
        #expect(signed.rawTransactionHex == vector.string("rawTransaction"))
        #expect(signed.hash.hex == vector.string("hash"))

        // Decoding the raw transaction gives it back, and both signers recover.
        let decoded = try SignedTransaction.decode(hex: vector.string("rawTransaction"))
        #expect(decoded == signed)
        #expect(try decoded.recoverSender() == senderKey.address)
        #expect(try decoded.recoverPayer() == payerKey.address)
    }

    @Test("refusals: payer = sender, a payer signature of another key, high s, a missing or extra field")
    func refusals() throws {
        let vector = try #require(RoninSponsoredVector.all.first)
        let chainId = try UInt256(text: vector.string("chainId"))
        let tx = try #require(vector.row["tx"])
        let payerKey = try PrivateKey(hex: vector.string("payerPrivateKey"))
        let senderKey = try PrivateKey(hex: vector.string("senderPrivateKey"))
        func request(_ changes: [String: JSONValue]) throws(TransactionError) -> TransactionRequest {
            guard case .object(var object) = tx else { return try TransactionRequest(json: tx) }
            for (key, value) in changes { object[key] = value }
            return try TransactionRequest(json: .object(object))
        }
        // The payer may not be the sender.
        #expect(throws: TransactionError.payerIsSender(senderKey.address)) {
            try request(["payer": .string(senderKey.address.checksummed)])
        }
        // A payer signature by another key than `payer`: refused, naming the payer fields.
        var other = try request([:])
        let stranger = try PrivateKey(hex: "0x" + String(repeating: "17", count: 32))
        other.payerSignature = stranger.sign(prehash: try other.roninPayerSigningHash(chainId: chainId))
        do {
            _ = try other.roninSponsored(chainId: chainId)
            Issue.record("a payer signature of the sender was accepted")
        } catch {
            #expect(error.description.hasPrefix(#"fields "payerV", "payerR", "payerS""#), "\(error)")
        }
        // No payer named: any payer but the sender.
        var unnamed = try request(["payer": .null])
        unnamed.payerSignature = payerKey.sign(prehash: try unnamed.roninPayerSigningHash(chainId: chainId))
        #expect(
            try unnamed.roninSponsored(chainId: chainId).recoverPayer(sender: senderKey.address) == payerKey.address)
        // High s.
        let good = payerKey.sign(prehash: try unnamed.roninPayerSigningHash(chainId: chainId))
        let order = try UInt256(text: "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
        let high = try RecoverableSignature(
            r: good.r, s: (order - UInt256(word: good.s)).word, recoveryId: good.recoveryId ^ 1)
        unnamed.payerSignature = high
        #expect(throws: TransactionError.invalidPayerSignature("s is above n/2 (low-s is required)")) {
            try unnamed.roninSponsored(chainId: chainId)
        }
        // Not signed by the payer yet; no expiredTime; a payer field in another type; half a signature.
        #expect(throws: TransactionError.missingField("payerV")) { try request([:]).roninSponsored(chainId: chainId) }
        #expect(throws: TransactionError.missingField("expiredTime")) {
            try request(["expiredTime": .null]).roninPayerSigningHash(chainId: chainId)
        }
        #expect(throws: TransactionError.fieldNotAllowed(field: "expiredTime", type: .eip1559)) {
            try request(["type": "0x2"])
        }
        #expect(throws: TransactionError.missingField("payerS")) { try request(["payerV": "0x0", "payerR": "0x1"]) }
        #expect(throws: TransactionError.quantityTooWide(field: "expiredTime", value: "0x10000000000000000", bits: 64))
        {
            try request(["expiredTime": "0x10000000000000000"])
        }
    }
}
