/// The kind of a JSON value.
public enum JSONKind: UInt8, Sendable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool
    /// A number (kept as literal text).
    case number
    /// A string.
    case string
    /// An array.
    case array
    /// An object.
    case object
}

/// Parsed JSON stored as a flat tape over the input bytes: strings and numbers are byte ranges of
/// the input (escaped strings are unescaped into a tail area), containers know their size and extent.
///
/// This is the single JSON parser of SignerKit: strict RFC 8259 (no trailing commas, no duplicate
/// keys, valid UTF-8, nesting at most 512 deep). ``JSONValue`` is built from it.
///
/// Immutable after `init`; its buffers are owned and freed by it, so sharing across tasks is safe.
public final class JSONDocument: @unchecked Sendable {
    @usableFromInline struct Node: Sendable {
        @usableFromInline var kind: JSONKind
        /// For true/false: the value.
        @usableFromInline var flag: Bool
        /// Scalars: byte range in ``text``. Containers: the bracket's offset.
        @usableFromInline var start: Int32
        @usableFromInline var end: Int32
        /// Index of the first node after this value's subtree.
        @usableFromInline var next: Int32
        /// Containers: number of elements (arrays) or members (objects).
        @usableFromInline var count: Int32

        @usableFromInline init(kind: JSONKind, flag: Bool, start: Int32, end: Int32, next: Int32, count: Int32) {
            self.kind = kind
            self.flag = flag
            self.start = start
            self.end = end
            self.next = next
            self.count = count
        }
    }

    /// The input bytes followed by the unescaped contents of strings that had escapes.
    @usableFromInline let text: UnsafeMutableBufferPointer<UInt8>
    @usableFromInline let nodes: UnsafeMutableBufferPointer<Node>

    /// Parses UTF-8 JSON text.
    public convenience init(parsing text: String) throws(JSONParseError) {
        var text = text
        let result: Result<(UnsafeMutableBufferPointer<UInt8>, UnsafeMutableBufferPointer<Node>), JSONParseError> =
            text.withUTF8 { buffer in
                do throws(JSONParseError) { return .success(try Self.parse(buffer)) } catch { return .failure(error) }
            }
        let (storage, nodes) = try result.get()
        self.init(text: storage, nodes: nodes)
    }

    /// Parses UTF-8 JSON bytes.
    public convenience init(bytes: [UInt8]) throws(JSONParseError) {
        let result: Result<(UnsafeMutableBufferPointer<UInt8>, UnsafeMutableBufferPointer<Node>), JSONParseError> =
            bytes.withUnsafeBufferPointer { buffer in
                do throws(JSONParseError) { return .success(try Self.parse(buffer)) } catch { return .failure(error) }
            }
        let (storage, nodes) = try result.get()
        self.init(text: storage, nodes: nodes)
    }

