import EthereumPrimitives

/// An unsigned transaction of any supported type. Its fields are read through the one it holds
/// (``fields``); see ``TransactionFields``.
public enum Transaction: Sendable, Hashable {
    /// A type `0x0` transaction.
    case legacy(LegacyTransaction)
    /// A type `0x1` transaction.
    case eip2930(EIP2930Transaction)
    /// A type `0x2` transaction.
    case eip1559(EIP1559Transaction)
    /// A type `0x4` (set-code) transaction.
    case eip7702(EIP7702Transaction)
    /// A type `0x64` Ronin sponsored transaction (carrying its payer's signature).
    case roninSponsored(RoninSponsoredTransaction)

    /// The transaction this value holds.
    public var fields: any TransactionFields {
        switch self {
        case .legacy(let tx): tx
        case .eip2930(let tx): tx
        case .eip1559(let tx): tx
        case .eip7702(let tx): tx
        case .roninSponsored(let tx): tx
        }
    }

    /// The chain id; `nil` only for a pre-EIP-155 legacy transaction.
    public var chainId: UInt256? { fields.signedChainId }
}

extension Transaction: TransactionFields {
    /// The envelope type.
    public var type: TransactionType { fields.type }
    /// The chain id the signature commits to (``chainId``).
    public var signedChainId: UInt256? { fields.signedChainId }
    /// The sender's transaction count.
    public var nonce: UInt256 { fields.nonce }
    /// The gas limit.
    public var gasLimit: UInt256 { fields.gasLimit }
    /// The recipient; `nil` for a contract creation.
    public var to: Address? { fields.to }
    /// Wei transferred.
    public var value: UInt256 { fields.value }
    /// Call data, or init code for a contract creation.
    public var data: [UInt8] { fields.data }
    /// The access list (always empty for legacy transactions).
    public var accessList: [AccessListEntry] { fields.accessList }
    /// The signed authorizations (empty but for type `0x4`).
    public var authorizationList: [SignedAuthorization] { fields.authorizationList }
    /// See ``TransactionFields/gasFeeCap``.
    public var gasFeeCap: UInt256 { fields.gasFeeCap }
    /// See ``TransactionFields/gasTipCap``.
    public var gasTipCap: UInt256 { fields.gasTipCap }
    /// The bytes whose Keccak-256 is signed (see each type's `signingPayload`).
    public var signingPayload: [UInt8] { fields.signingPayload }
    /// The broadcast encoding with `signature` attached.
    public func rawEncoding(signature: RecoverableSignature) -> [UInt8] { fields.rawEncoding(signature: signature) }
    /// `self`.
    public var transaction: Transaction { self }
}
