extension JSONDocument {
    /// The document of `value` built in one walk: its compact text (byte for byte ``JSONValue/serialized``)
    /// and the tape the parser would build over that text, without parsing it. `nil` when the walk meets
    /// what the parser refuses (a number that is not a JSON number, a repeated key, nesting past its limit):
    /// the caller then parses the text, which refuses it the same way.
    convenience init?(building value: JSONValue) {
        var builder = JSONValueTape()
        guard builder.append(value, depth: 1) else { return nil }
        self.init(copying: builder.finishedText(), nodes: builder.nodes)
    }
}

/// The text and tape of a ``JSONValue``, as ``JSONDocument``'s parser would lay them out.
private struct JSONValueTape {
    var text: [UInt8] = []
    /// Unescaped contents of strings that needed escapes; their nodes point past the text's end.
    var unescaped: [UInt8] = []
    var nodes: [JSONDocument.Node] = []
    /// Nodes whose range is in ``unescaped`` (offset from its start until the text's length is known).
    var nodesInUnescaped: [Int] = []

    init() {
        text.reserveCapacity(512)
        nodes.reserveCapacity(64)
    }

    /// The text, then the unescaped strings, with the nodes that point there moved past the text.
    mutating func finishedText() -> [UInt8] {
        guard !unescaped.isEmpty else { return text }
        let shift = Int32(text.count)
        for index in nodesInUnescaped {
            nodes[index].start += shift
            nodes[index].end += shift
        }
        return text + unescaped
    }

    private mutating func scalar(_ kind: JSONKind, start: Int, end: Int, flag: Bool = false) {
        nodes.append(
            JSONDocument.Node(
                kind: kind, flag: flag, start: Int32(start), end: Int32(end), next: Int32(nodes.count + 1), count: 0))
    }

    /// Appends `value` at nesting `depth`; false when the parser would refuse it.
    mutating func append(_ value: JSONValue, depth: Int) -> Bool {
        switch value {
        case .null:
            let start = text.count
            text.append(contentsOf: "null".utf8)
            scalar(.null, start: start, end: text.count)
        case .bool(let flag):
            let start = text.count
            text.append(contentsOf: (flag ? "true" : "false").utf8)
            scalar(.bool, start: start, end: text.count, flag: flag)
        case .number(let literal):
            guard Self.isJSONNumber(literal) else { return false }
            let start = text.count
            text.append(contentsOf: literal.utf8)
            scalar(.number, start: start, end: text.count)
        case .string(let string):
            appendString(string)
        case .array(let elements):
            return appendContainer(.array, depth: depth, count: elements.count) { tape in
                for (position, element) in elements.enumerated() {
                    if position > 0 { tape.text.append(UInt8(ascii: ",")) }
                    guard tape.append(element, depth: depth + 1) else { return false }
                }
                return true
            }
        case .object(let object):
            guard !Self.hasRepeatedKey(object) else { return false }
            return appendContainer(.object, depth: depth, count: object.count) { tape in
                for (position, member) in object.members.enumerated() {
                    if position > 0 { tape.text.append(UInt8(ascii: ",")) }
                    tape.appendString(member.key)
                    tape.text.append(UInt8(ascii: ":"))
                    guard tape.append(member.value, depth: depth + 1) else { return false }
                }
                return true
            }
        }
        return true
    }

    private mutating func appendContainer(
        _ kind: JSONKind, depth: Int, count: Int, _ contents: (inout JSONValueTape) -> Bool
    ) -> Bool {
        guard depth <= JSONTapeBuilder.maximumDepth else { return false }
        let index = nodes.count
        let start = text.count
        nodes.append(
            JSONDocument.Node(kind: kind, flag: false, start: Int32(start), end: 0, next: 0, count: Int32(count)))
        text.append(kind == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        guard contents(&self) else { return false }
        text.append(kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        nodes[index].end = Int32(text.count)
        nodes[index].next = Int32(nodes.count)
        return true
    }

    /// A string as ``JSONValue/serialized`` writes it; the node covers its content, or an unescaped copy.
    private mutating func appendString(_ string: String) {
        let quote = text.count
        JSONValue.writeString(string, into: &text)
        let length = string.utf8.count
        if text.count - quote == length + 2 {
            scalar(.string, start: quote + 1, end: quote + 1 + length)
        } else {
            let start = unescaped.count
            unescaped.append(contentsOf: string.utf8)
            nodesInUnescaped.append(nodes.count)
            scalar(.string, start: start, end: unescaped.count)
        }
    }

    /// Objects up to this size are checked pair by pair, larger ones through a set (as the parser does).
    static let linearKeyCheckLimit = 16

    /// True when two keys have the same UTF-8 bytes (what the parser compares). Past the linear limit a set
    /// of `String`s answers, which also counts canonically equivalent keys: the caller then parses the text,
    /// which decides exactly.
    static func hasRepeatedKey(_ object: JSONObject) -> Bool {
        let members = object.members
        if members.count <= linearKeyCheckLimit {
            for i in members.indices {
                let key = members[i].key.utf8
                for j in members.indices where j > i {
                    let other = members[j].key.utf8
                    if key.count == other.count && key.elementsEqual(other) { return true }
                }
            }
            return false
        }
        var seen: Set<String> = []
        return !members.allSatisfy { seen.insert($0.key).inserted }
    }

    /// RFC 8259's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    static func isJSONNumber(_ literal: String) -> Bool {
        var bytes = literal.utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 &- 0x30 < 10 }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        if bytes.first == UInt8(ascii: "0") {
            bytes = bytes.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if let e = bytes.first, e | 0x20 == UInt8(ascii: "e") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                bytes = bytes.dropFirst()
            }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