    /// Builds the tape over a padded copy of `input`; returns the owned text (input, then unescaped
    /// strings) and the nodes.
    static func parse(
        _ input: UnsafeBufferPointer<UInt8>
    ) throws(JSONParseError) -> (UnsafeMutableBufferPointer<UInt8>, UnsafeMutableBufferPointer<Node>) {
        let count = input.count
        // Refused before copying a hostile gigabyte.
        guard count <= JSONTapeBuilder.maximumInputLength else {
            throw JSONParseError(
                offset: 0, reason: "document too large (more than \(JSONTapeBuilder.maximumInputLength) bytes)")
        }
        let padded = UnsafeMutablePointer<UInt8>.allocate(capacity: count + JSONTapeBuilder.padding)
        if let source = input.baseAddress { padded.initialize(from: source, count: count) }
        (padded + count).initialize(repeating: 0, count: JSONTapeBuilder.padding)
        var builder = JSONTapeBuilder(paddedInput: padded, count: count)
        do {
            try builder.parse()
        } catch {
            builder.discard()
            padded.deallocate()
            throw error
        }
        let unescaped = builder.unescaped
        guard !unescaped.isEmpty else {
            return (UnsafeMutableBufferPointer(start: padded, count: count), builder.takeNodes())
        }
        let text = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count + unescaped.count)
        // A non-empty buffer's base address is never nil.
        // swift-format-ignore: NeverForceUnwrap
        text.baseAddress!.initialize(from: padded, count: count)
        _ = UnsafeMutableBufferPointer(rebasing: text[count...]).initialize(from: unescaped)
        padded.deallocate()
        return (text, builder.takeNodes())
    }

    private init(text: UnsafeMutableBufferPointer<UInt8>, nodes: UnsafeMutableBufferPointer<Node>) {
        self.text = text
        self.nodes = nodes
    }

    /// A document over copies of `bytes` (its text, unescaped strings after it) and `source` (its tape).
    init(copying bytes: [UInt8], nodes source: [Node]) {
        text = .allocate(capacity: max(1, bytes.count))
        _ = text.initialize(from: bytes)
        nodes = .allocate(capacity: source.count)
        _ = nodes.initialize(from: source)
    }

    deinit {
        text.deallocate()
        nodes.deallocate()
    }

    /// A document holding `null`.
    public static let null = JSONDocument(
        copying: Array("null".utf8), nodes: [Node(kind: .null, flag: false, start: 0, end: 4, next: 1, count: 0)])

    /// The top-level value.
    public var root: JSONNode { JSONNode(document: self, index: 0) }

    // MARK: Index-based access, for hot loops that hold the document once (no per-node reference counting).

    /// The kind of the value at node `index`.
    @inlinable @inline(__always) public func kind(at index: Int) -> JSONKind { nodes[index].kind }

    /// The boolean at node `index`, if it is one.
    @inlinable public func bool(at index: Int) -> Bool? { nodes[index].kind == .bool ? nodes[index].flag : nil }

    /// Elements or members of the container at `index`.
    @inlinable @inline(__always) public func count(at index: Int) -> Int { Int(nodes[index].count) }

    /// The node after the subtree at `index` (the next sibling, inside a container).
    @inlinable @inline(__always) public func next(after index: Int) -> Int { Int(nodes[index].next) }

    /// The UTF-8 of the string content or number text at `index` (empty otherwise). The buffer is valid only
    /// while this document is alive: keep a reference for as long as you use it.
    @inlinable @inline(__always) public func unsafeUTF8(at index: Int) -> UnsafeBufferPointer<UInt8> {
        let n = nodes[index]
        guard n.kind == .string || n.kind == .number else { return UnsafeBufferPointer(start: nil, count: 0) }
        // A non-empty buffer's base address is never nil.
        // swift-format-ignore: NeverForceUnwrap
        return UnsafeBufferPointer(start: text.baseAddress! + Int(n.start), count: Int(n.end - n.start))
    }

    /// True when the string at `index` has exactly the bytes `key`.
    @inlinable @inline(__always) public func string(at index: Int, equals key: UnsafeBufferPointer<UInt8>) -> Bool {
        let own = unsafeUTF8(at: index)
        guard own.count == key.count else { return false }
        guard let ownBase = own.baseAddress, let keyBase = key.baseAddress else { return own.count == 0 }
        return memcmpEqual(ownBase, keyBase, own.count)
    }

    /// The value index of the member `key` of the object at `index`, or nil.
    @inlinable public func member(of index: Int, utf8 key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard nodes[index].kind == .object else { return nil }
        var keyIndex = index + 1
        for _ in 0..<Int(nodes[index].count) {
            if string(at: keyIndex, equals: key) { return keyIndex + 1 }
            keyIndex = Int(nodes[keyIndex + 1].next)
        }
        return nil
    }

    /// A node view of `index`.
    @inlinable public func node(at index: Int) -> JSONNode { JSONNode(document: self, index: index) }
}

/// A read-only view of one value inside a ``JSONDocument``.
public struct JSONNode: Sendable {
    /// The document holding the value.
    public let document: JSONDocument
    /// The node's position in its document (see the index-based accessors of ``JSONDocument``).
    public let index: Int

    @usableFromInline init(document: JSONDocument, index: Int) {
        self.document = document
        self.index = index
    }

    @inlinable var node: JSONDocument.Node { document.nodes[index] }

    /// The value's kind.
    @inlinable public var kind: JSONKind { node.kind }

    /// The boolean, when this is `true`/`false`.
    @inlinable public var boolValue: Bool? { node.kind == .bool ? node.flag : nil }

    /// The UTF-8 bytes of a string's content or a number's text (empty for other kinds). Valid while the
    /// document lives; ``withUTF8(_:)`` keeps it alive for the duration of a closure.
    @inlinable var utf8: UnsafeBufferPointer<UInt8> {
        let n = node
        guard n.kind == .string || n.kind == .number else { return UnsafeBufferPointer(start: nil, count: 0) }
        // A non-empty buffer's base address is never nil.
        // swift-format-ignore: NeverForceUnwrap
        return UnsafeBufferPointer(start: document.text.baseAddress! + Int(n.start), count: Int(n.end - n.start))
    }

