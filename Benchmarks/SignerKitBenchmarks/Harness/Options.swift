/// Command-line options of the benchmark executable.
struct BenchmarkOptions {
    /// Case-insensitive substrings; a case runs if its name or group contains any of them (all if empty).
    var filters: [String] = []
    /// Short run for CI and smoke tests: less warm-up, fewer samples.
    var quick = false
    /// Where to write the JSON results, if anywhere.
    var jsonPath: String?
    /// Print the registered cases and exit.
    var list = false
    /// Print usage and exit.
    var help = false

    static let usage = """
        usage: SignerKitBenchmarks [--filter SUBSTRING]... [--quick] [--json PATH] [--list]

          --filter SUBSTRING  run only cases whose name or group contains SUBSTRING (case-insensitive);
                              repeatable. Baselines of selected cases are measured too.
          --quick             short run (for CI / smoke tests): ~0.03 s per case instead of ~0.3 s;
                              its ratios are indicative only
          --json PATH         also write the results as JSON to PATH (directories are created)
          --list              list the registered cases and exit
          --help              show this help

        Normally run through the package plugin, which builds in release mode first:
          swift package --allow-writing-to-package-directory benchmark [options]
        """

    /// A command-line error, with a message for the user.
    struct ParseError: Error, CustomStringConvertible {
        /// What was wrong.
        let description: String
    }

    /// Parses the arguments (without the executable name).
    static func parse(_ arguments: some Sequence<String>) throws(ParseError) -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var iterator = arguments.makeIterator()

        func value(for flag: String, inline: String?) throws(ParseError) -> String {
            if let inline { return inline }
            guard let next = iterator.next() else { throw ParseError(description: "\(flag) needs a value") }
            return next
        }

        while let argument = iterator.next() {
            // Accept both "--flag value" and "--flag=value".
            var flag = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                flag = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            switch flag {
            case "--filter":
                let filter = try value(for: flag, inline: inlineValue)
                guard !filter.isEmpty else { throw ParseError(description: "--filter needs a non-empty value") }
                options.filters.append(filter)
            case "--json":
                let path = try value(for: flag, inline: inlineValue)
                guard !path.isEmpty else { throw ParseError(description: "--json needs a path") }
                options.jsonPath = path
            case "--quick":
                options.quick = true
            case "--list":
                options.list = true
            case "--help", "-h":
                options.help = true
            default:
                throw ParseError(description: "unknown argument '\(argument)'")
            }
        }
        return options
    }

    /// Whether `benchmark` is selected by the filters.
    func selects(_ benchmark: Benchmark) -> Bool {
        if filters.isEmpty { return true }
        let name = benchmark.name.lowercased()
        let group = benchmark.group.lowercased()
        return filters.contains { filter in
            let needle = filter.lowercased()
            return name.contains(needle) || group.contains(needle)
        }
    }
}
