import EthereumPrimitives
import SignerKitTestSupport
import Testing

/// The text forms `JSONValueEncoder` writes on its hot path: EIP-55 addresses and decimal `UInt256`.
@Suite struct AddressAndDecimalTextTests {
    /// EIP-55's own examples.
    static let eip55 = [
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB", "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
    ]

    @Test(arguments: eip55)
    func checksumIsEIP55s(text: String) throws {
        #expect(try Address(text.lowercased()).checksummed == text)
        #expect(try Address(text).checksummed == text)
        // One letter with its case flipped breaks the checksum.
        var bytes = Array(text.utf8)
        let letter = try #require(bytes.indices.dropFirst(2).first { bytes[$0] >= 0x41 })
        bytes[letter] ^= 0x20
        let flipped = String(decoding: bytes, as: UTF8.self)
        #expect(throws: AddressError.badChecksum(flipped)) { try Address(flipped) }
    }

    /// Digit by digit, the slow way.
    static func referenceDecimal(_ value: UInt256) -> String {
        if value.isZero { return "0" }
        var digits: [Character] = []
        var rest = value
        while !rest.isZero {
            let (quotient, remainder) = rest.quotientAndRemainder(dividingBy: 10)
            digits.append(Character(String(remainder)))
            rest = quotient
        }
        return String(digits.reversed())
    }

    @Test func decimalTextOfEdgeAndRandomValues() {
        var values: [UInt256] = [0, 1, 9, 10, UInt256(UInt64.max), UInt256.max, UInt256.powerOfTwo(64)]
        var power = UInt256(1)
        for _ in 0..<77 {
            power = power * 10
            values += [power, power - 1]
        }
        var random = SplitMix64(seed: 712)
        for _ in 0..<500 {
            values.append(UInt256(limbs: (random.next(), random.next(), random.next(), random.next())))
            values.append(UInt256(limbs: (random.next(), random.next() >> 7, 0, 0)))
        }
        for value in values { #expect(value.decimalString == Self.referenceDecimal(value)) }
    }
}
