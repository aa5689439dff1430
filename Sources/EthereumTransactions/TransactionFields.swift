import EthereumPrimitives

/// What every transaction type has: its fields as a node reads them, the payload it is signed over and
/// its broadcast encoding. ``LegacyTransaction``, ``EIP2930Transaction``, ``EIP1559Transaction``,
/// ``EIP7702Transaction`` and the ``Transaction`` enum that holds any of them conform; hashing,
/// attaching a signature and signing with a key (`sign(with:)`) are written once, here, for all of them.
public protocol TransactionFields: Sendable, Hashable {
    /// The envelope type.
    var type: TransactionType { get }
    /// The chain id the signature commits to; `nil` only for a pre-EIP-155 legacy transaction.
    var signedChainId: UInt256? { get }
    /// The sender's transaction count.
    var nonce: UInt256 { get }
    /// The gas limit (`gas` in JSON-RPC).
    var gasLimit: UInt256 { get }
    /// The recipient; `nil` for a contract creation.
    var to: Address? { get }
    /// Wei transferred.
    var value: UInt256 { get }
    /// Call data, or init code for a contract creation.
    var data: [UInt8] { get }
    /// The access list (empty for types without one).
    var accessList: [AccessListEntry] { get }
    /// The signed EIP-7702 authorizations (empty for types without a list).
    var authorizationList: [SignedAuthorization] { get }
    /// The most wei per gas the transaction can pay: `gasPrice`, or `maxFeePerGas` from EIP-1559 on
    /// (geth's `GasFeeCap`). With ``gasLimit`` and ``value`` it bounds what the sender can spend.
    var gasFeeCap: UInt256 { get }
    /// The most wei per gas the transaction can pay the block producer as a tip: `gasPrice`, or
    /// `maxPriorityFeePerGas` from EIP-1559 on (geth's `GasTipCap`).
    var gasTipCap: UInt256 { get }
    /// The bytes whose Keccak-256 is signed.
    var signingPayload: [UInt8] { get }
    /// The broadcast encoding with `signature` attached (made over ``signingHash``).
    func rawEncoding(signature: RecoverableSignature) -> [UInt8]
    /// This transaction as the ``Transaction`` enum.
    var transaction: Transaction { get }
}

extension TransactionFields {
    /// Keccak-256 of ``signingPayload``: the digest to sign.
    public var signingHash: Bytes32 { Keccak256.hash(signingPayload) }

    /// The signed transaction carrying `signature` (made over ``signingHash``).
    public func signed(with signature: RecoverableSignature) -> SignedTransaction {
        SignedTransaction(transaction: transaction, signature: signature)
    }
}
