/// Parses the arguments after a leaf command's name against its ``LeafSpec``.
///
/// Rules:
/// - `--flag value` and `--flag=value` for options, `--flag` for switches; flags may come before
///   or after positionals; `--` ends the flags (everything after is positional).
/// - `-` alone is a positional (standard input).
/// - `-h` or `--help` anywhere among the flags asks for help, even if other arguments are wrong.
/// - An option's value is the next argument unless that is one of the command's flags (or
///   `-h`/`--help`): `--text --hex 0x00` is a missing value. Use `--text=--hex` for such values.
/// - An undeclared flag, a switch given a value, an option without a value, a non-repeatable
///   flag given twice, too many or too few positionals: a usage error (exit status 65).
///
/// Error messages never echo an argument that looks like a private key (see
/// ``TextSafety/displayArgument(_:)``); option values are never echoed at all.
enum ArgumentParser {
    /// What the arguments ask for.
    enum Outcome: Sendable {
        /// `--help` or `-h`.
        case help
        /// Run with these options.
        case run(ParsedOptions)
    }

    /// Parses `arguments` for the command at `commandPath`.
    static func parse(_ arguments: [String], spec: LeafSpec, commandPath: [String]) throws(CommandFailure) -> Outcome {
        if wantsHelp(arguments, spec: spec) { return .help }
        var options = ParsedOptions(commandPath: commandPath, declared: Set(spec.flags.map(\.name)))
        var index = 0
        var flagsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !flagsEnded, argument == "--" {
                flagsEnded = true
                continue
            }
            guard !flagsEnded, argument.hasPrefix("-"), argument != "-" else {
                guard options.positionals.count < spec.positionals.count else {
                    throw .usage(unexpectedArgumentMessage(argument, spec: spec), command: commandPath)
                }
                options.add(positional: argument)
                continue
            }
            let (name, inlineValue) = split(argument)
            guard let flag = spec.flag(named: name) else {
                throw .usage("unknown option \(TextSafety.displayArgument(name))", command: commandPath)
            }
            let value: String
            if flag.takesValue {
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count, !isDeclaredFlag(arguments[index], spec: spec) else {
                        throw .usage("missing value for \(flag.name)", command: commandPath)
                    }
                    value = arguments[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else {
                    throw .usage("\(flag.name) does not take a value", command: commandPath)
                }
                value = ""
            }
            guard flag.repeatable || !options.has(flag.name) else {
                throw .usage("\(flag.name) given more than once", command: commandPath)
            }
            options.add(flag: flag.name, value: value)
        }
        if let missing = spec.positionals.dropFirst(options.positionals.count).first(where: { !$0.isOptional }) {
            throw .usage("missing \(missing.name)", command: commandPath)
        }
        return .run(options)
    }

    /// Whether `-h`/`--help` appears as a flag (not as the `--opt=value` value of an option, not
    /// after `--`).
    static func wantsHelp(_ arguments: [String], spec: LeafSpec) -> Bool {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" { return false }
            if isHelp(argument) { return true }
            if argument.hasPrefix("-"), !argument.contains("="), spec.flag(named: argument)?.takesValue == true,
                index < arguments.count, !isDeclaredFlag(arguments[index], spec: spec)
            {
                index += 1
            }
        }
        return false
    }

    /// `-h` or `--help`.
    static func isHelp(_ argument: String) -> Bool { argument == "-h" || argument == "--help" }

    /// `--name=value` → (`--name`, `value`); `--name` → (`--name`, nil).
    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// Whether `argument` is one of the command's flags (so it cannot be another flag's value).
    private static func isDeclaredFlag(_ argument: String, spec: LeafSpec) -> Bool {
        isHelp(argument) || spec.flag(named: split(argument).name) != nil
    }

    /// `unexpected argument X` (the value redacted if it looks like a key).
    private static func unexpectedArgumentMessage(_ argument: String, spec: LeafSpec) -> String {
        let shown = TextSafety.displayArgument(argument)
        if spec.positionals.isEmpty {
            return "unexpected argument \(shown): this command takes no positional arguments"
        }
        return "unexpected argument \(shown): only \(spec.positionals.map(\.name).joined(separator: " ")) is accepted"
    }
}
