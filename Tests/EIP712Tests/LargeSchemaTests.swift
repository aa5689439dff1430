import EthereumPrimitives
import Foundation
import Testing

@testable import EIP712

/// Schemas far larger than real ones: many dependencies (sorted by code point like small ones) and
/// hostile struct chains, whose `encodeType` strings grow with the square of the chain's length and
/// are refused past `EIP712Schema.maximumEncodeTypeBytes` instead of hashed for seconds.
@Suite struct LargeSchemaTests {
    /// A typed-data document whose `types` are `structs` (name → fields as (type, name)), with
    /// `primaryType` and `message`.
    static func document(
        structs: [(name: String, fields: [(type: String, name: String)])], primaryType: String, message: Any
    ) throws -> String {
        var types: [String: Any] = ["EIP712Domain": [["name": "name", "type": "string"]]]
        for item in structs {
            types[item.name] = item.fields.map { ["name": $0.name, "type": $0.type] }
        }
        let object: [String: Any] = [
            "types": types, "primaryType": primaryType, "domain": ["name": "large"], "message": message,
        ]
        let data = try JSONSerialization.data(withJSONObject: object)
        return String(decoding: data, as: UTF8.self)
    }

    /// `Name(type name,…)`.
    static func segment(_ name: String, _ fields: [(type: String, name: String)]) -> String {
        name + "(" + fields.map { "\($0.type) \($0.name)" }.joined(separator: ",") + ")"
    }

    /// A chain S0 → S1 → … → S(n−1): each has a `uint256 v` and (but the last) a `next` of the
    /// following struct.
    static func chain(_ n: Int) -> [(name: String, fields: [(type: String, name: String)])] {
        (0..<n).map { i in
            ("S\(i)", [("uint256", "v")] + (i + 1 < n ? [("S\(i + 1)", "next")] : []))
        }
    }

    /// A message for the chain: S0 holding S1 … down to S(n−1).
    static func chainMessage(_ n: Int) -> Any {
        var value: [String: Any] = ["v": n - 1]
        for i in stride(from: n - 2, through: 0, by: -1) { value = ["v": i, "next": value] }
        return value
    }

    @Test("a struct with 40 dependencies lists them in code-point order")
    func manyDependencies() throws {
        // Names whose code-point order differs from declaration order and from case-insensitive order.
        let names = (0..<40).map { i in ["Zed", "alpha", "Beta", "b_", "Q", "q"][i % 6] + "\(39 - i)" }
        var structs: [(name: String, fields: [(type: String, name: String)])] = names.map { ($0, [("bool", "flag")]) }
        let rootFields = names.enumerated().map { (type: $1 + ($0 % 3 == 0 ? "[]" : ""), name: "f\($0)") }
        structs.append(("Root", rootFields))
        var message: [String: Any] = [:]
        for (i, name) in names.enumerated() {
            message["f\(i)"] = i % 3 == 0 ? [["flag": true]] : ["flag": i % 2 == 0]
            _ = name
        }
        let typedData = try TypedData(
            jsonText: try Self.document(structs: structs, primaryType: "Root", message: message))
        let sorted = names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let expected =
            Self.segment("Root", rootFields) + sorted.map { Self.segment($0, [("bool", "flag")]) }.joined()
        let schema = try typedData.compile().schema
        #expect(schema.encodeType(of: "Root") == expected)
        #expect(schema.typeHash(of: "Root") == Keccak256.hash(utf8: expected))
        #expect(throws: Never.self) { try typedData.hashes() }
    }

