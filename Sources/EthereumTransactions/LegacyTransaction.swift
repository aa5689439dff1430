import EthereumPrimitives

/// A legacy (type `0x0`) transaction, with EIP-155 replay protection when it has a chain id.
///
/// RLP: `[nonce, gasPrice, gasLimit, to, value, data]`, signed over that list followed by
/// `chainId, 0, 0` under EIP-155, and broadcast as `[…, v, r, s]` with
/// v = 35 + 2·chainId + recid (EIP-155) or 27 + recid (pre-EIP-155).
public struct LegacyTransaction: Sendable, Hashable {
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
    /// The EIP-155 chain id; `nil` signs without replay protection (pre-EIP-155).
    public var chainId: UInt256?

    /// Builds a legacy transaction.
    public init(
        nonce: UInt256, gasPrice: UInt256, gasLimit: UInt256, to: Address?, value: UInt256 = 0,
        data: [UInt8] = [], chainId: UInt256?
    ) {
        self.nonce = nonce
        self.gasPrice = gasPrice
        self.gasLimit = gasLimit
        self.to = to
        self.value = value
        self.data = data
        self.chainId = chainId
    }

    /// The six fields shared by the signing payload and the signed encoding.
    var baseFields: [RLPItem] {
        [.uint256(nonce), .uint256(gasPrice), .uint256(gasLimit), to.rlp, .uint256(value), .bytes(data)]
    }

    /// The bytes whose Keccak-256 is signed: the RLP list, with `chainId, 0, 0` appended under EIP-155.
    public var signingPayload: [UInt8] {
        var fields = baseFields
        if let chainId { fields += [.uint256(chainId), .empty, .empty] }
        return RLP.encode(.list(fields))
    }

    /// The broadcast encoding `rlp([nonce, gasPrice, gasLimit, to, value, data, v, r, s])`.
    public func rawEncoding(signature: RecoverableSignature) -> [UInt8] {
        let v = LegacyV.encode(chainId: chainId, signature: signature)
        return RLP.encode(
            .list(baseFields + [.bytes(v), .uint(bigEndian: signature.r.bytes), .uint(bigEndian: signature.s.bytes)]))
    }
}

/// The legacy `v` value, computed on bytes so that every 256-bit chain id works: for chain ids
/// above 2^255 − 18, 35 + 2·chainId needs 257 bits (encoded as a 33-byte RLP integer).
enum LegacyV {
    /// Minimal big-endian bytes of v = 27 + recid, or 35 + 2·chainId + recid.
    static func encode(chainId: UInt256?, signature: RecoverableSignature) -> [UInt8] {
        if let v = signature.legacyV(chainId: chainId) { return v.minimalBigEndianBytes }
        // 2·chainId + 35 + recid ≥ 2^256 (so chainId is non-nil): compute on 33 bytes.
        var bytes: [UInt8] = [0] + (chainId ?? .zero).word.bytes
        var carry: UInt8 = 0
        for i in stride(from: 32, through: 0, by: -1) {
            let b = bytes[i]
            bytes[i] = b << 1 | carry
            carry = b >> 7
        }
        var add = UInt16(35 + signature.recoveryId)
        for i in stride(from: 32, through: 0, by: -1) where add != 0 {
            let sum = UInt16(bytes[i]) + add
            bytes[i] = UInt8(truncatingIfNeeded: sum)
            add = sum >> 8
        }
        return Array(bytes.drop(while: { $0 == 0 }))
    }

    /// Reads the recovery id and chain id from canonical big-endian `v` bytes (at most 33).
    /// Returns `nil` for a `v` that is not 27, 28 or at least 35 with a 256-bit chain id.
    static func decode(_ bytes: [UInt8]) -> (recoveryId: UInt8, chainId: UInt256?)? {
        if bytes.count <= 32 {
            guard let v = UInt256(bigEndian: bytes),
                let result = try? RecoverableSignature.legacyRecovery(v: v)
            else { return nil }
            return result
        }
        guard bytes.count == 33 else { return nil }
        // v − 35 on 33 bytes (v ≥ 2^256 here, so no underflow), then halve.
        var value = bytes
        var borrow = 35
        for i in stride(from: 32, through: 0, by: -1) where borrow != 0 {
            let difference = Int(value[i]) - borrow
            value[i] = UInt8(truncatingIfNeeded: difference)
            borrow = difference < 0 ? 1 : 0
        }
        let parity = value[32] & 1
        var carry: UInt8 = 0
        for i in 0..<33 {
            let b = value[i]
            value[i] = b >> 1 | carry << 7
            carry = b & 1
        }
        guard value[0] == 0, let chainId = UInt256(bigEndian: value[1...]) else { return nil }
        return (parity, chainId)
    }
}

extension LegacyTransaction: TransactionFields {
    /// ``TransactionType/legacy``.
    public var type: TransactionType { .legacy }
    /// ``chainId``: `nil` before EIP-155.
    public var signedChainId: UInt256? { chainId }
    /// Legacy transactions have no access list.
    public var accessList: [AccessListEntry] { [] }
    /// ``gasPrice``.
    public var gasFeeCap: UInt256 { gasPrice }
    /// ``gasPrice``.
    public var gasTipCap: UInt256 { gasPrice }
    /// No authorization list (type `0x4` only).
    public var authorizationList: [SignedAuthorization] { [] }
    /// `.legacy(self)`.
    public var transaction: Transaction { .legacy(self) }
}
