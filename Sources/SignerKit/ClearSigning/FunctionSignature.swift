import EthereumPrimitives
import Foundation

/// A function signature of an ERC-7730 contract format key, `transfer(address to,uint256 amount)`:
/// the canonical form gives the selector, the names give the paths. Only static ABI types are decoded
/// (address, bool, uintN, intN, bytesN); others are refused when the descriptor is loaded.
struct FunctionSignature: Sendable {
    struct Parameter: Sendable {
        let name: String
        let type: String
    }

    let name: String
    let parameters: [Parameter]
    let selector: [UInt8]

    init(_ text: String) throws(ClearSigningError) {
        func fail(_ problem: String) -> ClearSigningError { ClearSigningError(path: "", problem: problem) }
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else {
            throw fail("expected a function signature like transfer(address to,uint256 amount)")
        }
        name = String(text[..<open]).trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            throw fail("invalid function name")
        }
        let inner = text[text.index(after: open)..<text.index(before: text.endIndex)]
        var parameters: [Parameter] = []
        for (i, piece) in inner.split(separator: ",", omittingEmptySubsequences: false).enumerated()
        where !(inner.trimmingCharacters(in: .whitespaces).isEmpty) {
            let parts = piece.split(separator: " ").map(String.init)
            guard (1...2).contains(parts.count) else { throw fail("parameter \(i): expected `type name`") }
            let type = parts[0]
            guard Self.isStatic(type) else {
                throw fail(
                    "parameter \(i): type \(EchoedText.abbreviated(type)) is not a static ABI type SignerKit decodes")
            }
            parameters.append(Parameter(name: parts.count == 2 ? parts[1] : "_\(i)", type: type))
        }
        self.parameters = parameters
        let canonical = name + "(" + parameters.map(\.type).joined(separator: ",") + ")"
        selector = Array(Keccak256.hash(utf8: canonical).bytes.prefix(4))
    }

    static func isStatic(_ type: String) -> Bool {
        if type == "address" || type == "bool" { return true }
        for prefix in ["uint", "int"] where type.hasPrefix(prefix) {
            let bits = type.dropFirst(prefix.count)
            if bits.isEmpty { return true }
            guard let n = Int(bits) else { return false }
            return n % 8 == 0 && (8...256).contains(n)
        }
        if type.hasPrefix("bytes"), let n = Int(type.dropFirst(5)) { return (1...32).contains(n) }
        return false
    }

    /// The arguments of `calldata` as a JSON object keyed by parameter name, or `nil` when the selector or
    /// length differs or a word is out of its type's range.
    func decode(_ calldata: [UInt8]) -> JSONValue? {
        guard calldata.count == 4 + 32 * parameters.count, Array(calldata.prefix(4)) == selector else { return nil }
        var object = JSONObject()
        for (i, parameter) in parameters.enumerated() {
            let word = Array(calldata[(4 + 32 * i)..<(4 + 32 * (i + 1))])
            guard let value = Self.value(word, type: parameter.type) else { return nil }
            object[parameter.name] = value
        }
        return .object(object)
    }

    static func value(_ word: [UInt8], type: String) -> JSONValue? {
        if type == "address" {
            guard word.prefix(12).allSatisfy({ $0 == 0 }), let address = Address(bytes: word.suffix(20)) else {
                return nil
            }
            return .string(address.checksummed)
        }
        if type == "bool" {
            guard word.prefix(31).allSatisfy({ $0 == 0 }), word[31] <= 1 else { return nil }
            return .bool(word[31] == 1)
        }
        if type.hasPrefix("bytes"), let n = Int(type.dropFirst(5)) {
            guard word.suffix(32 - n).allSatisfy({ $0 == 0 }) else { return nil }
            return .string(Hex.encode(word.prefix(n)))
        }
        guard let magnitude = UInt256(bigEndian: word) else { return nil }
        let bits = Int(type.drop(while: { $0.isLetter })) ?? 256
        if type.hasPrefix("uint") {
            guard magnitude.bitWidth <= bits else { return nil }
            return .number(magnitude.decimalString)
        }
        // intN: two's complement in 256 bits.
        let negative = word[0] & 0x80 != 0
        let shown = negative ? magnitude.twosComplement : magnitude
        guard shown.bitWidth <= bits - (negative ? 0 : 1) else { return nil }
        return .number((negative ? "-" : "") + shown.decimalString)
    }
}
