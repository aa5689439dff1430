import Foundation
import SignerKit

/// The `signerkit` command line: argument dispatch, error reporting and exit statuses.
///
/// The commands themselves are declared in `CommandRegistry.swift`.
public enum SignerKitCommandLine {
    /// Runs `signerkit` with the process's arguments and stdio, then exits with the status from
    /// ``run(_:io:)``.
    public static func main() -> Never {
        let io = StandardCommandIO()
        // Before anything else: no core dump of this process may hold a key, password or PIN.
        do { try ProcessHardening.disableCoreDumps() } catch { exit(report(error, io: io).rawValue) }
        // A fatal signal ends the process, with no crash report that could hold memory contents.
        FatalSignals.install(environment: ProcessInfo.processInfo.environment)
        PKCS11Options.reinitializesModule.store(true, ordering: .relaxed)
        if let message = RawArguments.invalidUTF8Message(RawArguments.current) {
            exit(report(.invalidInput(message), io: io).rawValue)
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        Task {
            let status = await run(arguments, io: io)
            exit(status)
        }
        dispatchMain()
    }

    /// Runs one invocation: `arguments` are what follows the program name.
    ///
    /// Returns the exit status (see ``ExitCode``). On invalid input exactly one line,
    /// `error: <problem>`, goes to `io`'s stderr and nothing to its stdout. With no arguments the
    /// top-level usage goes to stderr (status 65); `--help`/`-h` on any command prints its usage to
    /// stdout (status 0).
    public static func run(_ arguments: [String], io: any CommandIO) async -> Int32 {
        await dispatch(arguments, io: io).rawValue
    }

    /// Walks the command tree, parses the leaf's arguments and runs its handler.
    static func dispatch(_ arguments: [String], io: any CommandIO) async -> ExitCode {
        // A key pasted into an argument never reaches stderr, however a message quotes it.
        let io: any CommandIO =
            ArgumentRedactor(arguments: arguments).map { RedactingCommandIO(base: io, redactor: $0) } ?? io
        var command = CommandRegistry.root
        var path = [command.name]
        var rest = arguments[...]
        if rest.isEmpty {
            io.writeStandardError(Usage.text(for: command, path: path))
            return .invalidInput
        }
        if rest == ["--version"] {
            io.writeStandardOutput("signerkit \(SignerKitVersion.current)\n")
            return .success
        }
        while case .group(let subcommands) = command.body {
            guard let word = rest.first else {
                let names = subcommands.map(\.name).joined(separator: ", ")
                return report(.usage("missing command: one of \(names)", command: path), io: io)
            }
            if ArgumentParser.isHelp(word) {
                io.writeStandardOutput(Usage.text(for: command, path: path))
                return .success
            }
            if word.hasPrefix("-") {
                return report(.usage("unknown option \(TextSafety.displayArgument(word))", command: path), io: io)
            }
            guard let next = command.subcommand(named: word) else {
                return report(.usage("unknown command \(TextSafety.displayArgument(word))", command: path), io: io)
            }
            command = next
            path.append(next.name)
            rest = rest.dropFirst()
        }
        guard case .leaf(let spec) = command.body else { return .invalidInput }
        do {
            switch try ArgumentParser.parse(Array(rest), spec: spec, commandPath: path) {
            case .help:
                io.writeStandardOutput(Usage.text(for: command, path: path))
                return .success
            case .run(let options):
                return try await spec.handler(CommandContext(io: io, options: options, commandPath: path))
            }
        } catch {
            return report(error, io: io)
        }
    }

    /// Prints the failure's notes, then `error: <message>` as one line on stderr, and returns the failure's
    /// status.
    static func report(_ failure: CommandFailure, io: any CommandIO) -> ExitCode {
        for note in failure.notes { io.writeStandardError("\(TextSafety.singleLine(note))\n") }
        io.writeStandardError("error: \(TextSafety.singleLine(failure.message))\n")
        return failure.exitCode
    }
}
