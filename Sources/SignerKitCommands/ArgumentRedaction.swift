import EthereumPrimitives
import Foundation

/// The last line of defence against echoing a private key pasted on the command line: every run
/// of 64 or more hex digits written to standard error that shares 64 consecutive digits (in any
/// letter case) with a hex run of the arguments is replaced by ``EchoedText/redactionMarker``.
///
/// Values quoted by the CLI and the libraries already go through ``EchoedText/abbreviated(_:)``,
/// which redacts every such run; this catches the messages that quote an argument some other way
/// (a `dlopen` error naming the module path, a URL inside a transport error, the `open: <url>`
/// line). Hex the program computes itself (a transaction hash in an error) stays readable unless
/// the same digits were on the command line. Standard output is never changed: results are
/// written there.
struct ArgumentRedactor: Sendable {
    /// Most 64-digit windows remembered; beyond it every long hex run on stderr is redacted.
    static let windowLimit = 65_536

    private let windows: Set<String>
    private let redactEveryRun: Bool

    /// Remembers the hex runs of `arguments`; `nil` when there are none (nothing to redact).
    init?(arguments: [String]) {
        var windows = Set<String>()
        var overflow = false
        for argument in arguments where EchoedText.containsRedactableRun(argument) {
            for run in Self.hexRuns(argument) {
                let digits = Array(run.lowercased().utf8)
                guard windows.count + digits.count - 63 <= Self.windowLimit else {
                    overflow = true
                    continue
                }
                for start in 0...(digits.count - 64) {
                    windows.insert(String(decoding: digits[start..<start + 64], as: UTF8.self))
                }
            }
        }
        guard overflow || !windows.isEmpty else { return nil }
        self.windows = windows
        redactEveryRun = overflow
    }

    /// `text` with the runs that came from the arguments redacted.
    func redact(_ text: String) -> String {
        guard EchoedText.containsRedactableRun(text) else { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var run = ""
        func flush() {
            if run.utf8.count >= 64, redactEveryRun || matches(run) {
                output += EchoedText.redactionMarker
            } else {
                output += run
            }
            run = ""
        }
        for character in text {
            if character.isASCII, character.isHexDigit {
                run.append(character)
            } else {
                flush()
                output.append(character)
            }
        }
        flush()
        return output
    }

    /// Whether some 64-digit window of `run` is one of the arguments'.
    private func matches(_ run: String) -> Bool {
        let digits = Array(run.lowercased().utf8)
        for start in 0...(digits.count - 64)
        where windows.contains(String(decoding: digits[start..<start + 64], as: UTF8.self)) {
            return true
        }
        return false
    }

    /// The maximal runs of at least 64 ASCII hex digits in `text`.
    static func hexRuns(_ text: String) -> [Substring] {
        var runs: [Substring] = []
        var start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character.isASCII, character.isHexDigit {
                if start == nil { start = index }
            } else if let begin = start {
                if text.distance(from: begin, to: index) >= 64 { runs.append(text[begin..<index]) }
                start = nil
            }
            index = text.index(after: index)
        }
        if let begin = start, text.distance(from: begin, to: text.endIndex) >= 64 {
            runs.append(text[begin...])
        }
        return runs
    }
}

/// A ``CommandIO`` whose standard error goes through an ``ArgumentRedactor``.
struct RedactingCommandIO: CommandIO {
    /// The real stdio.
    let base: any CommandIO
    /// What to redact.
    let redactor: ArgumentRedactor

    func readStandardInput() throws -> [UInt8] { try base.readStandardInput() }
    func readStandardInputLine() throws -> [UInt8]? { try base.readStandardInputLine() }
    func writeStandardOutput(_ text: String) { base.writeStandardOutput(text) }
    func writeStandardError(_ text: String) { base.writeStandardError(redactor.redact(text)) }
    var environment: [String: String] { base.environment }
}
