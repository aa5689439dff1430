import EthereumPrimitives

/// An amount of one token that an action moves or lets someone move.
public struct TokenAmount: Sendable, Hashable {
    /// The token contract.
    public let token: Address
    /// The amount in the token's base units.
    public let amount: UInt256
    /// `1.500000 USDC` when the token is known to the registry, else `nil`.
    public let formatted: String?

    /// An amount.
    public init(token: Address, amount: UInt256, formatted: String?) {
        self.token = token
        self.amount = amount
        self.formatted = formatted
    }

    /// The formatted amount, or `<base units> of <token>`.
    public var display: String {
        if let formatted { return formatted }
        let size = SigningPreviewer.isUnlimited(amount) ? "unlimited" : amount.decimalString + " (base units)"
        return "\(size) of \(token.checksummed)"
    }
}

/// A labelled value of a preview: a typed-data field, a SIWE field or a field rendered by an ERC-7730
/// descriptor.
public struct PreviewField: Sendable, Hashable {
    /// The label (a field path for typed data, the descriptor's label when a descriptor renders it).
    public let label: String
    /// The value as shown (untrusted text abbreviated).
    public let value: String

    /// A field.
    public init(label: String, value: String) {
        self.label = label
        self.value = value
    }
}

/// Decimal formatting of base units.
public enum DecimalFormat {
    /// `amount` with a decimal point `decimals` digits from the right (`1500000`, 6 → `1.500000`).
    public static func string(_ amount: UInt256, decimals: Int) -> String {
        let digits = amount.decimalString
        guard decimals > 0 else { return digits }
        let padded = String(repeating: "0", count: max(0, decimals + 1 - digits.count)) + digits
        let split = padded.index(padded.endIndex, offsetBy: -decimals)
        return padded[..<split] + "." + padded[split...]
    }
}
