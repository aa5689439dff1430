/// A `signerkit` command: a group of subcommands (`typed-data`) or a leaf that runs (`typed-data hash`).
///
/// Commands are values: each command file declares one (see `CommandRegistry.swift` for how to
/// add one). The parser, `--help` output and error messages are derived from the declaration, so
/// a command only states its flags, positionals and help text, and implements its handler.
struct Command: Sendable {
    /// What a command does when invoked.
    enum Body: Sendable {
        /// Dispatches to one of these by the next argument.
        case group([Command])
        /// Parses the remaining arguments against the spec and runs the handler.
        case leaf(LeafSpec)
    }

    /// The word typed on the command line, e.g. `hash`.
    let name: String
    /// One line for the parent's command list and the top of this command's help.
    let summary: String
    /// Extra help paragraphs (may be empty), already wrapped to about 90 columns.
    let details: String
    /// Group or leaf.
    let body: Body

    /// A group of subcommands.
    static func group(_ name: String, summary: String, details: String = "", subcommands: [Command]) -> Command {
        Command(name: name, summary: summary, details: details, body: .group(subcommands))
    }

    /// A runnable command.
    ///
    /// - Parameters:
    ///   - synopsis: what follows the command name in the `Usage:` line; by default
    ///     `[options]` and the positionals.
    ///   - flags: every flag the command accepts (`--help`/`-h` is implicit).
    ///   - positionals: the positional arguments, in order; optional ones must come last.
    ///   - run: the handler; it reads ``CommandContext/options`` and writes through
    ///     ``CommandContext/io``.
    static func leaf(
        _ name: String, summary: String, details: String = "", synopsis: String? = nil,
        flags: [FlagSpec] = [], positionals: [PositionalSpec] = [],
        run: @escaping CommandHandler
    ) -> Command {
        Command(
            name: name, summary: summary, details: details,
            body: .leaf(LeafSpec(synopsis: synopsis, flags: flags, positionals: positionals, handler: run)))
    }

    /// The subcommand called `name`, if this is a group.
    func subcommand(named name: String) -> Command? {
        guard case .group(let subcommands) = body else { return nil }
        return subcommands.first { $0.name == name }
    }
}

/// Runs a leaf command. Throwing a ``CommandFailure`` prints `error: <message>` to stderr and
/// exits with its status; the handler must not have written to stdout in that case.
typealias CommandHandler = @Sendable (CommandContext) async throws(CommandFailure) -> ExitCode

/// How a leaf command is invoked.
struct LeafSpec: Sendable {
    /// Custom `Usage:` text after the command name, or `nil` for the default.
    let synopsis: String?
    /// Accepted flags.
    let flags: [FlagSpec]
    /// Positional arguments in order.
    let positionals: [PositionalSpec]
    /// The code that runs.
    let handler: CommandHandler

    /// The declared flag called `name` (`--key-file`).
    func flag(named name: String) -> FlagSpec? { flags.first { $0.name == name } }
}

/// One `--flag`, either a switch (`--json`) or an option with a value (`--key-file FILE`,
/// also written `--key-file=FILE`).
struct FlagSpec: Sendable, Equatable {
    /// The full name including dashes, e.g. `--key-file`.
    let name: String
    /// The placeholder shown in help (`FILE`) for an option; `nil` for a switch.
    let valueName: String?
    /// Whether the flag may be given more than once (values accumulate in order).
    let repeatable: Bool
    /// One line of help.
    let help: String

    /// Whether the flag takes a value.
    var takesValue: Bool { valueName != nil }

    /// A flag with a value, e.g. `.option("--key-file", value: "FILE", help: "…")`.
    static func option(_ name: String, value: String, repeatable: Bool = false, help: String) -> FlagSpec {
        FlagSpec(name: name, valueName: value, repeatable: repeatable, help: help)
    }

    /// A switch without a value, e.g. `.flag("--json", help: "…")`.
    static func flag(_ name: String, help: String) -> FlagSpec {
        FlagSpec(name: name, valueName: nil, repeatable: false, help: help)
    }
}

/// One positional argument.
struct PositionalSpec: Sendable, Equatable {
    /// The placeholder shown in help, e.g. `FILE|-`.
    let name: String
    /// One line of help.
    let help: String
    /// Whether it may be omitted.
    let isOptional: Bool

    /// A positional argument.
    static func positional(_ name: String, optional: Bool = false, help: String) -> PositionalSpec {
        PositionalSpec(name: name, help: help, isOptional: optional)
    }
}

/// What a handler gets: the parsed arguments and the stdio to use.
struct CommandContext: Sendable {
    /// Where input comes from and output goes.
    let io: any CommandIO
    /// The parsed flags and positionals.
    let options: ParsedOptions
    /// The full command, e.g. `["signerkit", "typed-data", "hash"]`, for messages.
    let commandPath: [String]

    /// Writes `line` and a newline to stdout.
    func printLine(_ line: String) {
        io.writeStandardOutput(line + "\n")
    }

    /// A usage failure pointing at this command's `--help`.
    func usageError(_ message: String) -> CommandFailure {
        .usage(message, command: commandPath)
    }
}
