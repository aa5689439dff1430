import EthereumPrimitives
import EthereumTransactions

/// What a payer commits to when it sponsors a Ronin transaction (`ronin_sponsorTransaction`): whose
/// transaction, how much gas at what fee cap at most, and until when. The call itself (contract, selector,
/// token amounts) is in the rest of the ``SigningPreview``; its ``SigningPreview/account`` is the payer.
public struct PreviewSponsorship: Sendable, Hashable {
    /// The player whose transaction the payer pays for (`from`).
    public let sender: Address
    /// The gas limit the payer pays for at most.
    public let gasLimit: UInt256
    /// The fee cap per gas (`maxFeePerGas`).
    public let maxFeePerGas: UInt256
    /// `expiredTime`: the first block time (Unix seconds) at which the transaction is refused; 0 never expires.
    public let expiredTime: UInt64

    /// The sponsorship of a sender's type `0x64` request, or `nil` without `from`.
    public init?(_ request: TransactionRequest) {
        guard let sender = request.from else { return nil }
        self.sender = sender
        gasLimit = request.gasLimit ?? .zero
        maxFeePerGas = request.maxFeePerGas ?? .zero
        expiredTime = request.expiredTime ?? 0
    }

    /// The most the payer can pay: gas limit × fee cap, in wei (saturating at 2^256 − 1).
    public var maximumCost: UInt256 { gasLimit.multiplied(by: maxFeePerGas) ?? .max }

    /// `sponsors 0xSender: at most 0.000042 native (21000 gas × 2000000000 wei), until 2026-…Z` (or `never expires`).
    public var text: String {
        let cost = "\(DecimalFormat.string(maximumCost, decimals: 18)) native"
        let limits = "\(gasLimit.decimalString) gas × \(maxFeePerGas.decimalString) wei"
        let expiry = expiredTime == 0 ? "never expires" : "until \(SigningPreview.utcDate(UInt256(expiredTime)))"
        return "sponsors \(sender.checksummed): at most \(cost) (\(limits)), \(expiry)"
    }

    /// `{"sender","gas","maxFeePerGas","maximumCost","expiredTime","expires"}`; amounts in decimal wei, `expires`
    /// ISO 8601 or null when the transaction never expires.
    public var json: JSONValue {
        .object(
            JSONObject([
                "sender": .string(sender.checksummed), "gas": .string(gasLimit.decimalString),
                "maxFeePerGas": .string(maxFeePerGas.decimalString), "maximumCost": .string(maximumCost.decimalString),
                "expiredTime": .string(String(expiredTime)),
                "expires": expiredTime == 0 ? .null : .string(SigningPreview.utcDate(UInt256(expiredTime))),
            ]))
    }
}
