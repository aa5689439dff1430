import EthereumPrimitives
import EthereumTransactions
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// eth_signTransaction of a Ronin sponsored request (type 0x64) carrying its payer's signature, signed by the
/// sender's registered key through the dispatcher's pipeline.
@Suite("Ronin sponsored transactions through the dispatcher")
struct RoninSponsoredDispatchTests {
    /// A vector row's request with the payer's signature added, the sender's key, and the row.
    static func sponsored(row index: Int) throws -> (
        request: TransactionRequest, sender: SoftwareKeySigner, row: JSONValue
    ) {
        let row = try Vectors.rows("ronin_sponsored.jsonl")[index]
        var request = try TransactionRequest(json: row["tx"] ?? .null)
        let payer = try PrivateKey(hex: row["payerPrivateKey"]?.stringValue ?? "")
        request.payerSignature = payer.sign(prehash: try request.roninPayerSigningHash(chainId: request.chainId))
        let sender = try SoftwareKeySigner(hex: row["senderPrivateKey"]?.stringValue ?? "")
        return (request, sender, row)
    }

    static func action(_ request: TransactionRequest) throws -> WalletRpcAction {
        let chain = ChainID(eip155: try #require(request.chainId?.uint64))
        return WalletRpcAction(chainId: chain, method: .signTransaction, params: .array([request.json]))
    }

    @Test("the sender's key signs the request as its payer signed it: the vector's raw transaction, verified")
    func signs() async throws {
        for index in [0, 5, 14] {
            let (request, sender, row) = try Self.sponsored(row: index)
            let dispatcher = RpcDispatcher()
            try dispatcher.register(sender)
            let signed = try await dispatcher.sign(actions: [try Self.action(request)])
            #expect(signed.results == [row["rawTransaction"]?.stringValue ?? ""])
            let decoded = try SignedTransaction.decode(hex: try #require(signed.results.first))
            #expect(try decoded.recoverPayer() == (try Address(row["payer"]?.stringValue ?? "")))
        }
    }

    @Test("a payer signature that does not recover to payer, or a missing field: refused before the key signs")
    func refusesBeforeSigning() async throws {
        let (request, sender, _) = try Self.sponsored(row: 0)
        let recorder = RecordingSigner(sender)
        let dispatcher = RpcDispatcher()
        try dispatcher.register(recorder)

        var forged = request
        forged.payer = try Address("0x000000000000000000000000000000000000dEaD")
        var unfilled = request
        unfilled.nonce = nil
        for (bad, expected) in [(forged, "payer"), (unfilled, "\"nonce\" is missing")] {
            do {
                _ = try await dispatcher.sign(actions: [try Self.action(bad)])
                Issue.record("a sponsored transaction with \(expected) wrong was signed")
            } catch {
                #expect("\(error)".contains(expected), "\(error)")
            }
        }
        #expect(recorder.signed.isEmpty)
    }
}
