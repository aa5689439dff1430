import EthereumPrimitives
import Foundation
import SignerKitTestSupport
import Testing

@testable import Secp256k1

@Suite struct KeyTests {
    static let keyOneHex = "0x0000000000000000000000000000000000000000000000000000000000000001"
    static let sampleHex = TestKeys.alphaHex
    static let orderHex = "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"
    static let orderMinusOneHex = "0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140"

    @Test func knownAddresses() throws {
        #expect(try PrivateKey(hex: Self.keyOneHex).address.checksummed == "0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf")
        #expect(try PrivateKey(hex: Self.sampleHex).address.checksummed == "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
    }

    @Test func generatorPointPublicKey() throws {
        let key = try PrivateKey(hex: Self.keyOneHex)
        #expect(
            Hex.encode(key.publicKey.compressed)
                == "0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
        #expect(
            Hex.encode(key.publicKey.rawRepresentation)
                == "0x79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"
                + "483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")
        #expect(key.publicKey.uncompressed.count == 65 && key.publicKey.uncompressed[0] == 0x04)
    }

    @Test func hexParsingTrimsWhitespaceAndAcceptsUpperCase() throws {
        let expected = try PrivateKey(hex: Self.sampleHex).address
        #expect(try PrivateKey(hex: Self.sampleHex + "\n").address == expected)
        #expect(try PrivateKey(hex: "  \t" + Self.sampleHex + "\r\n").address == expected)
        #expect(try PrivateKey(hex: "0X" + Self.sampleHex.dropFirst(2).uppercased()).address == expected)
        #expect(
            try PrivateKey(hex: Self.orderMinusOneHex).address.checksummed
                == "0x80C0dbf239224071c59dD8970ab9d542E3414aB2")
    }

    @Test(arguments: [
        "",
        "0x",
        "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318",  // no prefix
        "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f36231",  // 63 digits
        "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f36231800",  // 33 bytes
        "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f36231g",  // bad digit
        "0x4c0883a69102937d6231471b5dbb6204 fe5129617082792ae468d01a3f362318",  // inner space
        "0x01",
    ])
    func malformedHexRejected(_ text: String) {
        #expect(throws: KeyError.invalidHex) { try PrivateKey(hex: text) }
    }

    @Test func outOfRangeRejected() {
        #expect(throws: KeyError.outOfRange) { try PrivateKey(hex: "0x" + String(repeating: "0", count: 64)) }
        #expect(throws: KeyError.outOfRange) { try PrivateKey(hex: Self.orderHex) }
        #expect(throws: KeyError.outOfRange) { try PrivateKey(hex: "0x" + String(repeating: "f", count: 64)) }
    }

    @Test func rawBytesInitWipesCallersArray() throws {
        var bytes = try Hex.decode(Self.sampleHex)
        let key = try PrivateKey(bytes: &bytes)
        #expect(key.address.checksummed == "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        #expect(bytes == [UInt8](repeating: 0, count: 32))

        var short = [UInt8](repeating: 7, count: 31)
        #expect(throws: KeyError.wrongLength(31)) { try PrivateKey(bytes: &short) }
        #expect(short.allSatisfy { $0 == 0 })

        var zero = [UInt8](repeating: 0, count: 32)
        #expect(throws: KeyError.outOfRange) { try PrivateKey(bytes: &zero) }

        var order = try Hex.decode(Self.orderHex)
        #expect(throws: KeyError.outOfRange) { try PrivateKey(bytes: &order) }
        #expect(order.allSatisfy { $0 == 0 })
    }

    @Test func initFromSecureBytes() throws {
        var bytes = try Hex.decode(Self.sampleHex)
        let secret = SecureBytes(wiping: &bytes)
        let key = try PrivateKey(secret: secret)
        secret.wipe()  // the key keeps its own copy
        #expect(key.address.checksummed == "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        #expect(throws: KeyError.wrongLength(16)) { try PrivateKey(secret: SecureBytes(zeroedCount: 16)) }
        #expect(throws: KeyError.outOfRange) { try PrivateKey(secret: SecureBytes(zeroedCount: 32)) }
    }

    @Test func secretBytesRoundTrip() throws {
        let key = try PrivateKey(hex: Self.sampleHex)
        let hex = key.withUnsafeSecretBytes { Hex.encode($0) }
        #expect(hex == Self.sampleHex)
    }

    @Test func generatedKeysAreDistinctAndSign() throws {
        let a = PrivateKey.generate()
        let b = PrivateKey.generate()
        #expect(a.address != b.address)
        let digest = Keccak256.hash(utf8: "generated")
        let signature = a.sign(prehash: digest)
        #expect(signature.isLowS)
        #expect(try ECDSA.recoverAddress(prehash: digest, signature: signature) == a.address)
    }

    @Test func descriptionsNeverContainTheKey() throws {
        let key = try PrivateKey(hex: Self.sampleHex)
        let secretHex = String(Self.sampleHex.dropFirst(2))
        var dumped = ""
        dump(key, to: &dumped)
        var dumpedSecret = ""
        dump(SecureBytes(zeroedCount: 4), to: &dumpedSecret)
        let outputs = [
            String(describing: key), String(reflecting: key), dumped, "\(key)",
            String(describing: Mirror(reflecting: key).children.map { "\($0.label ?? ""): \($0.value)" }),
        ]
        for output in outputs {
            #expect(!output.lowercased().contains(secretHex))
            #expect(!output.lowercased().contains(secretHex.prefix(16)))
        }
        #expect(String(describing: key) == "PrivateKey(address: 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23)")
        #expect(dumped.contains("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"))
        #expect(dumpedSecret.contains("redacted"))
    }

    @Test func errorMessagesNeverContainInput() {
        let bad = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f36231g"
        do {
            _ = try PrivateKey(hex: bad)
            Issue.record("expected failure")
        } catch {
            #expect(error.description == "invalid private key: must be 32 bytes of 0x-hex")
            #expect(!String(reflecting: error).contains("4c0883"))
        }
        #expect(!KeyError.outOfRange.description.isEmpty)
        #expect(KeyError.wrongLength(31).description == "invalid private key: must be 32 bytes, got 31")
    }

    @Test func publicKeyEncodings() throws {
        let key = try PrivateKey(hex: Self.sampleHex).publicKey
        #expect(try PublicKey(bytes: key.compressed) == key)
        #expect(try PublicKey(bytes: key.uncompressed) == key)
        #expect(try PublicKey(bytes: key.rawRepresentation) == key)
        #expect(try PublicKey(hex: Hex.encode(key.compressed)).address == key.address)
        #expect(Address(publicKey: key.rawRepresentation) == key.address)

        #expect(throws: KeyError.invalidPublicKey) { try PublicKey(bytes: key.compressed.dropLast()) }
        var hybrid = key.uncompressed
        hybrid[0] = key.compressed[0] == 0x02 ? 0x06 : 0x07
        #expect(throws: KeyError.invalidPublicKey) { try PublicKey(bytes: hybrid) }
        var offCurve = key.rawRepresentation
        offCurve[63] ^= 1
        #expect(throws: KeyError.invalidPublicKey) { try PublicKey(bytes: offCurve) }
        var badPrefix = key.compressed
        badPrefix[0] = 0x04
        #expect(throws: KeyError.invalidPublicKey) { try PublicKey(bytes: badPrefix) }
        #expect(throws: KeyError.invalidPublicKey) { try PublicKey(hex: "0xzz") }
    }
}
