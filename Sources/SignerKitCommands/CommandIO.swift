import Foundation
import SignerKitSupport
import Synchronization

/// The outside world of a command: standard input, standard output, standard error and the
/// environment.
///
/// ``SignerKitCommandLine/main()`` uses ``StandardCommandIO``; tests pass an in-memory
/// implementation to ``SignerKitCommandLine/run(_:io:)`` and inspect what was written. Commands
/// never touch the process's stdio directly. Files named on the command line are read from the
/// file system, not through this protocol.
public protocol CommandIO: Sendable {
    /// Reads standard input to its end (after any lines already taken by
    /// ``readStandardInputLine()``).
    func readStandardInput() throws -> [UInt8]

    /// The next line of standard input without its `\n`, or `nil` at the end. A last line without
    /// a terminator is still returned.
    func readStandardInputLine() throws -> [UInt8]?

    /// Writes `text` to standard output as is (callers add the newline).
    func writeStandardOutput(_ text: String)

    /// Writes `text` to standard error as is (callers add the newline).
    func writeStandardError(_ text: String)

    /// The environment variables.
    var environment: [String: String] { get }

    /// Whether ``readStandardInputLine()`` can return its next line (or the end) without waiting for
    /// more input. Line-by-line commands hand the lines read so far to their workers before a read that
    /// would wait, so results stream out as input trickles in.
    func hasBufferedStandardInputLine() -> Bool
}

extension CommandIO {
    /// `true`: an input that cannot tell is treated as always ready, so work is handed out in full chunks.
    public func hasBufferedStandardInputLine() -> Bool { true }
}

/// Why standard input could not be read.
public struct StandardInputError: Error, Sendable, CustomStringConvertible {
    /// The `errno` text.
    public let reason: String

    /// `read failed: <reason>`.
    public var description: String { "read failed: \(reason)" }
}

/// The process's real file descriptors 0, 1 and 2 and its environment.
///
/// Output is written with `write(2)` straight away (no buffering), so nothing is lost when the
/// process exits. Reading is safe from several tasks; lines and whole-input reads share one
/// buffer.
public final class StandardCommandIO: CommandIO {
    private struct InputState {
        var buffer: [UInt8] = []
        var start = 0
        var atEnd = false
    }

    private let input = Mutex(InputState())

    /// The process environment, captured at creation.
    public let environment: [String: String]

    /// Wraps the current process's stdio.
    public init() {
        environment = ProcessInfo.processInfo.environment
    }

    /// Reads fd 0 to its end.
    public func readStandardInput() throws -> [UInt8] {
        try input.withLock { (state: inout InputState) throws(StandardInputError) -> [UInt8] in
            while !state.atEnd { try Self.fill(&state) }
            let rest = Array(state.buffer[state.start...])
            state.buffer = []
            state.start = 0
            return rest
        }
    }

    /// Whether the buffer already holds a whole line, or fd 0 has ended.
    public func hasBufferedStandardInputLine() -> Bool {
        input.withLock { state in state.atEnd || state.buffer[state.start...].contains(0x0A) }
    }

    /// Reads fd 0 up to the next newline.
    public func readStandardInputLine() throws -> [UInt8]? {
        try input.withLock { (state: inout InputState) throws(StandardInputError) -> [UInt8]? in
            var searchFrom = state.start
            while true {
                if let newline = state.buffer[searchFrom...].firstIndex(of: 0x0A) {
                    let line = Array(state.buffer[state.start..<newline])
                    state.start = newline + 1
                    if state.start > 65_536 {
                        state.buffer.removeSubrange(0..<state.start)
                        state.start = 0
                    }
                    return line
                }
                if state.atEnd {
                    guard state.start < state.buffer.count else { return nil }
                    let line = Array(state.buffer[state.start...])
                    state.buffer = []
                    state.start = 0
                    return line
                }
                searchFrom = state.buffer.count
                try Self.fill(&state)
            }
        }
    }

    /// Writes to fd 1.
    public func writeStandardOutput(_ text: String) { Self.write(text, to: STDOUT_FILENO) }

    /// Writes to fd 2.
    public func writeStandardError(_ text: String) { Self.write(text, to: STDERR_FILENO) }

    /// Appends one read(2) of up to 64 KiB to the buffer, or marks the end.
    private static func fill(_ state: inout InputState) throws(StandardInputError) {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        switch chunk.withUnsafeMutableBytes({ POSIXIO.readOnce(STDIN_FILENO, into: $0) }) {
        case .success(0): state.atEnd = true
        case .success(let count): state.buffer.append(contentsOf: chunk[0..<count])
        case .failure(let error): throw StandardInputError(reason: error.description)
        }
    }

    /// Writes all bytes, retrying short writes; gives up silently if the descriptor is closed.
    private static func write(_ text: String, to descriptor: Int32) {
        _ = POSIXIO.writeAll(text, to: descriptor)
    }
}
