/// Why bytes are not a canonical RLP encoding, or why a decoded item is not the expected value.
///
/// Cases raised by ``RLP/decode(_:maxDepth:)`` carry the byte offset in the input where the
/// problem was found (the offset of the offending header unless stated otherwise). Cases raised by
/// the value accessors on ``RLPItem`` (``expectedBytes``, ``expectedList``, ``nonCanonicalInteger``,
/// ``integerOverflow(maxBytes:)``) have no offset: a decoded item does not remember where it came from.
public enum RLPError: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The input ends before the item whose header starts at `offset` is complete.
    case truncated(offset: Int)
    /// A complete item was decoded but bytes remain, starting at `offset`.
    case trailingBytes(offset: Int)
    /// The item whose header is at `offset` claims more bytes than remain in its enclosing list.
    case elementExceedsList(offset: Int)
    /// The header at `offset` uses the long form for a payload shorter than 56 bytes.
    case nonCanonicalSize(offset: Int)
    /// The big-endian length that starts at `offset` has a leading zero byte.
    case leadingZeroInLength(offset: Int)
    /// The string at `offset` is one byte below `0x80` encoded with a `0x81` prefix
    /// instead of as the byte itself.
    case nonCanonicalSingleByte(offset: Int)
    /// The big-endian length that starts at `offset` does not fit in `Int`.
    case lengthOverflow(offset: Int)
    /// The list at `offset` is nested deeper than the decoder's depth limit.
    case nestingTooDeep(offset: Int)
    /// A byte string was expected but the item is a list.
    case expectedBytes
    /// A list was expected but the item is a byte string.
    case expectedList
    /// An integer byte string has a leading zero byte (canonical integers are minimal big-endian,
    /// zero is the empty string).
    case nonCanonicalInteger
    /// An integer does not fit in `maxBytes` bytes.
    case integerOverflow(maxBytes: Int)

    /// A one-line explanation prefixed with `rlp:`, e.g. `rlp: truncated input at offset 12`.
    public var description: String {
        switch self {
        case .truncated(let offset):
            "rlp: truncated input at offset \(offset)"
        case .trailingBytes(let offset):
            "rlp: trailing bytes after the item at offset \(offset)"
        case .elementExceedsList(let offset):
            "rlp: element at offset \(offset) is larger than its enclosing list"
        case .nonCanonicalSize(let offset):
            "rlp: non-canonical size at offset \(offset) (long form used for fewer than 56 bytes)"
        case .leadingZeroInLength(let offset):
            "rlp: non-canonical size at offset \(offset) (leading zero byte in length)"
        case .nonCanonicalSingleByte(let offset):
            "rlp: non-canonical single byte at offset \(offset) (byte below 0x80 must encode as itself)"
        case .lengthOverflow(let offset):
            "rlp: length at offset \(offset) overflows"
        case .nestingTooDeep(let offset):
            "rlp: list at offset \(offset) is nested too deeply"
        case .expectedBytes:
            "rlp: expected a byte string, found a list"
        case .expectedList:
            "rlp: expected a list, found a byte string"
        case .nonCanonicalInteger:
            "rlp: non-canonical integer (leading zero byte)"
        case .integerOverflow(let maxBytes):
            "rlp: integer larger than \(maxBytes) bytes"
        }
    }
}
