import CSecp256k1
import EthereumPrimitives

/// A secp256k1 public key: a validated point on the curve.
///
/// Stored as the two 32-byte coordinates; its Ethereum ``address`` is computed once at creation.
public struct PublicKey: Sendable, Hashable {
    private let x: Bytes32
    private let y: Bytes32

    /// The Ethereum address: the last 20 bytes of keccak256(X‖Y).
    public let address: Address

    /// Parses and validates a public key given as 33 bytes (`0x02`/`0x03` + X, compressed),
    /// 64 bytes (X‖Y, Ethereum's raw form) or 65 bytes (`0x04` + X‖Y, uncompressed).
    ///
    /// Hybrid encodings (`0x06`/`0x07`) and points not on the curve are rejected.
    public init(bytes: some Collection<UInt8>) throws(KeyError) {
        var encoded = [UInt8]()
        encoded.reserveCapacity(65)
        switch bytes.count {
        case 64:
            encoded.append(0x04)
            encoded.append(contentsOf: bytes)
        case 65:
            encoded.append(contentsOf: bytes)
            guard encoded[0] == 0x04 else { throw .invalidPublicKey }
        case 33:
            encoded.append(contentsOf: bytes)
            guard encoded[0] == 0x02 || encoded[0] == 0x03 else { throw .invalidPublicKey }
        default:
            throw .invalidPublicKey
        }
        var point = secp256k1_pubkey()
        let parsed = encoded.withUnsafeBufferPointer { input in
            // A non-empty buffer's base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            secp256k1_ec_pubkey_parse(SharedContext.shared.raw, &point, input.baseAddress!, input.count)
        }
        guard parsed == 1 else { throw .invalidPublicKey }
        self.init(point: point)
    }

    /// Parses `0x`-hex of any encoding accepted by ``init(bytes:)``.
    public init(hex: some StringProtocol) throws(KeyError) {
        guard let bytes = try? Hex.decode(hex) else { throw .invalidPublicKey }
        try self.init(bytes: bytes)
    }

    /// Builds from a point libsecp256k1 has already validated.
    init(point: secp256k1_pubkey) {
        var point = point
        var x = Bytes32()
        var y = Bytes32()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65) { buffer in
            var length = 65
            // A 65-byte allocation: its base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            let output = buffer.baseAddress!
            let ok = secp256k1_ec_pubkey_serialize(
                SharedContext.shared.raw, output, &length, &point, UInt32(SECP256K1_EC_UNCOMPRESSED))
            precondition(ok == 1 && length == 65, "secp256k1_ec_pubkey_serialize failed")
            let raw = UnsafeRawBufferPointer(buffer)
            x.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[1..<33])) }
            y.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[33..<65])) }
        }
        self.x = x
        self.y = y
        var hasher = Keccak256.Hasher()
        hasher.update(x)
        hasher.update(y)
        guard let address = Address(bytes: hasher.finalize().bytes[12...]) else {
            preconditionFailure("a keccak256 suffix is 20 bytes")
        }
        self.address = address
    }

    /// The 64 bytes X‖Y (no prefix): the form Ethereum hashes into an address.
    public var rawRepresentation: [UInt8] { x.bytes + y.bytes }

    /// The 65-byte SEC 1 uncompressed encoding, `0x04` + X‖Y.
    public var uncompressed: [UInt8] { [0x04] + rawRepresentation }

    /// The 33-byte SEC 1 compressed encoding: `0x02` (even Y) or `0x03` (odd Y), then X.
    public var compressed: [UInt8] { [y[31] & 1 == 0 ? 0x02 : 0x03] + x.bytes }

    /// The affine coordinates X and Y as 32-byte big-endian words.
    var coordinates: (x: Bytes32, y: Bytes32) { (x, y) }

    /// Calls `body` with the point in libsecp256k1's internal form.
    func withPoint<R>(_ body: (UnsafePointer<secp256k1_pubkey>) -> R) -> R {
        var point = secp256k1_pubkey()
        let parsed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65) { buffer in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw[0] = 0x04
            x.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[1..<33]).copyMemory(from: $0) }
            y.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: raw[33..<65]).copyMemory(from: $0) }
            // A non-empty buffer's base address is never nil.
            // swift-format-ignore: NeverForceUnwrap
            return secp256k1_ec_pubkey_parse(SharedContext.shared.raw, &point, buffer.baseAddress!, 65)
        }
        precondition(parsed == 1, "a validated public key failed to parse")
        return body(&point)
    }

    /// Compares the coordinates.
    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y
    }

    /// Hashes the coordinates.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(x)
        hasher.combine(y)
    }
}

extension PublicKey: CustomStringConvertible {
    /// `PublicKey(0x…)` with the compressed encoding in hex.
    public var description: String { "PublicKey(\(Hex.encode(compressed)))" }
}
