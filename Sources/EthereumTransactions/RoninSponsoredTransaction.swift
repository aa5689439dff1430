import EthereumPrimitives

/// A Ronin sponsored transaction (type `0x64`, REP-0008): a payer signs that it pays the gas, then the sender
/// signs the transaction including the payer's signature.
///
/// - The payer signs `keccak256(rlp([chainId, sender, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to,
///   value, data, expiredTime]))` (``payerSigningHash(sender:)``): no type byte, and the sender's 20-byte
///   address inside.
/// - The sender signs `keccak256(0x64 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to,
///   value, data, expiredTime, payerV, payerR, payerS]))` (``signingPayload``).
/// - Broadcast as `0x64 ‖ rlp([those 12 fields, v, r, s])`; no access list. Both signatures are low-s with
///   v = yParity. `expiredTime` 0 never expires; otherwise a block at or after it refuses the transaction.
///
/// The payer hash has no domain byte: a payer key must sign only through this type (see docs/RONIN.md).
public struct RoninSponsoredTransaction: Sendable, Hashable {
    /// The chain id (2020 for Ronin mainnet, 2021 for Saigon).
    public var chainId: UInt256
    /// The sender's transaction count.
    public var nonce: UInt256
    /// The most wei per gas paid to the block producer on top of the base fee.
    public var maxPriorityFeePerGas: UInt256
    /// The most wei per gas paid in total; the payer pays it.
    public var maxFeePerGas: UInt256
    /// The gas limit (`gas` in JSON-RPC).
    public var gasLimit: UInt256
    /// The recipient; `nil` creates a contract from ``data``.
    public var to: Address?
    /// Wei transferred, from the sender.
    public var value: UInt256
    /// Call data, or init code for a contract creation.
    public var data: [UInt8]
    /// Unix seconds from which no block includes the transaction; 0: never expires.
    public var expiredTime: UInt64
    /// The payer's signature over ``payerSigningHash(sender:)``.
    public var payerSignature: RecoverableSignature

    /// Builds a sponsored transaction carrying the payer's signature.
    public init(
        chainId: UInt256, nonce: UInt256, maxPriorityFeePerGas: UInt256, maxFeePerGas: UInt256, gasLimit: UInt256,
        to: Address?, value: UInt256 = 0, data: [UInt8] = [], expiredTime: UInt64,
        payerSignature: RecoverableSignature
    ) {
        self.chainId = chainId
        self.nonce = nonce
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.maxFeePerGas = maxFeePerGas
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
        self.expiredTime = expiredTime
        self.payerSignature = payerSignature
    }

    /// What the payer signs for `sender` (see the type's documentation).
    public func payerSigningHash(sender: Address) -> Bytes32 {
        Self.payerSigningHash(
            chainId: chainId, sender: sender, nonce: nonce, maxPriorityFeePerGas: maxPriorityFeePerGas,
            maxFeePerGas: maxFeePerGas, gasLimit: gasLimit, to: to, value: value, data: data, expiredTime: expiredTime)
    }

    /// What the payer signs, from the fields before any payer signature exists.
    public static func payerSigningHash(
        chainId: UInt256, sender: Address, nonce: UInt256, maxPriorityFeePerGas: UInt256, maxFeePerGas: UInt256,
        gasLimit: UInt256, to: Address?, value: UInt256, data: [UInt8], expiredTime: UInt64
    ) -> Bytes32 {
        let fields: [RLPItem] = [
            .uint256(chainId), .bytes(sender.bytes), .uint256(nonce), .uint256(maxPriorityFeePerGas),
            .uint256(maxFeePerGas), .uint256(gasLimit), to.rlp, .uint256(value), .bytes(data), .uint(expiredTime),
        ]
        return Keccak256.hash(RLP.encode(.list(fields)))
    }

    /// The sender-signed fields in RLP order (the payer's signature included).
    var fields: [RLPItem] {
        [
            .uint256(chainId), .uint256(nonce), .uint256(maxPriorityFeePerGas), .uint256(maxFeePerGas),
            .uint256(gasLimit), to.rlp, .uint256(value), .bytes(data), .uint(expiredTime),
        ] + payerSignature.typedFields
    }

    /// The bytes whose Keccak-256 the sender signs: `0x64 ‖ rlp(fields)`.
    public var signingPayload: [UInt8] { typedEnvelope(.roninSponsored, fields) }

    /// The broadcast encoding `0x64 ‖ rlp([…, v, r, s])`.
    public func rawEncoding(signature: RecoverableSignature) -> [UInt8] {
        typedEnvelope(.roninSponsored, fields + signature.typedFields)
    }
}

extension RoninSponsoredTransaction: TransactionFields {
    /// ``TransactionType/roninSponsored``.
    public var type: TransactionType { .roninSponsored }
    /// ``chainId``.
    public var signedChainId: UInt256? { chainId }
    /// No access list (the type has none).
    public var accessList: [AccessListEntry] { [] }
    /// ``maxFeePerGas``.
    public var gasFeeCap: UInt256 { maxFeePerGas }
    /// ``maxPriorityFeePerGas``.
    public var gasTipCap: UInt256 { maxPriorityFeePerGas }
    /// No authorization list (type `0x4` only).
    public var authorizationList: [SignedAuthorization] { [] }
    /// `.roninSponsored(self)`.
    public var transaction: Transaction { .roninSponsored(self) }
}
