/// Why bytes are not an acceptable recoverable signature.
public enum SignatureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not 65 bytes of r‖s‖v.
    case wrongLength(Int)
    /// A `v` that is none of 0, 1, 27, 28 (29/30 are never accepted).
    case invalidV(String)
    /// Recovery id outside 0...1.
    case invalidRecoveryId(UInt8)
    /// Not hex.
    case hex(HexError)

    /// A short lower-case explanation.
    public var description: String {
        switch self {
        case .wrongLength(let n): "signature must be 65 bytes, got \(n)"
        case .invalidV(let v): "invalid signature v \(v)"
        case .invalidRecoveryId(let id): "invalid recovery id \(id)"
        case .hex(let error): "signature: \(error)"
        }
    }
}

/// An ECDSA secp256k1 signature with its recovery id: the one place every Ethereum `v` form lives.
///
/// - messages and typed data: `v` = 27 + recid (``vForMessages``)
/// - typed transactions (EIP-2930, EIP-1559): `yParity` = recid
/// - legacy EIP-155 transactions: `v` = 35 + 2·chainId + recid; pre-EIP-155: 27 + recid
///
/// 29 and 30 are never produced. The recovery id refers to the signature *after* low-s
/// normalisation, which every producer in SignerKit applies.
public struct RecoverableSignature: Sendable, Hashable {
    /// The r scalar, big-endian.
    public let r: Bytes32
    /// The s scalar, big-endian.
    public let s: Bytes32
    /// The recovery id, 0 or 1 (parity of R's y coordinate).
    public let recoveryId: UInt8

    /// Builds from scalars and a recovery id of 0 or 1.
    public init(r: Bytes32, s: Bytes32, recoveryId: UInt8) throws(SignatureError) {
        guard recoveryId <= 1 else { throw .invalidRecoveryId(recoveryId) }
        self.r = r
        self.s = s
        self.recoveryId = recoveryId
    }

    /// Parses 65 bytes r‖s‖v with v ∈ {0, 1, 27, 28}.
    public init(rsv bytes: [UInt8]) throws(SignatureError) {
        guard bytes.count == 65 else { throw .wrongLength(bytes.count) }
        let v = bytes[64]
        let recid: UInt8
        switch v {
        case 0, 1: recid = v
        case 27, 28: recid = v - 27
        default: throw .invalidV(String(v))
        }
        guard let r = Bytes32(bytes[0..<32]), let s = Bytes32(bytes[32..<64]) else { throw .wrongLength(bytes.count) }
        try self.init(r: r, s: s, recoveryId: recid)
    }

    /// Parses `0x`-hex r‖s‖v.
    public init(hex: some StringProtocol) throws(SignatureError) {
        let bytes: [UInt8]
        do { bytes = try Hex.decode(hex) } catch { throw .hex(error) }
        try self.init(rsv: bytes)
    }

    /// `v` for personal_sign and typed data: 27 or 28.
    public var vForMessages: UInt8 { 27 + recoveryId }

    /// `yParity` for typed transactions: 0 or 1.
    public var yParity: UInt8 { recoveryId }

    /// `v` for a legacy transaction: 35 + 2·chainId + recid with EIP-155, 27 + recid without.
    /// Returns `nil` if the value would overflow 256 bits.
    public func legacyV(chainId: UInt256?) -> UInt256? {
        guard let chainId else { return UInt256(UInt64(27 + recoveryId)) }
        return chainId.multipliedAdding(2, 35 + UInt64(recoveryId))
    }

    /// Reads the recovery id and chain id from a legacy transaction's `v`.
    public static func legacyRecovery(v: UInt256) throws(SignatureError) -> (recoveryId: UInt8, chainId: UInt256?) {
        if let small = v.uint64, small == 27 || small == 28 { return (UInt8(small - 27), nil) }
        guard let vMinus35 = v.subtractingSmall(35) else { throw .invalidV(v.decimalString) }
        let (chainId, parity) = vMinus35.quotientAndRemainder(dividingBy: 2)
        return (UInt8(parity), chainId)
    }

    /// 65 bytes r‖s‖v with v = 27/28, the form `personal_sign` and `eth_signTypedData_v4` return.
    public var rsv: [UInt8] {
        var out = r.bytes
        out.reserveCapacity(65)
        out.append(contentsOf: s.bytes)
        out.append(vForMessages)
        return out
    }

    /// `0x`-hex of ``rsv``.
    public var hex: String { Hex.encode(rsv) }

    /// True when s ≤ n/2 (the canonical form Ethereum requires, EIP-2).
    public var isLowS: Bool { UInt256(word: s) <= Secp256k1Order.halfOrder }
}

/// Constants of the secp256k1 group order used by signature checks.
public enum Secp256k1Order {
    /// n, the group order.
    public static let order = UInt256(
        limbs: (0xBFD2_5E8C_D036_4141, 0xBAAE_DCE6_AF48_A03B, 0xFFFF_FFFF_FFFF_FFFE, 0xFFFF_FFFF_FFFF_FFFF))
    /// ⌊n/2⌋: the largest low s.
    public static let halfOrder = UInt256(
        limbs: (0xDFE9_2F46_681B_20A0, 0x5D57_6E73_57A4_501D, 0xFFFF_FFFF_FFFF_FFFF, 0x7FFF_FFFF_FFFF_FFFF))
}

extension RecoverableSignature: CustomStringConvertible {
    /// `0x`-hex r‖s‖v with v = 27/28.
    public var description: String { hex }
}

extension UInt256 {
    /// `self - value`, or `nil` when that would be negative.
    public func subtractingSmall(_ value: UInt64) -> UInt256? {
        if self < UInt256(value) { return nil }
        var result = self
        var borrow = value
        var i = 0
        while borrow != 0 && i < 4 {
            let (d, o) = result[limb: i].subtractingReportingOverflow(borrow)
            result[limb: i] = d
            borrow = o ? 1 : 0
            i += 1
        }
        return result
    }
}
