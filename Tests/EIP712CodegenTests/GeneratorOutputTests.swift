import EIP712
import EIP712Codegen
import EthereumPrimitives
import Testing

/// What the generator writes, read as text: type hashes from the runtime, keywords escaped, the primary type's
/// closure only.
@Suite struct GeneratorOutputTests {
    static let order = #"""
        {"primaryType": "Order", "access": "package", "types": {
          "EIP712Domain": [{"name": "name", "type": "string"}],
          "Unused": [{"name": "flag", "type": "bool"}],
          "Order": [{"name": "default", "type": "Asset[]"}, {"name": "amount", "type": "uint24"}],
          "Asset": [{"name": "id", "type": "uint256"}]}}
        """#

    @Test func writesTheRuntimesTypeHashAndOnlyWhatThePrimaryTypeNeeds() throws {
        let source = try EIP712Generator.swiftSource(fileName: "order.eip712.json", contents: Array(Self.order.utf8))
        let typesJSON = try JSONValue(parsing: Self.order)["types"] ?? .null
        let schema = try EIP712Schema(types: typesJSON, domain: nil)
        let orderHash = try #require(schema.typeHash(of: "Order"))
        #expect(source.contains("`keccak256(encodeType)` = \(orderHash.hex)"))
        #expect(source.contains(#"static let encodeType = "Order(Asset[] default,uint24 amount)Asset(uint256 id)""#))
        #expect(source.contains("package struct Order: EIP712.EIP712Struct"))
        #expect(source.contains("package struct EIP712Domain"))
        #expect(!source.contains("Unused"))
        #expect(source.contains("package var `default`: [Asset]"))
        #expect(source.contains("package var amount: Swift.UInt32"))
        #expect(source.contains(#"try words.write(self.amount, bits: 24, field: "amount")"#))
    }

    @Test func wordExpressionIsTheWord() throws {
        let source = try EIP712Generator.swiftSource(
            fileName: "a.eip712.json", contents: Array(#"{"types": {"A": [{"name": "x", "type": "bool"}]}}"#.utf8))
        // keccak256("A(bool x)"), as four big-endian limbs, most significant first in the literal's last place.
        let hash = Keccak256.hash(utf8: "A(bool x)")
        let limbs = UInt256(word: hash).limbs
        let expected = [limbs.0, limbs.1, limbs.2, limbs.3].map {
            "0x" + String(repeating: "0", count: 16 - String($0, radix: 16).count) + String($0, radix: 16)
        }
        #expect(source.contains("UInt256(limbs: (\(expected.joined(separator: ", ")))).word"))
    }
}
