/// The flags and positionals of one invocation, checked against the command's ``LeafSpec``.
///
/// Reading a flag the command does not declare is a programming error (a misspelt name would read as
/// "absent" and silently drop, say, a fee cap): debug builds stop there, so a test that runs the command
/// fails, and `CommandOptionNameTests` checks every flag name the commands read against the declared ones.
struct ParsedOptions: Sendable {
    /// Values by flag name in command-line order; a switch has one empty value per occurrence.
    private(set) var values: [String: [String]] = [:]
    /// Positional arguments in order.
    private(set) var positionals: [String] = []
    /// The full command, for messages.
    let commandPath: [String]
    /// The flags the command declares (`nil`: not checked, for options built outside the parser).
    private let declared: Set<String>?

    /// Creates an empty set of options for `commandPath`, whose command declares `declared` flags.
    init(commandPath: [String], declared: Set<String>? = nil) {
        self.commandPath = commandPath
        self.declared = declared
    }

    /// Stops a debug build when `flag` is not one the command declares.
    private func checkDeclared(_ flag: String) {
        assert(
            declared?.contains(flag) ?? true, "\(commandPath.joined(separator: " ")) reads undeclared option \(flag)")
    }

    /// Records one occurrence of a flag.
    mutating func add(flag: String, value: String) { values[flag, default: []].append(value) }

    /// Records a positional argument.
    mutating func add(positional: String) { positionals.append(positional) }

    /// Whether `flag` was given.
    func has(_ flag: String) -> Bool {
        checkDeclared(flag)
        return values[flag] != nil
    }

    /// The value of a non-repeatable option, or `nil` when absent.
    func value(_ flag: String) -> String? {
        checkDeclared(flag)
        return values[flag]?.last
    }

    /// The integer value of an option, or `nil` when absent.
    ///
    /// - Throws: 65 `<flag>: expected an integer in <range>` for anything else.
    func integer(_ flag: String, in range: ClosedRange<Int64>) throws(CommandFailure) -> Int64? {
        guard let text = value(flag) else { return nil }
        guard let number = Int64(text), range.contains(number) else {
            throw .invalidInput("\(flag): expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// Every value of a repeatable option, in order.
    func allValues(_ flag: String) -> [String] {
        checkDeclared(flag)
        return values[flag] ?? []
    }

    /// The positional at `index`, or `nil` when not given.
    func positional(_ index: Int) -> String? { index < positionals.count ? positionals[index] : nil }

    /// The value of an option the command cannot do without.
    ///
    /// - Throws: 65 `missing <flag> <what>` when absent.
    func required(_ flag: String, _ what: String) throws(CommandFailure) -> String {
        guard let value = value(flag) else { throw .usage("missing \(flag) \(what)", command: commandPath) }
        return value
    }

    /// Exactly one of `flags` (e.g. `--text` or `--hex`): its name and value.
    ///
    /// - Throws: 65 when none or more than one is given.
    func exactlyOne(of flags: [String]) throws(CommandFailure) -> (flag: String, value: String) {
        let given = flags.filter(has)
        let list = Self.alternatives(flags)
        guard given.count <= 1 else {
            throw .usage(
                "\(Self.alternatives(given, conjunction: "and")) cannot be used together", command: commandPath)
        }
        guard let flag = given.first, let value = value(flag) else {
            throw .usage("one of \(list) is required", command: commandPath)
        }
        return (flag, value)
    }

    /// `--a`, `--a or --b`, `--a, --b or --c`.
    static func alternatives(_ flags: [String], conjunction: String = "or") -> String {
        guard flags.count > 1, let last = flags.last else { return flags.first ?? "" }
        return flags.dropLast().joined(separator: ", ") + " \(conjunction) " + last
    }
}
