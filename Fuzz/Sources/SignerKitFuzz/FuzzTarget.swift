/// One libFuzzer entry point: a parser of untrusted input and the properties its result must have.
struct FuzzTarget: Sendable {
    /// The name `scripts/fuzz.sh` runs it by; also its corpus folder (`Fuzz/Corpus/NAME`).
    let name: String
    /// What it feeds and what it checks, for `--list`.
    let summary: String
    /// Runs one input; a broken property stops the process through ``FuzzCheck``.
    let run: @Sendable ([UInt8]) -> Void
}

/// Properties a fuzz target asserts: a failure prints what broke and traps, which libFuzzer reports as a
/// crash and saves the input as a reproducer.
enum FuzzCheck {
    /// The longest `description` an error built from untrusted input may have: errors quote input abbreviated.
    static let maxDescriptionLength = 2_000

    /// Traps with `message` when `condition` is false.
    static func expect(
        _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
    ) {
        if !condition { fatalError("fuzz property failed: \(message())", file: file, line: line) }
    }

    /// Checks that `error` (any value shown to users) describes itself in bounded text, whatever the input.s size.
    static func boundedDescription(
        _ error: Any, file: StaticString = #fileID, line: UInt = #line
    ) {
        let text = String(describing: error)
        expect(
            text.utf8.count <= maxDescriptionLength,
            "an error description of \(text.utf8.count) bytes: \(text.prefix(200))…", file: file, line: line)
    }

    /// A fixed value a target feeds alongside its input; a constant that does not build is a bug in the target.
    static func constant<T>(_ what: String, _ build: () throws -> T?) -> T {
        guard let value = try? build() else { fatalError("fuzz target constant \(what) does not build") }
        return value
    }

    /// The input as text when it is valid UTF-8 (parsers of `String` are fed only valid text).
    static func text(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }
}
