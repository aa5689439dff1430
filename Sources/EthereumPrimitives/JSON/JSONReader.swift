/// An error that says where in a JSON document something is wrong (`keys[1].passwordFile`, `[2].address`;
/// empty for the document as a whole) and what. Every file and answer SignerKit reads — configuration, policy
/// files, clear-signing descriptors, the token registry, Pay's answers, a node's results — fails in this shape,
/// each with its own type so a caller can tell them apart.
public protocol LocatedJSONError: Error {
    /// An error at `path`.
    init(path: String, problem: String)
}

/// A position in a parsed JSON document: the value there (absent when the member or element does not exist)
/// and its path. Reads are typed and fail with `Failure` naming the path, so a reader never has to spell a
/// path or a "wrong kind" message itself:
///
/// ```swift
/// let root = try JSONReader<PolicyFileError>(parsing: text)
/// let maximum = try root["tokenSpendCap"][1]["maximum"].uint256()   // fails at "tokenSpendCap[1].maximum"
/// ```
///
/// Member names from the document itself (unknown members, keys of a map) are quoted abbreviated.
public struct JSONReader<Failure: LocatedJSONError>: Sendable {
    /// The value at ``path``, or `nil` when there is none.
    public let value: JSONValue?
    /// Where ``value`` is (`""` for the root).
    public let path: String

    /// A reader of `value` at `path`.
    public init(_ value: JSONValue?, at path: String = "") {
        self.value = value
        self.path = path
    }

    /// A reader of the root of `text`; text that is not JSON fails at the root with the parser's message.
    public init(parsing text: String) throws(Failure) {
        do { self.init(try JSONValue(parsing: text)) } catch { throw Failure(path: "", problem: "\(error)") }
    }

    /// The member `name` (absent when this is not an object or has no such member).
    public subscript(_ name: String) -> JSONReader {
        JSONReader(value?[name], at: path.isEmpty ? name : path + "." + name)
    }

    /// The element at `index` (absent when this is not an array or is shorter).
    public subscript(_ index: Int) -> JSONReader {
        var element: JSONValue?
        if case .array(let list)? = value, list.indices.contains(index) { element = list[index] }
        return JSONReader(element, at: "\(path)[\(index)]")
    }

    /// This reader, or `nil` when the value is absent.
    public var ifPresent: JSONReader? { value == nil ? nil : self }

    /// This reader, or `nil` when the value is absent or `null`.
    public var ifNotNull: JSONReader? { value == nil || value == .null ? nil : self }

    /// The error `problem` at this path.
    public func fail(_ problem: String) -> Failure { Failure(path: path, problem: problem) }

    /// The present value (fails with `missing`).
    public func required() throws(Failure) -> JSONValue {
        guard let value else { throw fail("missing") }
        return value
    }

    /// An object.
    @discardableResult
    public func object() throws(Failure) -> JSONObject {
        let value = try required()
        guard case .object(let object) = value else { throw fail("expected an object, got \(value.kindName)") }
        return object
    }

    /// An object's members in document order, each with its reader (the key quoted abbreviated in the path).
    public func members() throws(Failure) -> [(key: String, value: JSONReader)] {
        try object().members.map { member in
            let name = EchoedText.abbreviated(member.key)
            return (member.key, JSONReader(member.value, at: path.isEmpty ? name : path + "." + name))
        }
    }

    /// An object with no member outside `allowed`; an unknown member fails at its own path as an unknown
    /// `kind` (`unknown member (known: a, b)`).
    @discardableResult
    public func object(allowing allowed: [String], kind: String = "member") throws(Failure) -> JSONObject {
        let object = try object()
        if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
            let name = EchoedText.abbreviated(unknown)
            throw Failure(
                path: path.isEmpty ? name : path + "." + name,
                problem: "unknown \(kind) (known: \(allowed.joined(separator: ", ")))")
        }
        return object
    }

    /// An array's elements, each with its reader.
    public func elements() throws(Failure) -> [JSONReader] {
        let value = try required()
        guard case .array(let list) = value else { throw fail("expected an array, got \(value.kindName)") }
        return list.indices.map { JSONReader(list[$0], at: "\(path)[\($0)]") }
    }

    /// A string.
    public func string() throws(Failure) -> String {
        let value = try required()
        guard case .string(let text) = value else { throw fail("expected a string, got \(value.kindName)") }
        return text
    }

    /// `true` or `false`.
    public func bool() throws(Failure) -> Bool {
        let value = try required()
        guard case .bool(let flag) = value else { throw fail("expected true or false, got \(value.kindName)") }
        return flag
    }

    /// A JSON number that is a whole number (one that fits an `Int`).
    public func integer() throws(Failure) -> Int {
        let value = try required()
        guard case .number(let text) = value else { throw fail("expected a whole number, got \(value.kindName)") }
        guard let number = Int(text) else { throw fail("\(EchoedText.abbreviated(text)) is not a 64-bit whole number") }
        return number
    }

    /// A JSON number that is a whole number in `range`.
    public func integer(in range: ClosedRange<Int>) throws(Failure) -> Int {
        guard case .number(let text) = try required(), let number = Int(text), range.contains(number) else {
            throw fail("expected a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// A 256-bit unsigned integer written as a decimal or `0x`-hex string, or as a JSON number (its literal
    /// text, never through `Double`).
    public func uint256() throws(Failure) -> UInt256 {
        let value = try required()
        switch value {
        case .string(let text), .number(let text):
            do { return try UInt256(text: text) } catch { throw fail("\(error)") }
        default: throw fail("expected a decimal or 0x-hex integer, got \(value.kindName)")
        }
    }

    /// A string parsed by `parse`; its error's description is the problem.
    public func string<T, E: Error>(as parse: (String) throws(E) -> T) throws(Failure) -> T {
        let text = try string()
        do { return try parse(text) } catch { throw fail("\(error)") }
    }

    /// An address (EIP-55 checked when mixed case).
    public func address() throws(Failure) -> Address { try string { (text) throws(AddressError) in try Address(text) } }

    /// A CAIP-2 chain id.
    public func chain() throws(Failure) -> ChainID { try string { (text) throws(CAIPError) in try ChainID(text) } }
}
