import EthereumPrimitives

/// An EIP-7702 (type `0x4`, set-code) transaction: EIP-1559 fees plus a list of signed authorizations,
/// each setting its authority's code to a delegation.
///
/// Signed over `0x04 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, destination,
/// value, data, accessList, authorizationList])` and broadcast as `0x04 ‖ rlp([…, yParity, r, s])`. The
/// destination is required (no contract creation) and the authorization list must not be empty; the
/// request parser and the decoder refuse both.
public struct EIP7702Transaction: Sendable, Hashable {
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
    /// The recipient (EIP-7702's `destination`); a set-code transaction cannot create a contract.
    public var destination: Address
    /// Wei transferred.
    public var value: UInt256
    /// Call data.
    public var data: [UInt8]
    /// Accounts and storage slots the transaction pre-declares.
    public var accessList: [AccessListEntry]
    /// The signed authorizations, applied in order before the call.
    public var authorizationList: [SignedAuthorization]

    /// Builds a set-code transaction.
    public init(
        chainId: UInt256, nonce: UInt256, maxPriorityFeePerGas: UInt256, maxFeePerGas: UInt256, gasLimit: UInt256,
        destination: Address, value: UInt256 = 0, data: [UInt8] = [], accessList: [AccessListEntry] = [],
        authorizationList: [SignedAuthorization]
    ) {
        self.chainId = chainId
        self.nonce = nonce
        self.maxPriorityFeePerGas = maxPriorityFeePerGas
        self.maxFeePerGas = maxFeePerGas
        self.gasLimit = gasLimit
        self.destination = destination
        self.value = value
        self.data = data
        self.accessList = accessList
        self.authorizationList = authorizationList
    }

    /// The unsigned fields in RLP order.
    var fields: [RLPItem] {
        [
            .uint256(chainId), .uint256(nonce), .uint256(maxPriorityFeePerGas), .uint256(maxFeePerGas),
            .uint256(gasLimit), .bytes(destination.bytes), .uint256(value), .bytes(data), accessList.rlp,
            .list(authorizationList.map(\.rlp)),
        ]
    }

    /// The bytes whose Keccak-256 is signed: `0x04 ‖ rlp(fields)`.
    public var signingPayload: [UInt8] { typedEnvelope(.eip7702, fields) }

    /// The broadcast encoding `0x04 ‖ rlp([…, yParity, r, s])`.
    public func rawEncoding(signature: RecoverableSignature) -> [UInt8] {
        typedEnvelope(.eip7702, fields + signature.typedFields)
    }
}

extension EIP7702Transaction: TransactionFields {
    /// ``TransactionType/eip7702``.
    public var type: TransactionType { .eip7702 }
    /// ``chainId``.
    public var signedChainId: UInt256? { chainId }
    /// ``destination``, never `nil`.
    public var to: Address? { destination }
    /// ``maxFeePerGas``.
    public var gasFeeCap: UInt256 { maxFeePerGas }
    /// ``maxPriorityFeePerGas``.
    public var gasTipCap: UInt256 { maxPriorityFeePerGas }
    /// `.eip7702(self)`.
    public var transaction: Transaction { .eip7702(self) }
}

extension SignedTransaction {
    /// The authority of each authorization in the transaction's list, in order: the address, or why none
    /// recovers (a node skips that tuple). Empty for types without an authorization list.
    public func recoverAuthorities() -> [Result<Address, AuthorityRecoveryError>] {
        transaction.authorizationList.map { authorization in
            Result { () throws(AuthorityRecoveryError) in try authorization.recoverAuthority() }
        }
    }
}
