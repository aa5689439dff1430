/// Why a string is not an Ethereum address.
public enum AddressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `0x` followed by 40 hex digits.
    case malformed(String)
    /// Mixed case that is not the EIP-55 checksum.
    case badChecksum(String)

    /// A short lower-case explanation.
    public var description: String {
        switch self {
        case .malformed(let text): "invalid address \(EchoedText.abbreviated(text).debugDescription)"
        case .badChecksum(let text): "invalid EIP-55 checksum in address \(EchoedText.abbreviated(text))"
        }
    }
}

/// A 20-byte Ethereum account address.
///
/// Parsing is strict: `0x` + 40 hex digits, all lower case, all upper case, or mixed case
/// that matches the EIP-55 checksum. `description` gives the checksummed form.
public struct Address: Sendable, Hashable {
    @usableFromInline internal var high: UInt64
    @usableFromInline internal var middle: UInt64
    @usableFromInline internal var low: UInt32

    /// Builds from exactly 20 bytes; `nil` for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 20 else { return nil }
        let a = Array(bytes)
        self.init(uncheckedBytes: a[...])
    }

    @usableFromInline init(uncheckedBytes a: ArraySlice<UInt8>) {
        var h: UInt64 = 0
        var m: UInt64 = 0
        var l: UInt32 = 0
        let s = a.startIndex
        for i in 0..<8 { h = h << 8 | UInt64(a[s + i]) }
        for i in 8..<16 { m = m << 8 | UInt64(a[s + i]) }
        for i in 16..<20 { l = l << 8 | UInt32(a[s + i]) }
        high = h
        middle = m
        low = l
    }

    /// The address of an uncompressed public key given as 64 bytes X‖Y (no 0x04 prefix).
    public init?(publicKey: some Collection<UInt8>) {
        guard publicKey.count == 64 else { return nil }
        let digest = Keccak256.hash(Array(publicKey)).bytes
        self.init(uncheckedBytes: digest[12...])
    }

    /// Parses strictly (see the type's documentation).
    public init(_ text: some StringProtocol) throws(AddressError) {
        var owned = String(text)
        let result: Result<Address, AddressError> = owned.withUTF8 { buffer in
            do throws(AddressError) { return .success(try Address(utf8: buffer)) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    /// Parses strictly from UTF-8 bytes.
    public init(utf8: UnsafeBufferPointer<UInt8>) throws(AddressError) {
        guard utf8.count == 42, utf8[0] == 0x30, utf8[1] == 0x78 else {
            throw .malformed(String(decoding: utf8, as: UTF8.self))
        }
        // Letters seen: OR and AND of their bytes (bit 0x20 is set for lower case).
        var letters: UInt8 = 0
        var lowerBits: UInt8 = 0x20
        guard let h0 = Self.hexValue(utf8, from: 2, count: 16, letters: &letters, lowerBits: &lowerBits),
            let m0 = Self.hexValue(utf8, from: 18, count: 16, letters: &letters, lowerBits: &lowerBits),
            let l0 = Self.hexValue(utf8, from: 34, count: 8, letters: &letters, lowerBits: &lowerBits)
        else { throw .malformed(String(decoding: utf8, as: UTF8.self)) }
        high = h0
        middle = m0
        low = UInt32(l0)
        let hasLower = letters & 0x20 != 0
        let hasUpper = letters != 0 && lowerBits == 0
        if hasLower && hasUpper {
            let matches = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in
                writeChecksummedDigits(digits)
                return (0..<40).allSatisfy { digits[$0] == utf8[$0 + 2] }
            }
            guard matches else { throw .badChecksum(String(decoding: utf8, as: UTF8.self)) }
        }
    }

    /// The value of `count` (≤ 16) hex digits from `utf8[from]`, or nil when one is not a hex digit.
    @inline(__always) private static func hexValue(
        _ utf8: UnsafeBufferPointer<UInt8>, from: Int, count: Int, letters: inout UInt8, lowerBits: inout UInt8
    ) -> UInt64? {
        var value: UInt64 = 0
        for i in from..<(from + count) {
            let c = utf8[i]
            guard let n = Hex.nibble(c) else { return nil }
            if c >= 0x41 {
                letters |= c
                lowerBits &= c
            }
            value = value << 4 | UInt64(n)
        }
        return value
    }

    /// The 20 bytes.
    public var bytes: [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(20)
        for i in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: high >> UInt64(i))) }
        for i in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: middle >> UInt64(i))) }
        for i in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: low >> UInt32(i))) }
        return out
    }

    /// The address left-padded to a 32-byte ABI word.
    @inlinable public var word: Bytes32 {
        UInt256(limbs: (UInt64(low) | middle << 32, middle >> 32 | high << 32, high >> 32, 0)).word
    }

    /// Lower-case `0x` hex.
    public var lowercased: String { Hex.encode(bytes) }

    /// The EIP-55 mixed-case checksummed form.
    public var checksummed: String {
        String(unsafeUninitializedCapacity: 42) { text in
            text[0] = 0x30
            text[1] = 0x78
            writeChecksummedDigits(UnsafeMutableBufferPointer(rebasing: text[2..<42]))
            return 42
        }
    }

    /// Writes the 40 hex digits of EIP-55 into `digits` (40 bytes): lower case, then a letter upper-cased
    /// where the Keccak-256 of the lower-case digits has a nibble of 8 or more. No allocation.
    private func writeChecksummedDigits(_ digits: UnsafeMutableBufferPointer<UInt8>) {
        let alphabet = Hex.digits
        var position = 0
        func write(_ value: UInt64, nibbles: Int) {
            for shift in stride(from: 4 * (nibbles - 1), through: 0, by: -4) {
                digits[position] = alphabet[Int((value >> UInt64(shift)) & 0xf)]
                position += 1
            }
        }
        write(high, nibbles: 16)
        write(middle, nibbles: 16)
        write(UInt64(low), nibbles: 8)
        let hash = Keccak256.hash(UnsafeRawBufferPointer(digits))
        hash.withUnsafeBytes { hash in
            for i in 0..<40 where digits[i] >= 0x61 {
                let nibble = i % 2 == 0 ? hash[i / 2] >> 4 : hash[i / 2] & 0x0f
                if nibble >= 8 { digits[i] -= 0x20 }
            }
        }
    }
}

extension Address: CustomStringConvertible {
    /// The EIP-55 checksummed form.
    public var description: String { checksummed }
}

extension Address: Codable {
    /// Decodes from a strict address string.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self = try Address(text)
    }

    /// Encodes as the checksummed string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(checksummed)
    }
}
