import EthereumPrimitives
import EthereumTransactions
import SignerKit

/// A Ronin sponsored transaction made by two keys of any kind (a token's, a KMS's): the payer signs through
/// `ronin_sponsorTransaction` (registered for it alone), then the sender signs the sponsored request through
/// `eth_signTransaction` — each a dispatcher of its own, as a studio's server and a player's wallet are.
public enum SponsoredRoundTrip {
    /// What came back: the raw transaction and the two accounts it recovers to.
    public struct Outcome: Sendable {
        /// The signed type 0x64 transaction.
        public let raw: [UInt8]
        /// Who signed as the payer (recovered from the raw transaction; `nil` if it were not type 0x64).
        public let payer: Address?
        /// Who signed as the sender (recovered from the raw transaction).
        public let sender: Address
    }

    /// Row 0 of `ronin_sponsored.jsonl` with `from` and `payer` replaced by the two keys' addresses, sponsored
    /// and signed; the two signers recovered from the result.
    public static func run(payer: any PrehashSigner, sender: any PrehashSigner) async throws -> Outcome {
        var request = try TransactionRequest(json: try Vectors.rows("ronin_sponsored.jsonl")[0]["tx"] ?? .null)
        request.from = sender.address
        request.payer = payer.address
        let chain = ChainID(eip155: request.chainId?.uint64 ?? 0)

        let studio = RpcDispatcher()
        try studio.register(payer, methods: [.sponsorTransaction])
        let sponsorship = try await studio.sign(actions: [
            WalletRpcAction(chainId: chain, method: .sponsorTransaction, params: .array([request.json]))
        ])
        request.payerSignature = try RecoverableSignature(hex: sponsorship.results[0])

        let wallet = RpcDispatcher()
        try wallet.register(sender)
        let signed = try await wallet.sign(actions: [
            WalletRpcAction(chainId: chain, method: .signTransaction, params: .array([request.json]))
        ])
        let raw = try Hex.decode(signed.results[0])
        let decoded = try SignedTransaction.decode(raw: raw)
        return Outcome(raw: raw, payer: try decoded.recoverPayer(), sender: try decoded.recoverSender())
    }
}
