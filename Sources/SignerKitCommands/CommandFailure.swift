/// Why a command stopped: the one-line message printed as `error: <message>` and the exit status.
///
/// Messages name the problem and where it is (a file path, a flag, a JSON path) and never contain
/// key material; ``SignerKitCommandLine`` turns every control character into an escape so the
/// message stays on one line.
struct CommandFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text after `error: `.
    var message: String
    /// The exit status to return.
    var exitCode: ExitCode
    /// Lines printed on stderr before the `error:` line (e.g. `broadcast: action[0] 0x…` for every
    /// transaction already sent when a batch failed).
    var notes: [String] = []

    /// Invalid input: exit status 65.
    static func invalidInput(_ message: String) -> CommandFailure {
        CommandFailure(message: message, exitCode: .invalidInput)
    }

    /// A command-line usage mistake (unknown flag, missing argument); adds a pointer to the help
    /// of `command`. Exit status 65.
    static func usage(_ message: String, command: [String]) -> CommandFailure {
        let name = command.joined(separator: " ")
        return CommandFailure(message: "\(message); see \"\(name) --help\"", exitCode: .invalidInput)
    }

    /// A well-formed request that could not be completed (for example a key backend failure):
    /// exit status 1.
    static func failure(_ message: String) -> CommandFailure {
        CommandFailure(message: message, exitCode: .failure)
    }

    /// The same failure with `notes` printed before its `error:` line.
    func noting(_ notes: [String]) -> CommandFailure {
        var copy = self
        copy.notes = notes + copy.notes
        return copy
    }

    /// The message.
    var description: String { message }
}
