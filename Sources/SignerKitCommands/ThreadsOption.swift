import Foundation

/// `--threads N`: how many lines or actions are worked on at once. Output order never depends on it.
enum ThreadsOption {
    /// The flag.
    static let flag = FlagSpec.option(
        "--threads", value: "N",
        help: "work on N lines/actions at once (default: the number of cores); output order never depends on it")

    /// The most workers a command starts.
    static let maximum: Int64 = 1024

    /// The given count, or the number of active cores.
    ///
    /// - Throws: 65 `--threads: expected an integer in 1...1024`.
    static func count(_ options: ParsedOptions) throws(CommandFailure) -> Int {
        if let given = try options.integer(flag.name, in: 1...maximum) { return Int(given) }
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
}
