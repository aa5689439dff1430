import EIP712
import EthereumPrimitives

/// The Swift access level of the generated declarations.
public enum AccessLevel: String, Sendable, CaseIterable {
    /// `public` (the default).
    case `public`
    /// `package`.
    case package
    /// `internal`.
    case `internal`
}

/// A `*.eip712.json` schema file, read and shape-checked:
///
///     {"types": {…EIP-712 types…}, "primaryType": "Order", "namespace": "Ronin", "access": "public"}
///
/// Only `types` is required. With `primaryType`, only it, the structs it refers to and `EIP712Domain` are
/// generated; without, every type. `namespace` nests the structs in an enum of that name (two schema
/// files of one target may then both declare `EIP712Domain`); `access` is `public`, `package` or `internal`.
struct SchemaFile {
    static let knownKeys: Set<String> = ["types", "primaryType", "namespace", "access"]

    let name: String
    let document: JSONDocument
    let types: JSONNode
    let primaryType: String?
    let namespace: String?
    let access: AccessLevel

    init(name: String, contents: [UInt8]) throws(CodegenError) {
        func invalid(_ text: String) -> CodegenError { CodegenError(.invalidFile(text), file: name) }
        self.name = name
        do { document = try JSONDocument(bytes: contents) } catch { throw invalid("not JSON: \(error)") }
        let root = document.root
        guard root.kind == .object else { throw invalid("expected an object with \"types\", got \(root.kindName)") }
        for (key, _) in root.members {
            guard let text = key.stringValue, Self.knownKeys.contains(text) else {
                throw invalid("unknown member \(key.stringValue ?? ""); a schema file has \(Self.knownKeys.sorted())")
            }
        }
        guard let types = root["types"], types.kind == .object else {
            throw invalid("\"types\" must be an object of EIP-712 struct types")
        }
        self.types = types
        primaryType = try Self.string(root, "primaryType", invalid)
        namespace = try Self.string(root, "namespace", invalid)
        let accessText = try Self.string(root, "access", invalid) ?? AccessLevel.public.rawValue
        guard let access = AccessLevel(rawValue: accessText) else {
            throw invalid("\"access\" must be one of \(AccessLevel.allCases.map(\.rawValue)), not \(accessText)")
        }
        self.access = access
    }

    private static func string(
        _ root: JSONNode, _ key: String, _ invalid: (String) -> CodegenError
    ) throws(CodegenError) -> String? {
        guard let node = root[key] else { return nil }
        guard let text = node.stringValue else { throw invalid("\"\(key)\" must be a string, got \(node.kindName)") }
        return text
    }

    /// The `name` of field `index` of type `typeName` as written in the file, for naming it in errors.
    func fieldName(of typeName: String, at index: Int) -> String? {
        guard let list = types[typeName], list.kind == .array else { return nil }
        for (position, entry) in list.elements.enumerated() where position == index {
            return entry["name"]?.stringValue
        }
        return nil
    }
}