    @Test("a chain of 200 structs is hashed; its encodeType repeats the chain in code-point order")
    func longChainAccepted() throws {
        let n = 200
        let structs = Self.chain(n)
        let text = try Self.document(structs: structs, primaryType: "S0", message: Self.chainMessage(n))
        let typedData = try TypedData(jsonText: text)
        let hashes = try typedData.hashes()
        let sorted = structs.dropFirst().sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        let expected = Self.segment("S0", structs[0].fields) + sorted.map { Self.segment($0.name, $0.fields) }.joined()
        let schema = try typedData.compile().schema
        #expect(schema.encodeType(of: "S0") == expected)
        #expect(schema.typeHash(of: "S0") == Keccak256.hash(utf8: expected))
        // hashStruct of the innermost struct, built by hand, matches the schema's.
        let last = "S\(n - 1)"
        let lastType = Keccak256.hash(utf8: Self.segment(last, structs[n - 1].fields))
        var word = Bytes32()
        word[31] = UInt8(n - 1)
        let lastHash = Keccak256.hash(lastType.bytes + word.bytes)
        let innermost = try JSONValue(parsing: #"{"v":\#(n - 1)}"#)
        #expect(try schema.hashStruct(last, innermost.document.root) == lastHash)
        #expect(hashes.digest != .zero)
    }

    /// A struct "Wide" of `n` `uint8` fields f0…f(n−1), and a message object with the members
    /// given as (name, value) in that order.
    static func wideDocument(fields n: Int, members: [(String, Int)]) -> String {
        let declared = (0..<n).map { #"{"name":"f\#($0)","type":"uint8"}"# }.joined(separator: ",")
        let message = members.map { #""\#($0.0)":\#($0.1)"# }.joined(separator: ",")
        return #"{"types":{"EIP712Domain":[],"Wide":[\#(declared)]},"primaryType":"Wide","domain":{},"#
            + #""message":{\#(message)}}"#
    }

    @Test("a struct of 300 fields hashes the same whatever the members' order")
    func wideStructAnyOrder() throws {
        let n = 300
        let members = (0..<n).map { ("f\($0)", $0 % 256) }
        // hashStruct by hand: keccak(typeHash ‖ one word per field).
        let encodeType = "Wide(" + (0..<n).map { "uint8 f\($0)" }.joined(separator: ",") + ")"
        var data = Keccak256.hash(utf8: encodeType).bytes
        for (_, value) in members {
            var word = [UInt8](repeating: 0, count: 32)
            word[31] = UInt8(value)
            data += word
        }
        let expected = Keccak256.hash(data)
        let scattered = (0..<n).map { members[($0 * 7_919) % n] }  // 7919 is prime: a permutation
        for order in [members, members.reversed(), scattered] {
            let typedData = try TypedData(jsonText: Self.wideDocument(fields: n, members: Array(order)))
            #expect(try typedData.hashes().structHash == expected)
        }
    }

    @Test("a struct of 300 fields names its missing, undeclared and duplicate fields")
    func wideStructErrors() throws {
        let n = 300
        let members = (0..<n).map { ("f\($0)", 1) }
        var missing = members
        missing.remove(at: 200)
        do {
            _ = try TypedData(jsonText: Self.wideDocument(fields: n, members: missing.reversed())).hashes()
            Issue.record("a missing field was accepted")
        } catch {
            #expect(error.reason == .missing)
            #expect(error.path == [.key("message"), .key("f200")])
        }
        var extra = members
        extra.insert(("g7", 1), at: 150)
        do {
            _ = try TypedData(jsonText: Self.wideDocument(fields: n, members: extra)).hashes()
            Issue.record("an undeclared field was accepted")
        } catch {
            #expect(error.reason == .unexpectedField)
            #expect(error.path == [.key("message"), .key("g7")])
        }
        let declared = (0..<n).map { #"{"name":"f\#($0 == 250 ? 17 : $0)","type":"uint8"}"# }
        let text =
            #"{"types":{"EIP712Domain":[],"Wide":[\#(declared.joined(separator: ","))]},"#
            + #""primaryType":"Wide","domain":{},"message":{}}"#
        do {
            _ = try TypedData(jsonText: text).hashes()
            Issue.record("a duplicate field was accepted")
        } catch {
            #expect(error.reason == .duplicateField("f17"))
            #expect(error.path == [.key("types"), .key("Wide"), .index(250), .key("name")])
        }
    }

    @Test("a million-digit integer and a huge field name are refused with short messages")
    func hugeValuesGiveShortErrors() throws {
        let structs: [(name: String, fields: [(type: String, name: String)])] = [("M", [("uint256", "a")])]
        let digits = String(repeating: "9", count: 1_000_000)
        let text = try Self.document(structs: structs, primaryType: "M", message: ["a": digits])
        do {
            _ = try TypedData(jsonText: text).hashes()
            Issue.record("a million-digit uint256 was accepted")
        } catch {
            #expect(error.path == [.key("message"), .key("a")])
            #expect(error.description.count < 200)
            // A run of a million digits could hold a pasted key: it is quoted redacted.
            #expect(error.description.hasPrefix("message.a: value \(EchoedText.redactionMarker)"))
        }
        let name = String(repeating: "n", count: 100_000)
        let extra = try Self.document(structs: structs, primaryType: "M", message: ["a": 1, name: 2])
        do {
            _ = try TypedData(jsonText: extra).hashes()
            Issue.record("an undeclared field was accepted")
        } catch {
            #expect(error.reason == .unexpectedField)
            #expect(error.description.count < 200)
        }
    }

    @Test("a types object over 256 MiB is refused before compiling (arena offsets are 32-bit)")
    func hugeTypesObjectRefused() throws {
        let head = Array(#"{"A":[{"name":"a","type":"string","pad":""#.utf8)
        let padding = [UInt8](repeating: UInt8(ascii: "x"), count: EIP712Schema.maximumTypesLength)
        let document = try JSONDocument(bytes: head + padding + Array(#""}]}"#.utf8))
        do {
            _ = try EIP712Schema(types: document.root, domain: nil, primaryType: "A")
            Issue.record("a types object of \(document.root.sourceLength) bytes was compiled")
        } catch {
            #expect(error.reason == .typesObjectTooLarge(limit: EIP712Schema.maximumTypesLength))
            #expect(error.path == [.key("types")])
        }
    }

    @Test("a hostile chain of structs is refused at types, quickly, with the limit named")
    func hostileChainRefused() throws {
        for n in [400, 5_000] {
            let text = try Self.document(structs: Self.chain(n), primaryType: "S0", message: ["v": 1])
            do {
                _ = try TypedData(jsonText: text).hashes()
                Issue.record("a chain of \(n) structs was hashed")
            } catch {
                #expect(error.reason == .typesTooLarge(limit: EIP712Schema.maximumEncodeTypeBytes))
                #expect(error.path == [.key("types")])
                #expect(error.description.hasPrefix("types: the structs' encodeType strings total more than 1048576"))
            }
        }
    }
}
