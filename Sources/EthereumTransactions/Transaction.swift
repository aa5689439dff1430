import EthereumPrimitives

/// An unsigned transaction of any supported type.
public enum Transaction: Sendable, Hashable {
    /// A type `0x0` transaction.
    case legacy(LegacyTransaction)
    /// A type `0x1` transaction.
    case eip2930(EIP2930Transaction)
    /// A type `0x2` transaction.
    case eip1559(EIP1559Transaction)

    /// The envelope type.
    public var type: TransactionType {
        switch self {
        case .legacy: .legacy
        case .eip2930: .eip2930
        case .eip1559: .eip1559
        }
    }

    /// The chain id; `nil` only for a pre-EIP-155 legacy transaction.
    public var chainId: UInt256? {
        switch self {
        case .legacy(let tx): tx.chainId
        case .eip2930(let tx): tx.chainId
        case .eip1559(let tx): tx.chainId
        }
    }

    /// The sender's transaction count.
    public var nonce: UInt256 {
        switch self {
        case .legacy(let tx): tx.nonce
        case .eip2930(let tx): tx.nonce
        case .eip1559(let tx): tx.nonce
        }
    }

    /// The gas limit.
    public var gasLimit: UInt256 {
        switch self {
        case .legacy(let tx): tx.gasLimit
        case .eip2930(let tx): tx.gasLimit
        case .eip1559(let tx): tx.gasLimit
        }
    }

    /// The recipient; `nil` for a contract creation.
    public var to: Address? {
        switch self {
        case .legacy(let tx): tx.to
        case .eip2930(let tx): tx.to
        case .eip1559(let tx): tx.to
        }
    }

    /// Wei transferred.
    public var value: UInt256 {
        switch self {
        case .legacy(let tx): tx.value
        case .eip2930(let tx): tx.value
        case .eip1559(let tx): tx.value
        }
    }

    /// Call data, or init code for a contract creation.
    public var data: [UInt8] {
        switch self {
        case .legacy(let tx): tx.data
        case .eip2930(let tx): tx.data
        case .eip1559(let tx): tx.data
        }
    }

    /// The access list (always empty for legacy transactions).
    public var accessList: [AccessListEntry] {
        switch self {
        case .legacy: []
        case .eip2930(let tx): tx.accessList
        case .eip1559(let tx): tx.accessList
        }
    }

    /// The most wei per gas the transaction can pay: `gasPrice`, or `maxFeePerGas` for EIP-1559
    /// (geth's `GasFeeCap`). With ``gasLimit`` and ``value`` it bounds what the sender can spend.
    public var gasFeeCap: UInt256 {
        switch self {
        case .legacy(let tx): tx.gasPrice
        case .eip2930(let tx): tx.gasPrice
        case .eip1559(let tx): tx.maxFeePerGas
        }
    }

    /// The most wei per gas the transaction can pay the block producer as a tip: `gasPrice` for
    /// legacy and EIP-2930 transactions, `maxPriorityFeePerGas` for EIP-1559 (geth's `GasTipCap`).
    public var gasTipCap: UInt256 {
        switch self {
        case .legacy(let tx): tx.gasPrice
        case .eip2930(let tx): tx.gasPrice
        case .eip1559(let tx): tx.maxPriorityFeePerGas
        }
    }

    /// The bytes whose Keccak-256 is signed (see each type's `signingPayload`).
    public var signingPayload: [UInt8] {
        switch self {
        case .legacy(let tx): tx.signingPayload
        case .eip2930(let tx): tx.signingPayload
        case .eip1559(let tx): tx.signingPayload
        }
    }

    /// Keccak-256 of ``signingPayload``: the digest to sign.
    public var signingHash: Bytes32 { Keccak256.hash(signingPayload) }

    /// The signed transaction carrying `signature` (made over ``signingHash``).
    public func signed(with signature: RecoverableSignature) -> SignedTransaction {
        SignedTransaction(transaction: self, signature: signature)
    }

    /// The broadcast encoding with `signature` attached.
    func rawEncoding(signature: RecoverableSignature) -> [UInt8] {
        switch self {
        case .legacy(let tx): tx.rawEncoding(signature: signature)
        case .eip2930(let tx): tx.rawEncoding(signature: signature)
        case .eip1559(let tx): tx.rawEncoding(signature: signature)
        }
    }
}
