import EthereumPrimitives

/// An amount of one token that an action moves or lets someone move.
public struct TokenAmount: Sendable, Hashable, CustomStringConvertible {
    /// The token contract.
    public let token: Address
    /// The amount in the token's base units.
    public let amount: UInt256
    /// `1.500000 USDC` when the token is known to the registry, else `nil`.
    public let formatted: String?
    /// The token's symbol and decimals, when the registry knows it.
    public let known: KnownToken?

    /// An amount, formatted by the caller.
    public init(token: Address, amount: UInt256, formatted: String?) {
        self.token = token
        self.amount = amount
        self.formatted = formatted
        known = nil
    }

    /// An amount of `known` (`nil`: a token the registry does not know), formatted with its decimals and symbol.
    public init(token: Address, amount: UInt256, known: KnownToken?) {
        self.token = token
        self.amount = amount
        self.known = known
        formatted = known.map { Self.text(amount, of: $0) }
    }

    /// The formatted amount, or `<base units> of <token>`.
    public var display: String { formatted ?? display(of: amount) }

    /// ``display``.
    public var description: String { display }

    /// Another amount of the same token as it would be shown: `3.000001 USDC` when the token is known, else
    /// `3000001 (base units) of 0x…` (what policy reasons use for sums and caps).
    public func display(of other: UInt256) -> String {
        if let known { return Self.text(other, of: known) }
        let size = SigningPreviewer.isUnlimited(other) ? "unlimited" : other.decimalString + " (base units)"
        return "\(size) of \(token.checksummed)"
    }

    /// The token's symbol when known, else its address.
    public var tokenName: String { known?.symbol ?? token.checksummed }

    /// `1.500000 USDC`, or `unlimited USDC`.
    private static func text(_ amount: UInt256, of token: KnownToken) -> String {
        SigningPreviewer.isUnlimited(amount) ? "unlimited \(token.symbol)" : token.format(amount)
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
