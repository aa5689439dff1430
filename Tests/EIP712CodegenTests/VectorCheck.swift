import EIP712
import EthereumPrimitives
import SignerKitTestSupport
import Testing

/// Compares a generated struct, filled with a vector's message, with the vector and with the runtime.
enum VectorCheck {
    static let rows: [JSONValue] = (try? Vectors.rows("eip712.jsonl")) ?? []

    /// The vector row named `name`.
    static func row(_ name: String) throws -> JSONValue {
        try #require(rows.first { $0["name"]?.stringValue == name }, "no vector \(name)")
    }

    /// The generated `message` under the generated `domain` gives exactly the vector's domain separator, struct
    /// hash and digest, the runtime's `TypedData(...).digest()` of the vector's document, and the runtime's type
    /// hash of the primary type.
    static func expectMatches(
        _ message: some EIP712Struct, domain: some EIP712Struct, vector name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let row = try row(name)
        let typedData = try TypedData(json: try #require(row["typedData"]))
        let runtime = try typedData.hashes()
        let generated = try message.hashes(domain: domain)
        #expect(
            generated.domainSeparator.hex == (try row.vectorString("domainSeparator")), sourceLocation: sourceLocation)
        #expect(generated.structHash.hex == (try row.vectorString("structHash")), sourceLocation: sourceLocation)
        #expect(generated.digest.hex == (try row.vectorString("digest")), sourceLocation: sourceLocation)
        #expect(generated == runtime, sourceLocation: sourceLocation)
        #expect(try message.digest(domain: domain) == runtime.digest, sourceLocation: sourceLocation)
        try expectTypeHashMatches(type(of: message), schema: typedData.compile().schema, sourceLocation: sourceLocation)
    }

    /// The generated message's digest equals the runtime's digest of `typedDataJSON` (for shapes no vector has).
    static func expectMatchesRuntime(
        _ message: some EIP712Struct, domain: some EIP712Struct, typedDataJSON: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let typedData = try TypedData(jsonText: typedDataJSON)
        #expect(try message.hashes(domain: domain) == (try typedData.hashes()), sourceLocation: sourceLocation)
        try expectTypeHashMatches(type(of: message), schema: typedData.compile().schema, sourceLocation: sourceLocation)
    }

    /// The generated type hash is `keccak256(encodeType)` and the runtime schema's hash of that type.
    static func expectTypeHashMatches(
        _ type: any EIP712Struct.Type, schema: EIP712Schema, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(type.typeHash == Keccak256.hash(utf8: type.encodeType), sourceLocation: sourceLocation)
        #expect(schema.encodeType(of: type.eip712TypeName) == type.encodeType, sourceLocation: sourceLocation)
        #expect(schema.typeHash(of: type.eip712TypeName) == type.typeHash, sourceLocation: sourceLocation)
    }
}
