/// The text rules signed notes and checkpoints share (C2SP signed-note): lines end in U+000A, no other ASCII
/// control character, key names without spaces or `+`, decimal numbers without leading zeros.
///
/// Everything here reads UTF-8 bytes, never `Character`s: a newline is the byte 0x0A even when a combining
/// mark follows it, and two names are the same only when their bytes are (Swift's `==` on strings compares
/// canonically equivalent spellings as equal, but a key ID hashes the bytes).
enum NoteText {
    /// The lines of `text`, which ends in a newline: split at every U+000A, without the empty piece after the
    /// last one.
    static func lines(_ text: String) -> [Substring] {
        var lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// Whether `text` holds an ASCII control character (below U+0020, the newline included).
    static func hasControlCharacter(_ text: some StringProtocol) -> Bool {
        text.utf8.contains { $0 < 0x20 }
    }

    /// Whether `name` is a key name: non-empty, with no Unicode space, no `+` (U+002B) and no control
    /// character.
    static func isKeyName(_ name: some StringProtocol) -> Bool {
        !name.isEmpty
            && !name.unicodeScalars.contains { $0.properties.isWhitespace || $0 == "+" || $0.value < 0x20 }
    }

    /// Whether two texts are the same bytes.
    static func sameBytes(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    /// The UTF-8 `digits` as a non-negative ASCII decimal number without leading zeros (`0` alone is zero)
    /// that fits an `Int64`, or `nil`.
    static func decimal(_ digits: some Collection<UInt8>) -> Int64? {
        guard let first = digits.first, first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        var value: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }
}