    /// Calls `body` with the UTF-8 bytes of a string's content (unescaped) or a number's literal text;
    /// with an empty buffer for other kinds.
    @inlinable
    public func withUTF8<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try withExtendedLifetime(document) { () throws(E) -> R in try body(utf8) }
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        guard node.kind == .string else { return nil }
        return withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// The literal text, when this is a number.
    public var numberText: String? {
        guard node.kind == .number else { return nil }
        return withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// Length in bytes of this value's source text (containers: brackets included).
    @inlinable public var sourceLength: Int { Int(node.end - node.start) }

    /// Number of elements (array) or members (object); 0 otherwise.
    @inlinable public var count: Int { Int(node.count) }

    /// The elements of an array (empty for other kinds).
    @inlinable public var elements: JSONElements {
        JSONElements(document: document, first: index + 1, count: node.kind == .array ? Int(node.count) : 0)
    }

    /// The members of an object (empty for other kinds).
    @inlinable public var members: JSONMembers {
        JSONMembers(document: document, first: index + 1, count: node.kind == .object ? Int(node.count) : 0)
    }

    /// True when this string's content equals `bytes`.
    @inlinable public func equals(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        withExtendedLifetime(document) {
            let own = utf8
            guard own.count == bytes.count else { return false }
            guard let ownBase = own.baseAddress, let otherBase = bytes.baseAddress else { return own.count == 0 }
            return memcmpEqual(ownBase, otherBase, own.count)
        }
    }

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONNode? {
        var key = key
        return key.withUTF8 { member(utf8: $0) }
    }

    /// The member named by a literal key when this is an object.
    @inlinable public func member(_ key: StaticString) -> JSONNode? {
        member(utf8: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
    }

    /// The member whose key is `key` (UTF-8) when this is an object.
    @inlinable public func member(utf8 key: UnsafeBufferPointer<UInt8>) -> JSONNode? {
        for (k, v) in members where k.equals(utf8: key) { return v }
        return nil
    }

    /// Converts to an owned ``JSONValue`` tree.
    public var value: JSONValue {
        switch node.kind {
        case .null: return .null
        case .bool: return .bool(node.flag)
        case .number: return .number(numberText ?? "")
        case .string: return .string(stringValue ?? "")
        case .array: return .array(elements.map(\.value))
        case .object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(count)
            for (key, value) in self.members {
                members.append(JSONObject.Member(key: key.stringValue ?? "", value: value.value))
            }
            return .object(JSONObject(members: members))
        }
    }

    /// A one-word name of the value's kind, for error messages.
    public var kindName: String { JSONValue.kindName(of: node.kind) }
}

@inlinable func memcmpEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var i = 0
    while i + 8 <= count {
        if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
            != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self)
        {
            return false
        }
        i += 8
    }
    while i < count {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}

/// The elements of a JSON array, in order.
public struct JSONElements: Sequence, Sendable {
    @usableFromInline let document: JSONDocument
    @usableFromInline let first: Int
    /// Number of elements.
    public let count: Int

    @usableFromInline init(document: JSONDocument, first: Int, count: Int) {
        self.document = document
        self.first = first
        self.count = count
    }

    /// Iterates the elements.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var cursor: SiblingCursor

        @usableFromInline init(document: JSONDocument, position: Int, remaining: Int) {
            cursor = SiblingCursor(document: document, position: position, remaining: remaining, keyed: false)
        }

        /// The next element.
        @inlinable public mutating func next() -> JSONNode? {
            cursor.next().map { JSONNode(document: cursor.document, index: $0) }
        }
    }

    /// An iterator from the first element.
    @inlinable public func makeIterator() -> Iterator {
        Iterator(document: document, position: first, remaining: count)
    }
}

/// The members of a JSON object, in document order: (key node, value node).
public struct JSONMembers: Sequence, Sendable {
    @usableFromInline let document: JSONDocument
    @usableFromInline let first: Int
    /// Number of members.
    public let count: Int

    @usableFromInline init(document: JSONDocument, first: Int, count: Int) {
        self.document = document
        self.first = first
        self.count = count
    }

    /// Iterates the members.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var cursor: SiblingCursor

        @usableFromInline init(document: JSONDocument, position: Int, remaining: Int) {
            cursor = SiblingCursor(document: document, position: position, remaining: remaining, keyed: true)
        }

        /// The next member.
        @inlinable public mutating func next() -> (key: JSONNode, value: JSONNode)? {
            cursor.next().map {
                (JSONNode(document: cursor.document, index: $0), JSONNode(document: cursor.document, index: $0 + 1))
            }
        }
    }

    /// An iterator from the first member.
    @inlinable public func makeIterator() -> Iterator {
        Iterator(document: document, position: first, remaining: count)
    }
}

/// Walks the children of one container: elements, or members (a key node followed by its value).
@usableFromInline struct SiblingCursor {
    @usableFromInline let document: JSONDocument
    @usableFromInline var position: Int
    @usableFromInline var remaining: Int
    /// Members: each child is a key node and then its value's subtree.
    @usableFromInline let keyed: Bool

    @usableFromInline init(document: JSONDocument, position: Int, remaining: Int, keyed: Bool) {
        self.document = document
        self.position = position
        self.remaining = remaining
        self.keyed = keyed
    }

    /// The node index of the next child (its key, for members), or nil after the last.
    @inlinable mutating func next() -> Int? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        let current = position
        position = Int(document.nodes[keyed ? current + 1 : current].next)
        return current
    }
}
