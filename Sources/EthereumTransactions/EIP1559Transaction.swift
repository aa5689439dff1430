import EthereumPrimitives

/// An EIP-1559 (type `0x2`) transaction: a priority fee and a fee cap plus an access list.
///
/// Signed over
/// `0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, to, value, data, accessList])`
/// and broadcast as `0x02 ‖ rlp([…, yParity, r, s])`.
public struct EIP1559Transaction: Sendable, Hashable {
    /// The chain id (any 256-bit value).
    public var chainId: UInt256
    /// The sender's transaction count.
    public var nonce: UInt256
    /// The most wei per gas paid to the block producer on top of the base fee.
    public var maxPriorityFeePerGas: UInt256
    /// The most wei per gas paid in total (base fee plus priority fee).
    public var maxFeePerGas: UInt256
    /// The gas limit (`gas` in JSON-RPC).
    public var gasLimit: UInt256
    /// The recipient; `nil` creates a contract from ``data``.
    public var to: Address?
    /// Wei transferred.
    public var value: UInt256
    /// Call data, or init code for a contract creation.
    public var data: [UInt8]
    /// Accounts and storage slots the transaction pre-declares.
    public var accessList: [AccessListEntry]

    /// Builds an EIP-1559 transaction.
    public init(
        chainId: UInt256, nonce: UInt256, maxPriorityFeePerGas: UInt256, maxFeePerGas: UInt256,
        gasLimit: UInt256, to: Address?, value: UInt256 = 0, data: [UInt8] = [],
        accessList: [AccessListEntry] = []
    ) {
        self.chainId = chainId
        self.nonce = nonce
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.maxFeePerGas = maxFeePerGas
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
        self.accessList = accessList
    }

    /// The unsigned fields in RLP order.
    var fields: [RLPItem] {
        [
            .uint256(chainId), .uint256(nonce), .uint256(maxPriorityFeePerGas), .uint256(maxFeePerGas),
            .uint256(gasLimit), to.rlp, .uint256(value), .bytes(data), accessList.rlp,
        ]
    }

    /// The bytes whose Keccak-256 is signed: `0x02 ‖ rlp(fields)`.
    public var signingPayload: [UInt8] { typedEnvelope(.eip1559, fields) }

    /// The broadcast encoding `0x02 ‖ rlp([…, yParity, r, s])`.
    public func rawEncoding(signature: RecoverableSignature) -> [UInt8] {
        typedEnvelope(.eip1559, fields + signature.typedFields)
    }
}

extension EIP1559Transaction: TransactionFields {
    /// ``TransactionType/eip1559``.
    public var type: TransactionType { .eip1559 }
    /// ``chainId``.
    public var signedChainId: UInt256? { chainId }
    /// ``maxFeePerGas``.
    public var gasFeeCap: UInt256 { maxFeePerGas }
    /// ``maxPriorityFeePerGas``.
    public var gasTipCap: UInt256 { maxPriorityFeePerGas }
    /// No authorization list (type `0x4` only).
    public var authorizationList: [SignedAuthorization] { [] }
    /// `.eip1559(self)`.
    public var transaction: Transaction { .eip1559(self) }
}
