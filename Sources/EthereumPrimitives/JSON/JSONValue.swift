/// A JSON value that keeps numbers as their exact literal text (never through `Double`).
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, as its literal text (e.g. `"-12"`, `"1.5"`, `"1e3"`).
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in document order (keys are unique).
    case object(JSONObject)

    /// The member named `key` when this is an object.
    @inlinable public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string when this is a string.
    @inlinable public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The elements when this is an array.
    @inlinable public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The object when this is an object.
    @inlinable public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The value's kind.
    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// A one-word name of the kind of value, for error messages.
    public var kindName: String { Self.kindName(of: kind) }

    /// A one-word name of a kind, for error messages.
    public static func kindName(of kind: JSONKind) -> String {
        switch kind {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Parses JSON text strictly (see ``JSONDocument``); numbers keep their literal text.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONDocument(parsing: text).root.value
    }

    /// Parses JSON given as UTF-8 bytes.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self = try JSONDocument(bytes: bytes).root.value
    }

    /// This value as a document (for APIs that work on ``JSONNode``): its text and tape written in one walk,
    /// nothing parsed. A value the parser would refuse (a `.number` that is no JSON number, an object with a
    /// repeated key, nesting deeper than 512) is the document `null`, as parsing its text gives.
    public var document: JSONDocument {
        if let built = JSONDocument(building: self) { return built }
        return (try? JSONDocument(parsing: serialized)) ?? JSONDocument.null
    }
}

/// A JSON object: members in document order with unique keys.
public struct JSONObject: Sendable, Equatable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Equatable {
        /// The key.
        public var key: String
        /// The value.
        public var value: JSONValue

        /// Builds a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Members in document order.
    public var members: [Member]

    /// Builds from members; the caller guarantees unique keys.
    public init(members: [Member] = []) { self.members = members }

    /// Builds from pairs; later pairs replace earlier ones with the same key.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        members = []
        for (key, value) in pairs { self[key] = value }
    }

    /// The value for `key`.
    @inlinable public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// Number of members.
    public var count: Int { members.count }
}
