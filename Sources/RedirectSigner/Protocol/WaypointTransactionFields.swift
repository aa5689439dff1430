import EthereumPrimitives

/// The optional transaction fields a `/wallet/send` request forwards, as the upstream Waypoint SDKs do
/// from `eth_sendTransaction`: the type (Ronin's sponsored type `0x64` passed through as is), the gas
/// limit, the nonce and the fees. Absent fields are left to the wallet.
///
/// On the wire: `type` as minimal `0x`-hex (`0x2`, `0x64`); `gas`, `nonce`, `gasPrice`, `maxFeePerGas`,
/// `maxPriorityFeePerGas` in decimal, like `value`.
public struct WaypointTransactionFields: Sendable, Hashable {
    /// The transaction type byte (`0x0`, `0x2`, Ronin's sponsored `0x64`, …).
    public var type: UInt8?
    /// The gas limit.
    public var gas: UInt256?
    /// The sender's nonce.
    public var nonce: UInt256?
    /// The legacy gas price, in wei.
    public var gasPrice: UInt256?
    /// The EIP-1559 fee cap, in wei.
    public var maxFeePerGas: UInt256?
    /// The EIP-1559 priority fee, in wei.
    public var maxPriorityFeePerGas: UInt256?

    /// Fields as given (all absent by default).
    public init(
        type: UInt8? = nil, gas: UInt256? = nil, nonce: UInt256? = nil, gasPrice: UInt256? = nil,
        maxFeePerGas: UInt256? = nil, maxPriorityFeePerGas: UInt256? = nil
    ) {
        self.type = type
        self.gas = gas
        self.nonce = nonce
        self.gasPrice = gasPrice
        self.maxFeePerGas = maxFeePerGas
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == WaypointTransactionFields() }

    /// The query parameters of the set fields, in a fixed order.
    public var parameters: [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        if let type { pairs.append(("type", "0x" + String(type, radix: 16))) }
        if let gas { pairs.append(("gas", gas.decimalString)) }
        if let nonce { pairs.append(("nonce", nonce.decimalString)) }
        if let gasPrice { pairs.append(("gasPrice", gasPrice.decimalString)) }
        if let maxFeePerGas { pairs.append(("maxFeePerGas", maxFeePerGas.decimalString)) }
        if let maxPriorityFeePerGas { pairs.append(("maxPriorityFeePerGas", maxPriorityFeePerGas.decimalString)) }
        return pairs
    }
}
