import EIP712
import EIP712Codegen
import Testing

/// The generator's refusals, from its library: each names the file, the type and the field.
@Suite struct GeneratorErrorTests {
    static let file = "broken.eip712.json"

    /// The error generating `text` gives (the test fails if it generates).
    static func error(_ text: String) -> CodegenError? {
        do throws(CodegenError) {
            let source = try EIP712Generator.swiftSource(fileName: file, contents: Array(text.utf8))
            Issue.record("generated \(source.count) characters, expected an error")
            return nil
        } catch {
            return error
        }
    }

    @Test func unknownType() throws {
        let error = try #require(
            Self.error(
                #"{"types": {"Mail": [{"name": "from", "type": "address"}, {"name": "to", "type": "Persn[]"}]}}"#))
        #expect(error.reason == .schema(.undefinedType("Persn")))
        #expect(error.typeName == "Mail")
        #expect(error.fieldName == "to")
        #expect(error.description == "broken.eip712.json: type Mail, field to: undefined type Persn")
    }

    @Test func unknownPrimaryType() throws {
        let error = try #require(Self.error(#"{"types": {"A": [{"name": "x", "type": "bool"}]}, "primaryType": "B"}"#))
        #expect(error.reason == .schema(.undefinedType("B")))
        #expect(error.typeName == "B")
    }

    @Test func cyclicType() throws {
        let error = try #require(
            Self.error(
                #"{"types": {"A": [{"name": "b", "type": "B"}], "B": [{"name": "c", "type": "C"}], "C": [{"name": "a", "type": "A"}]}}"#
            ))
        #expect(error.reason == .cyclicType(["A", "B", "C", "A"]))
        #expect(error.description.hasPrefix("broken.eip712.json: type A: cyclic type A → B → C → A"))
    }

    @Test func structHoldingItselfDirectly() throws {
        let error = try #require(Self.error(#"{"types": {"Node": [{"name": "next", "type": "Node"}]}}"#))
        #expect(error.reason == .cyclicType(["Node", "Node"]))
    }

    @Test func structHoldingItselfThroughAnArrayIsGenerated() throws {
        let text =
            #"{"types": {"Node": [{"name": "children", "type": "Node[]"}, {"name": "pair", "type": "Node[2]"}]}}"#
        let source = try EIP712Generator.swiftSource(fileName: "tree.eip712.json", contents: Array(text.utf8))
        #expect(source.contains("public var children: [Node]"))
        #expect(source.contains(#"try words.write(self.pair, length: 2, field: "pair")"#))
    }

    @Test func fieldNameThatIsNoSwiftIdentifier() throws {
        let error = try #require(Self.error(#"{"types": {"Mail": [{"name": "my-field", "type": "bool"}]}}"#))
        #expect(error.reason == .invalidIdentifier("my-field", "only ASCII letters, digits and _ are allowed"))
        #expect(error.typeName == "Mail")
        #expect(error.fieldName == "my-field")
        #expect(error.description.hasPrefix("broken.eip712.json: type Mail, field my-field: my-field cannot be"))
    }

    @Test func fieldNameStartingWithADigit() throws {
        let error = try #require(Self.error(#"{"types": {"Mail": [{"name": "1st", "type": "bool"}]}}"#))
        #expect(error.reason == .invalidIdentifier("1st", "it starts with a digit"))
    }

    @Test func fieldNameEveryStructHas() throws {
        let error = try #require(Self.error(#"{"types": {"Mail": [{"name": "hashStruct", "type": "bool"}]}}"#))
        #expect(error.fieldName == "hashStruct")
        #expect(error.reason == .invalidIdentifier("hashStruct", "hashStruct is a member every EIP712Struct has"))
    }

    @Test func typeNameWithADollarSign() throws {
        // `$` is valid in an EIP-712 type name, not in Swift.
        let error = try #require(Self.error(#"{"types": {"Mail$": [{"name": "x", "type": "bool"}]}}"#))
        #expect(error.typeName == "Mail$")
        #expect(error.fieldName == nil)
        #expect(error.reason == .invalidIdentifier("Mail$", "only ASCII letters, digits and _ are allowed"))
    }

    @Test func typeNameTheGeneratedCodeNeeds() throws {
        let error = try #require(Self.error(#"{"types": {"EthereumPrimitives": [{"name": "x", "type": "bool"}]}}"#))
        #expect(error.typeName == "EthereumPrimitives")
    }

    @Test func namespaceThatIsNoSwiftIdentifier() throws {
        let error = try #require(
            Self.error(#"{"namespace": "my schema", "types": {"A": [{"name": "x", "type": "bool"}]}}"#))
        #expect(error.reason == .invalidIdentifier("my schema", "only ASCII letters, digits and _ are allowed"))
    }

    @Test func malformedTypeAndDuplicateField() throws {
        let malformed = try #require(Self.error(#"{"types": {"A": [{"name": "x", "type": "uint7"}]}}"#))
        #expect(malformed.reason == .schema(.undefinedType("uint7")))
        #expect(malformed.fieldName == "x")
        let duplicate = try #require(
            Self.error(#"{"types": {"A": [{"name": "x", "type": "bool"}, {"name": "x", "type": "bool"}]}}"#))
        #expect(duplicate.reason == .schema(.duplicateField("x")))
        #expect(duplicate.typeName == "A")
    }

    @Test func fileThatIsNoSchemaFile() throws {
        let notJSON = try #require(Self.error("{types"))
        guard case .invalidFile(let text) = notJSON.reason else {
            Issue.record("expected invalidFile, got \(notJSON.reason)")
            return
        }
        #expect(text.hasPrefix("not JSON"))
        let unknownMember = try #require(Self.error(#"{"types": {}, "primary": "A"}"#))
        #expect(unknownMember.description.hasPrefix("broken.eip712.json: unknown member primary"))
        let badAccess = try #require(Self.error(#"{"types": {}, "access": "open"}"#))
        #expect(badAccess.description.contains("\"access\" must be one of"))
    }
}
