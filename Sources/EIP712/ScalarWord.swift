import EthereumPrimitives

/// The ABI word of an atomic EIP-712 member (every type but structs and arrays) from a JSON scalar: one
/// implementation for JSON messages (`ValueEncoder`) and for Swift values (`EncodableHasher`), which hands
/// over the text its `JSONValueEncoder` form would have. Strict: JSON kinds as the type requires, integers
/// range-checked, addresses checksum-checked.
enum ScalarWord {
    /// A JSON value as EIP-712 reads a scalar: its kind, its text (strings and numbers; empty otherwise) and,
    /// for a boolean, its value.
    struct Input {
        let kind: JSONKind
        let text: UnsafeBufferPointer<UInt8>
        let flag: Bool
    }

    /// The word of `input` as `encoding` (an atomic one).
    static func word(_ encoding: Encoding, _ input: Input) throws(EIP712Error) -> Bytes32 {
        switch encoding {
        case .uint(let bits):
            let text = try integerText(input)
            do throws(IntegerTextError) {
                return try SignedMagnitude(utf8: text).uintWord(bits: bits, text: String(decoding: text, as: UTF8.self))
            } catch { throw EIP712Error(.integer(relabel(error, type: "uint\(bits)"))) }
        case .int(let bits):
            let text = try integerText(input)
            do throws(IntegerTextError) {
                return try SignedMagnitude(utf8: text).intWord(bits: bits, text: String(decoding: text, as: UTF8.self))
            } catch { throw EIP712Error(.integer(relabel(error, type: "int\(bits)"))) }
        case .bool:
            guard input.kind == .bool else { throw kindError("boolean", input) }
            return ABIWord.bool(input.flag)
        case .address:
            let text = try string(input, "address string")
            do throws(AddressError) { return try Address(utf8: text).word } catch { throw EIP712Error(.address(error)) }
        case .fixedBytes(let n):
            let bytes = try hexBytes(input)
            guard bytes.count == n else { throw EIP712Error(.bytesLength(expected: n, actual: bytes.count)) }
            return ABIWord.leftAligned(bytes)
        case .bytes:
            return Keccak256.hash(try hexBytes(input))
        case .string:
            return Keccak256.hash(UnsafeRawBufferPointer(try string(input, "string")))
        case .structure:
            throw kindError("object", input)
        case .array:
            throw kindError("array", input)
        }
    }

    /// The error for a value of the wrong JSON kind.
    static func kindError(_ expected: String, _ input: Input) -> EIP712Error {
        EIP712Error(.wrongKind(expected: expected, actual: JSONValue.kindName(of: input.kind)))
    }

    private static func relabel(_ error: IntegerTextError, type: String) -> IntegerTextError {
        if case .outOfRange(let text, _) = error { return .outOfRange(text, type: type) }
        return error
    }

    @inline(__always) private static func integerText(_ input: Input) throws(EIP712Error) -> UnsafeBufferPointer<UInt8>
    {
        guard input.kind == .number || input.kind == .string else { throw kindError("integer", input) }
        return input.text
    }

    @inline(__always) private static func string(_ input: Input, _ expected: String) throws(EIP712Error)
        -> UnsafeBufferPointer<UInt8>
    {
        guard input.kind == .string else { throw kindError(expected, input) }
        return input.text
    }

    private static func hexBytes(_ input: Input) throws(EIP712Error) -> [UInt8] {
        let text = try string(input, "0x-hex string")
        do throws(HexError) { return try Hex.decode(utf8: text) } catch { throw EIP712Error(.hex(error)) }
    }
}
