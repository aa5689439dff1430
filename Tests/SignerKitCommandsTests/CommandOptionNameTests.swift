import Foundation
import Testing

@testable import SignerKitCommands

/// A misspelt option name in a command's code reads as "absent" and silently drops what the user asked
/// for (a fee cap, a journal): every flag name the commands read must be one some command declares. Debug
/// builds also stop when a command reads a flag it does not declare itself (`ParsedOptions`).
@Suite("Command options: every flag name read is declared")
struct CommandOptionNameTests {
    /// Every flag any command declares.
    static func declaredFlags(_ command: Command = CommandRegistry.root) -> Set<String> {
        switch command.body {
        case .group(let subcommands): subcommands.reduce(into: Set<String>()) { $0.formUnion(declaredFlags($1)) }
        case .leaf(let spec): Set(spec.flags.map(\.name))
        }
    }

    /// The `--flag` string literals passed to an option reader in `source`, with their line numbers.
    static func flagsRead(in source: String) throws -> [(line: Int, flag: String)] {
        let reader = try Regex(#"(?:value|has|required|allValues|integer)\(\s*"(--[^"]*)""#)
        let alternatives = try Regex(#"exactlyOne\(of:\s*\[([^\]]*)\]"#)
        let literal = try Regex(#""(--[^"]*)""#)
        var found: [(Int, String)] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            for match in line.matches(of: reader) {
                if let flag = match.output[1].substring { found.append((number + 1, String(flag))) }
            }
            for match in line.matches(of: alternatives) {
                guard let list = match.output[1].substring else { continue }
                for item in list.matches(of: literal) {
                    if let flag = item.output[1].substring { found.append((number + 1, String(flag))) }
                }
            }
        }
        return found
    }

    @Test("the reader finds literals, and a misspelt one is reported")
    func scannerFindsMisspellings() throws {
        let sample = #"""
            let a = options.value("--journal")
            if context.options.has("--jornal") {}
            let b = try options.exactlyOne(of: ["--text", "--hexx"])
            """#
        let read = try Self.flagsRead(in: sample).map(\.flag)
        #expect(read == ["--journal", "--jornal", "--text", "--hexx"])
        let declared = Self.declaredFlags()
        #expect(read.filter { !declared.contains($0) } == ["--jornal", "--hexx"])
    }

    @Test("every flag read in Sources/SignerKitCommands is declared by a command")
    func everyReadFlagIsDeclared() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/SignerKitCommands")
        let files = try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        try #require(files.count > 20, "the command sources are where they were")
        let declared = Self.declaredFlags()
        var read = 0
        for file in files.sorted() {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (line, flag) in try Self.flagsRead(in: text) {
                read += 1
                #expect(declared.contains(flag), "\(file):\(line) reads \(flag), which no command declares")
            }
        }
        #expect(read > 50, "the scanner found the option reads (\(read))")
    }
}
