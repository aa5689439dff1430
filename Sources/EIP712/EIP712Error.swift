import EthereumPrimitives

/// One step of the path from the typed-data document root to a bad value.
public enum PathSegment: Sendable, Equatable {
    /// An object member.
    case key(String)
    /// An array element.
    case index(Int)
}

/// Why typed data was refused. `description` reads `message.assets[0].addr: invalid address …`.
public struct EIP712Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// The text is not JSON (or a JSON string holding JSON).
        case invalidJSON(JSONParseError)
        /// A required member is absent.
        case missing
        /// A member that the declared type does not have.
        case unexpectedField
        /// The JSON kind does not fit, e.g. a number where an object is required.
        case wrongKind(expected: String, actual: String)
        /// A type name that is neither atomic nor defined in `types`.
        case undefinedType(String)
        /// A malformed type name or declaration.
        case invalidType(String)
        /// The same field name twice in one struct.
        case duplicateField(String)
        /// An integer that is malformed or out of range.
        case integer(IntegerTextError)
        /// An address that is malformed or has a bad EIP-55 checksum.
        case address(AddressError)
        /// Malformed hex.
        case hex(HexError)
        /// `bytesN` of the wrong length.
        case bytesLength(expected: Int, actual: Int)
        /// A fixed-size array with the wrong number of elements.
        case arrayLength(expected: Int, actual: Int)
        /// A domain field outside name, version, chainId, verifyingContract, salt, or with a non-standard type.
        case nonStandardDomainField(String)
        /// The `encodeType` strings of the structs to hash total more than `limit` bytes (see
        /// `EIP712Schema.maximumEncodeTypeBytes`).
        case typesTooLarge(limit: Int)
        /// The `types` object's JSON text is longer than `limit` bytes (see
        /// `EIP712Schema.maximumTypesLength`).
        case typesObjectTooLarge(limit: Int)
        /// A Swift value wider than its EIP-712 type allows (a `uint24` member holding 2²⁴ in its `UInt32`);
        /// the type.
        case valueOutOfRange(type: String)
    }

    /// Where, from the document root (`message`, `domain`, `types`, `primaryType`).
    public var path: [PathSegment]
    /// What.
    public var reason: Reason

    /// Builds an error at `path`.
    public init(_ reason: Reason, at path: [PathSegment] = []) {
        self.reason = reason
        self.path = path
    }

    /// The same error one level further from the root.
    @inlinable public func under(_ segment: PathSegment) -> EIP712Error {
        var copy = self
        copy.path.insert(segment, at: 0)
        return copy
    }

    /// The path in dotted form, e.g. `message.assets[0].addr`.
    public var pathText: String {
        var text = ""
        for segment in path {
            switch segment {
            case .key(let key):
                let shown = EchoedText.abbreviated(key)
                text += text.isEmpty ? shown : ".\(shown)"
            case .index(let i): text += "[\(i)]"
            }
        }
        return text
    }

    /// Explanation of ``reason`` alone.
    public var reasonText: String {
        switch reason {
        case .invalidJSON(let e): "\(e)"
        case .missing: "missing"
        case .unexpectedField: "field not declared in the type"
        case .wrongKind(let expected, let actual): "expected \(expected), got \(actual)"
        case .undefinedType(let t): "undefined type \(EchoedText.abbreviated(t))"
        case .invalidType(let t): "invalid type \(EchoedText.abbreviated(t))"
        case .duplicateField(let f): "duplicate field \(EchoedText.abbreviated(f))"
        case .integer(let e): "\(e)"
        case .address(let e): "\(e)"
        case .hex(let e): "invalid hex: \(e)"
        case .bytesLength(let expected, let actual): "expected \(expected) bytes, got \(actual)"
        case .valueOutOfRange(let type): "the value does not fit in \(type)"
        case .arrayLength(let expected, let actual): "expected \(expected) elements, got \(actual)"
        case .nonStandardDomainField(let f): "non-standard EIP712Domain field \(EchoedText.abbreviated(f))"
        case .typesObjectTooLarge(let limit): "the types object is longer than \(limit) bytes"
        case .typesTooLarge(let limit):
            "the structs' encodeType strings total more than \(limit) bytes, more than SignerKit hashes for one schema"
        }
    }

    /// `path: reason`, or the reason alone for the document itself.
    public var description: String {
        path.isEmpty ? reasonText : "\(pathText): \(reasonText)"
    }
}
