import SignerKit
import SignerKitService

/// `signerkit policy replay`: a candidate policy file tried on the calls an audit log recorded.
enum PolicyCommands {
    /// The `policy` group.
    static let command = Command.group(
        "policy", summary: "Try a policy file on recorded calls before deploying it.", subcommands: [replay])

    /// `policy replay --audit LOG --policy NEW.json`.
    static let replay = Command.leaf(
        "replay", summary: "Decide the signing calls of an audit log again under a candidate policy file.",
        details: """
            Reads the audit log of a signer service that keeps a ledger (its records hold each signing call's
            actions), decides every recorded signing call again under --policy (the rules as `signerkit serve`
            enforces them; limits over time as if the candidate had been in force from the log's first record,
            each call at its record's time) and prints one line per call whose outcome would
            change ("record I (request R, client C, M): signed -> refused: RULE: reason"), then one line per rule
            ("rule R: refuses N, holds M of the changed calls") and "replayed N calls: K would change". Exits 0;
            unreadable input exits 65.
            """,
        synopsis: "--audit LOG --policy FILE",
        flags: [
            .option("--audit", value: "LOG", help: "the audit log file"),
            .option("--policy", value: "FILE", help: "the candidate policy file"),
        ],
        run: run)

    static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let log = try FileAccess.readAll(try options.required("--audit", "(the audit log file)"))
        let policyPath = try options.required("--policy", "(the candidate policy file)")
        let policyText = try PreviewOptions.readFile(policyPath)
        let report: PolicyReplay.Report
        do { report = try await PolicyReplay.replay(log: log, policyText: policyText) } catch {
            throw .invalidInput("--policy: \(error)")
        }
        for change in report.changes {
            let reasons = change.verdicts.map { verdict in
                "\(verdict.rule)\(verdict.action.map { " (action \($0))" } ?? ""): \(verdict.kind) \(verdict.detail)"
            }
            let detail = reasons.isEmpty ? "" : ": " + reasons.joined(separator: "; ")
            context.printLine(
                TextSafety.singleLine(
                    "record \(change.record) (request \(change.requestID), client \(change.client), \(change.method)): "
                        + "\(change.before.rawValue) -> \(change.after.rawValue)\(detail)"))
        }
        for (rule, counts) in report.byRule.sorted(by: { $0.key < $1.key }) {
            context.printLine(
                TextSafety.singleLine(
                    "rule \(rule): refuses \(counts.refused), holds \(counts.held) of the changed calls"))
        }
        context.printLine("replayed \(report.calls) calls: \(report.changes.count) would change")
        return .success
    }
}
