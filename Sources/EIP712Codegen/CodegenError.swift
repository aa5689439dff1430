import EIP712

/// Why a `*.eip712.json` schema file generated no Swift. `description` names the file and, where it applies,
/// the type and the field: `ronin.eip712.json: type Order, field assets: undefined type Aset`.
public struct CodegenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Equatable {
        /// The file is not JSON, or not the schema file's shape (see docs/EIP712.md).
        case invalidFile(String)
        /// What compiling the types as EIP-712 refused: an unknown or malformed type, a duplicate field, a
        /// non-standard `EIP712Domain` field.
        case schema(EIP712Error.Reason)
        /// Structs that contain each other without an array between them (`A → B → A`): a Swift struct cannot
        /// contain itself.
        case cyclicType([String])
        /// A type or field name that is not a Swift identifier (ASCII letters, digits and `_`, not starting
        /// with a digit), with why.
        case invalidIdentifier(String, String)
    }

    /// The schema file, as the generator was given its name.
    public var file: String
    /// The EIP-712 type at fault, if any.
    public var typeName: String?
    /// The field of ``typeName`` at fault, if any.
    public var fieldName: String?
    /// What.
    public var reason: Reason

    /// Builds an error about `file` (and a type and field in it).
    public init(_ reason: Reason, file: String, typeName: String? = nil, fieldName: String? = nil) {
        self.reason = reason
        self.file = file
        self.typeName = typeName
        self.fieldName = fieldName
    }

    /// The explanation of ``reason`` alone.
    public var reasonText: String {
        switch reason {
        case .invalidFile(let text): text
        case .schema(let reason): EIP712Error(reason).reasonText
        case .cyclicType(let cycle):
            "cyclic type \(cycle.joined(separator: " → ")): a struct can contain itself only through an array"
        case .invalidIdentifier(let name, let why): "\(name) cannot be a Swift name: \(why)"
        }
    }

    /// `file: type T, field f: reason`.
    public var description: String {
        var place = file
        if let typeName { place += ": type \(typeName)" }
        if let fieldName { place += ", field \(fieldName)" }
        return "\(place): \(reasonText)"
    }
}
