/// Renders `--help` text from command declarations.
enum Usage {
    /// The help of `command`, reached as `path` (e.g. `["signerkit", "typed-data"]`), ending in a newline.
    static func text(for command: Command, path: [String]) -> String {
        let name = path.joined(separator: " ")
        var lines: [String] = []
        switch command.body {
        case .group(let subcommands):
            lines.append("Usage: \(name) <command> [options]")
            lines.append("")
            lines.append(command.summary)
            if !command.details.isEmpty {
                lines.append("")
                lines.append(command.details)
            }
            lines.append("")
            lines.append("Commands:")
            lines += table(subcommands.map { ($0.name, $0.summary) })
            lines.append("")
            lines.append("Options:")
            lines += table(
                path.count == 1
                    ? [("-h, --help", "show this help"), ("--version", "print the version (signerkit X.Y.Z)")]
                    : [("-h, --help", "show this help")])
            lines.append("")
            lines.append("Run \"\(name) <command> --help\" for a command's options.")
        case .leaf(let spec):
            lines.append("Usage: \(name) \(synopsis(spec))")
            lines.append("")
            lines.append(command.summary)
            if !command.details.isEmpty {
                lines.append("")
                lines.append(command.details)
            }
            if !spec.positionals.isEmpty {
                lines.append("")
                lines.append("Arguments:")
                lines += table(spec.positionals.map { ($0.name, $0.help) })
            }
            lines.append("")
            lines.append("Options:")
            var rows = spec.flags.map { flag in
                (
                    flag.valueName.map { "\(flag.name) \($0)" } ?? flag.name,
                    flag.help + (flag.repeatable ? " (repeatable)" : "")
                )
            }
            rows.append(("-h, --help", "show this help"))
            lines += table(rows)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The default synopsis: `[options]` and the positionals (optional ones in brackets).
    static func synopsis(_ spec: LeafSpec) -> String {
        if let synopsis = spec.synopsis { return synopsis }
        var parts = ["[options]"]
        for positional in spec.positionals {
            parts.append(positional.isOptional ? "[\(positional.name)]" : positional.name)
        }
        return parts.joined(separator: " ")
    }

    /// Two aligned columns, indented by two spaces.
    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = min(rows.map(\.0.count).max() ?? 0, 28)
        return rows.map { left, right in
            if left.count > width { return "  \(left)\n  \(String(repeating: " ", count: width))  \(right)" }
            return "  " + left + String(repeating: " ", count: width - left.count) + "  " + right
        }
    }
}
