extension JSONNode {
    /// Calls `body` with an object's or array's source text exactly as it appeared in the input, brackets
    /// included (``sourceLength`` bytes); for other kinds, as ``withUTF8(_:)``. Two containers with the
    /// same source bytes are the same value (the converse does not hold: whitespace, key order, escapes).
    @inlinable
    public func withSourceUTF8<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        let n = node
        guard n.kind == .object || n.kind == .array else { return try withUTF8(body) }
        return try withExtendedLifetime(document) { () throws(E) -> R in
            guard let base = document.text.baseAddress, n.end > n.start else {
                return try body(UnsafeBufferPointer(start: nil, count: 0))
            }
            return try body(UnsafeBufferPointer(start: base + Int(n.start), count: Int(n.end - n.start)))
        }
    }
}
