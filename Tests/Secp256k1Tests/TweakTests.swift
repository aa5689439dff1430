import EthereumPrimitives
import SecureMemory
import Testing

@testable import Secp256k1

@Suite("PrivateKey.addingTweak (BIP-32 child step)")
struct TweakTests {
    /// The secp256k1 group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE,
        0xBA, 0xAE, 0xDC, 0xE6, 0xAF, 0x48, 0xA0, 0x3B, 0xBF, 0xD2, 0x5E, 0x8C, 0xD0, 0x36, 0x41, 0x41,
    ]

    static func key(_ value: UInt8) throws -> PrivateKey {
        var bytes = [UInt8](repeating: 0, count: 31) + [value]
        return try PrivateKey(bytes: &bytes)
    }

    @Test("k + t mod n: 1 + 2 = 3; 2 + (n − 1) wraps to 1")
    func adds() throws {
        let three = try Self.key(3)
        let tweak = [UInt8](repeating: 0, count: 31) + [2]
        let one = try Self.key(1)
        let sum = try #require(tweak.withUnsafeBytes { one.addingTweak($0) })
        #expect(sum.address == three.address)
        var nMinusOne = Self.order
        nMinusOne[31] -= 1
        let two = try Self.key(2)
        let wrapped = try #require(nMinusOne.withUnsafeBytes { two.addingTweak($0) })
        #expect(wrapped.address == (try Self.key(1)).address)
    }

    @Test("a tweak ≥ n or a zero sum is refused (BIP-32 then moves to the next index)")
    func refuses() throws {
        let one = try Self.key(1)
        #expect(Self.order.withUnsafeBytes { one.addingTweak($0) } == nil)
        var nMinusOne = Self.order
        nMinusOne[31] -= 1
        #expect(nMinusOne.withUnsafeBytes { one.addingTweak($0) } == nil)
        let allOnes = [UInt8](repeating: 0xFF, count: 32)
        #expect(allOnes.withUnsafeBytes { one.addingTweak($0) } == nil)
    }

    @Test("SecureBytes.random gives fresh secure bytes")
    func random() {
        let a = SecureBytes.random(count: 32)
        let b = SecureBytes.random(count: 32)
        #expect(a.isInSecureMemory)
        #expect(a.withUnsafeBytes { Array($0) } != b.withUnsafeBytes { Array($0) })
    }
}
