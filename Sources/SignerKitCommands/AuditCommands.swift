import EthereumPrimitives
import SignerKit
import SignerKitService

/// `signerkit audit verify`: checks an audit ledger (a log file or the service's store) or one receipt
/// offline, against the checkpoint key's address.
enum AuditCommands {
    /// The `audit` group.
    static let command = Command.group(
        "audit", summary: "Check the signer service's audit ledger or a receipt offline.", subcommands: [verify])

    /// `audit verify (--log FILE | --store CONFIG | --receipt FILE --checkpoint FILE) --checkpoint-key 0x…`.
    static let verify = Command.leaf(
        "verify", summary: "Verify a whole audit ledger, or one receipt against a checkpoint.",
        details: """
            With --log FILE (an auditLog file) or --store CONFIG (the ledger in the store of a service
            configuration: SQLite or PostgreSQL; its auditLog file when it has one and a SQLite store) checks every
            record's seq and prev hash, every checkpoint's signature by --checkpoint-key, each checkpoint's root
            against the records before it and the consistency proof from the checkpoint before it; with
            --checkpoint FILE also a checkpoint kept outside the log (a cut-off log fails). Prints
            "verified N records, M checkpoints" and exits 0, or prints "error: record I: …" or
            "error: checkpoint J: …" for the first that does not hold and exits 1.
            With --receipt FILE --checkpoint FILE checks a receipt (what signerkit_receipt answers): the
            checkpoint's signature, the record's inclusion proof to its root and the policy-set hash; exits 0 or
            1. Unreadable input exits 65. docs/AUDIT.md describes the format.
            """,
        synopsis: "(--log FILE | --store CONFIG) [--checkpoint FILE] --checkpoint-key 0x… | "
            + "--receipt FILE --checkpoint FILE --checkpoint-key 0x…",
        flags: [
            .option("--log", value: "FILE", help: "the audit log file"),
            .option("--store", value: "CONFIG", help: "the service configuration whose store holds the ledger"),
            .option("--receipt", value: "FILE", help: "a receipt (JSON) to check"),
            .option("--checkpoint", value: "FILE", help: "a signed checkpoint (note text) to check against"),
            .option("--checkpoint-key", value: "0x…", help: "the address of the key that signs checkpoints"),
            SecretFile.allowInsecureFlag,
        ],
        run: run)

    static func run(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let keyText = try options.required("--checkpoint-key", "(the address of the checkpoint key)")
        let key: Address
        do { key = try Address(keyText) } catch { throw .invalidInput("--checkpoint-key: \(error)") }
        let source = try options.exactlyOne(of: ["--log", "--store", "--receipt"])
        let checkpoint = try options.value("--checkpoint").map { (path) throws(CommandFailure) in
            try text(of: path, flag: "--checkpoint")
        }
        switch source.flag {
        case "--receipt":
            guard let checkpoint else { throw .invalidInput("--receipt needs --checkpoint FILE (a signed checkpoint)") }
            let receipt: LedgerReceipt
            do {
                receipt = try LedgerReceipt(
                    json: try JSONValue(parsing: try text(of: source.value, flag: "--receipt")))
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw .invalidInput("--receipt: \(error)")
            }
            do {
                let verified = try receipt.verify(against: checkpoint, key: key)
                context.printLine("verified record \(receipt.index) in checkpoint of \(verified.size) records")
                return .success
            } catch {
                context.io.writeStandardError("error: receipt: \(TextSafety.singleLine(error.description))\n")
                return .failure
            }
        default:
            let summary: LedgerVerifier.Summary
            do {
                if source.flag == "--log" {
                    let bytes = try FileAccess.readAll(source.value)
                    summary = try LedgerVerifier.verify(log: bytes, key: key, outsideCheckpoint: checkpoint)
                } else {
                    summary = try await AuditStoreLedger.verify(
                        configurationPath: source.value, key: key, outsideCheckpoint: checkpoint,
                        allowInsecure: SecretFile.allowsInsecure(options))
                }
            } catch let error as LedgerVerificationError {
                context.io.writeStandardError("error: \(TextSafety.singleLine(error.description))\n")
                return .failure
            } catch let error as CommandFailure {
                throw error
            } catch {
                throw .invalidInput("\(error)")
            }
            context.printLine("verified \(summary.records) records, \(summary.checkpoints) checkpoints")
            return .success
        }
    }

    /// The UTF-8 text of the file at `path` (65 naming `flag` when unreadable).
    static func text(of path: String, flag: String) throws(CommandFailure) -> String {
        let bytes: [UInt8]
        do { bytes = try FileAccess.readAll(path) } catch { throw .invalidInput("\(flag): \(error.message)") }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidInput("\(flag): \(TextSafety.displayArgument(path)) is not UTF-8 text")
        }
        return text
    }
}
