import EthereumPrimitives

/// An EIP-2930 (type `0x1`) transaction: a legacy-style gas price plus an access list.
///
/// Signed over `0x01 ‖ rlp([chainId, nonce, gasPrice, gasLimit, to, value, data, accessList])`
/// and broadcast as `0x01 ‖ rlp([…, yParity, r, s])`.
public struct EIP2930Transaction: Sendable, Hashable {
    /// The chain id (any 256-bit value).
    public var chainId: UInt256
    /// The sender's transaction count.
    public var nonce: UInt256
    /// Wei paid per unit of gas.
    public var gasPrice: UInt256
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

    /// Builds an EIP-2930 transaction.
    public init(
        chainId: UInt256, nonce: UInt256, gasPrice: UInt256, gasLimit: UInt256, to: Address?,
        value: UInt256 = 0, data: [UInt8] = [], accessList: [AccessListEntry] = []
    ) {
        self.chainId = chainId
        self.nonce = nonce
        self.gasPrice = gasPrice
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
        self.accessList = accessList
    }

    /// The unsigned fields in RLP order.
    var fields: [RLPItem] {
        [
            .uint256(chainId), .uint256(nonce), .uint256(gasPrice), .uint256(gasLimit), to.rlp, .uint256(value),
            .bytes(data), accessList.rlp,
        ]
    }

    /// The bytes whose Keccak-256 is signed: `0x01 ‖ rlp(fields)`.
    public var signingPayload: [UInt8] { typedEnvelope(.eip2930, fields) }

    /// The broadcast encoding `0x01 ‖ rlp([…, yParity, r, s])`.
    public func rawEncoding(signature: RecoverableSignature) -> [UInt8] {
        typedEnvelope(.eip2930, fields + signature.typedFields)
    }
}

/// `type ‖ rlp(list)`, the EIP-2718 envelope.
func typedEnvelope(_ type: TransactionType, _ fields: [RLPItem]) -> [UInt8] {
    let body = RLP.encode(.list(fields))
    var out: [UInt8] = []
    out.reserveCapacity(body.count + 1)
    out.append(type.rawValue)
    out.append(contentsOf: body)
    return out
}

extension RecoverableSignature {
    /// `[yParity, r, s]` as typed transactions end, r and s as minimal integers.
    var typedFields: [RLPItem] {
        [.uint(UInt64(yParity)), .uint(bigEndian: r.bytes), .uint(bigEndian: s.bytes)]
    }
}

extension EIP2930Transaction: TransactionFields {
    /// ``TransactionType/eip2930``.
    public var type: TransactionType { .eip2930 }
    /// ``chainId``.
    public var signedChainId: UInt256? { chainId }
    /// ``gasPrice``.
    public var gasFeeCap: UInt256 { gasPrice }
    /// ``gasPrice``.
    public var gasTipCap: UInt256 { gasPrice }
    /// No authorization list (type `0x4` only).
    public var authorizationList: [SignedAuthorization] { [] }
    /// `.eip2930(self)`.
    public var transaction: Transaction { .eip2930(self) }
}
