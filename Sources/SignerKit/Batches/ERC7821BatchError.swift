import EthereumPrimitives

/// Why bytes are not the calldata of an ERC-7821 single-batch `execute`; positions count bytes from the
/// start of the calldata (the selector is bytes 0–3).
public enum ERC7821BatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first four bytes (`found`) are not `execute(bytes32,bytes)`'s selector.
    case wrongSelector(found: [UInt8])
    /// The mode is not the single-batch mode without `opData`.
    case unsupportedMode(Bytes32)
    /// `field` at `position` needs `needed` bytes, only `available` are there.
    case truncated(field: String, position: Int, needed: Int, available: Int)
    /// The offset or length `field` at `position` is 2³² or more.
    case tooLarge(field: String, position: Int)
    /// The address word `field` at `position` has nonzero bytes before its 20 address bytes.
    case addressNotPadded(field: String, position: Int)
    /// The calls read, but the bytes differ from their canonical encoding from `position` on (offsets out
    /// of order, nonzero padding, trailing bytes).
    case nonCanonical(position: Int)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .wrongSelector(let found):
            "ERC-7821 batch: selector \(Hex.encode(found)) is not execute(bytes32,bytes) (0xe9ae5c53)"
        case .unsupportedMode(let mode): "ERC-7821 batch: mode \(mode.hex) is not the single-batch mode"
        case .truncated(let field, let position, let needed, let available):
            "ERC-7821 batch: \(field) (byte \(position)) needs \(needed) bytes, \(available) are there"
        case .tooLarge(let field, let position): "ERC-7821 batch: \(field) (byte \(position)) is 2^32 or more"
        case .addressNotPadded(let field, let position):
            "ERC-7821 batch: \(field) (byte \(position)) is not an address word (nonzero high bytes)"
        case .nonCanonical(let position):
            "ERC-7821 batch: not the canonical encoding of its calls (first difference at byte \(position))"
        }
    }
}
