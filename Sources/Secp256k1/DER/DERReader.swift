import EthereumPrimitives

/// A strict reader of the few DER elements SignerKit reads (SEQUENCE, INTEGER, OCTET STRING, OBJECT
/// IDENTIFIER, BIT STRING): definite minimal lengths only, every element read whole, positions in errors.
package struct DERReader {
    /// The input.
    private let bytes: [UInt8]
    /// Where the next element starts.
    package private(set) var offset: Int
    /// Where this reader's span ends (the end of the input, or of the constructed element it reads).
    private let end: Int

    /// A reader of all of `bytes`.
    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = 0
        end = bytes.count
    }

    private init(bytes: [UInt8], start: Int, end: Int) {
        self.bytes = bytes
        offset = start
        self.end = end
    }

    /// Whether the span has been read whole.
    package var isAtEnd: Bool { offset == end }

    /// Throws unless the span has been read whole.
    package func expectEnd() throws(DERError) {
        guard isAtEnd else { throw .trailingBytes(offset: offset) }
    }

    /// Reads the element with `tag`; returns where it starts and its content's range.
    package mutating func element(_ tag: UInt8) throws(DERError) -> (start: Int, content: Range<Int>) {
        let start = offset
        guard offset < end else { throw .truncated(offset: start) }
        guard bytes[offset] == tag else { throw .unexpectedTag(offset: start, expected: tag, found: bytes[offset]) }
        guard offset + 1 < end else { throw .truncated(offset: start) }
        let first = bytes[offset + 1]
        var length = 0
        var contentStart = offset + 2
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            // 0x80 is indefinite; more than 3 length bytes is beyond anything read here.
            guard count >= 1, count <= 3 else { throw .nonMinimalLength(offset: offset + 1) }
            guard contentStart + count <= end else { throw .truncated(offset: start) }
            for byte in bytes[contentStart..<contentStart + count] { length = length << 8 | Int(byte) }
            guard bytes[contentStart] != 0, length >= 0x80 else { throw .nonMinimalLength(offset: offset + 1) }
            contentStart += count
        }
        guard length <= end - contentStart else { throw .truncated(offset: start) }
        offset = contentStart + length
        return (start, contentStart..<contentStart + length)
    }

    /// The bytes of `range` (a content range ``element(_:)`` returned).
    package func contents(_ range: Range<Int>) -> ArraySlice<UInt8> { bytes[range] }

    /// Reads a SEQUENCE and returns a reader of its content.
    package mutating func sequence() throws(DERError) -> DERReader {
        let (_, content) = try element(0x30)
        return DERReader(bytes: bytes, start: content.lowerBound, end: content.upperBound)
    }

    /// Reads an OBJECT IDENTIFIER; returns its encoded content.
    package mutating func objectIdentifier() throws(DERError) -> ArraySlice<UInt8> {
        bytes[try element(0x06).content]
    }

    /// Reads a positive INTEGER of at most 32 significant bytes, minimally encoded, as 32 big-endian bytes.
    package mutating func unsignedInteger32() throws(DERError) -> Bytes32 {
        let (start, content) = try element(0x02)
        var value = bytes[content]
        guard let first = value.first, first & 0x80 == 0 else { throw .invalidInteger(offset: start) }
        if first == 0 {
            // A leading zero only where the next byte's high bit would otherwise read as negative.
            guard value.count >= 2, value[value.startIndex + 1] & 0x80 != 0 else {
                throw .invalidInteger(offset: start)
            }
            value = value.dropFirst()
        }
        guard value.count <= 32, let word = Bytes32(repeatElement(0, count: 32 - value.count) + value) else {
            throw .invalidInteger(offset: start)
        }
        return word
    }

    /// Reads a BIT STRING without unused bits; returns where it starts and its content after the unused-bits byte.
    package mutating func bitString() throws(DERError) -> (start: Int, bits: ArraySlice<UInt8>) {
        let (start, content) = try element(0x03)
        guard !content.isEmpty, bytes[content.lowerBound] == 0 else { throw .invalidPoint(offset: start) }
        return (start, bytes[(content.lowerBound + 1)..<content.upperBound])
    }
}

extension DERReader {
    /// Reads a non-negative INTEGER of any length, minimally encoded; returns its big-endian magnitude
    /// without the sign byte (an RSA modulus or exponent).
    package mutating func unsignedInteger() throws(DERError) -> [UInt8] {
        let (start, content) = try element(0x02)
        let value = contents(content)
        guard let first = value.first, first & 0x80 == 0 else { throw .invalidInteger(offset: start) }
        guard first == 0, value.count > 1 else { return Array(value) }
        guard value.count >= 2, value[value.startIndex + 1] & 0x80 != 0 else { throw .invalidInteger(offset: start) }
        return Array(value.dropFirst())
    }

    /// Reads an OCTET STRING and returns a reader of its content (PKCS#8 wraps the private key in one).
    package mutating func octetString() throws(DERError) -> DERReader {
        let (_, content) = try element(0x04)
        return DERReader(bytes: bytes, start: content.lowerBound, end: content.upperBound)
    }
}
