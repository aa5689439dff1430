import EthereumPrimitives
import Foundation
import SignerKit

/// The money-safety flags of `sign --actions` and `pay`: fee and gas caps (with defaults), the transaction
/// journal, and the idempotency key.
enum TransactionSafetyOptions {
    /// Every flag (`sign --actions`).
    static let flags: [FlagSpec] =
        capAndJournalFlags + [
            .option(
                "--idempotency-key", value: "K",
                help: "recognise a re-run of this payment by K (default: by the actions' own bytes)")
        ]

    /// The caps and the journal (`pay`, whose re-runs are recognised by the option's actions).
    static let capAndJournalFlags: [FlagSpec] = [
        .option(
            "--max-fee-per-gas-cap", value: "WEI",
            help: "refuse a transaction paying more per gas, given or node-filled (default 1000 gwei)"),
        .option(
            "--max-total-fee-cap", value: "WEI",
            help: "refuse a transaction whose gas × fee per gas exceeds this (default 0.1 ETH)"),
        .option("--gas-cap", value: "N", help: "refuse a gas limit above N, given or estimated (default 30000000)"),
        journalFlag,
    ]

    /// `--journal FILE`.
    static let journalFlag = FlagSpec.option(
        "--journal", value: "FILE",
        help: "write-ahead journal of broadcasts (default $XDG_STATE_HOME/signerkit/journal.jsonl)")

    /// How the flags are documented in `--help`.
    static let details = """
        Transactions are refused when their fee per gas, total fee (gas × fee per gas) or gas limit exceeds
        --max-fee-per-gas-cap (default 1000 gwei), --max-total-fee-cap (default 0.1 ETH) or --gas-cap (default
        30000000), whether the action gave the value or the node filled it. Every transaction is written to
        the journal (--journal, default $XDG_STATE_HOME/signerkit/journal.jsonl, else
        ~/.local/state/signerkit/journal.jsonl) before it is broadcast; a re-run of a batch that failed or died
        after broadcasting (recognised by --idempotency-key where offered, else by the same actions from the same account)
        re-sends the same transactions instead of signing new ones; under --idempotency-key a re-run after a success
        is answered with the same transactions, and the key with other actions is refused. On failure every transaction already
        broadcast is named on stderr as "broadcast: action[i] 0x<hash>" before the error line.
        """

    /// The fee and gas policies from the flags (defaults where absent).
    static func policies(_ options: ParsedOptions) throws(CommandFailure) -> [any ActionPolicy] {
        let maxFee = try wei(options.value("--max-fee-per-gas-cap"), flag: "--max-fee-per-gas-cap")
        let maxTotal = try wei(options.value("--max-total-fee-cap"), flag: "--max-total-fee-cap")
        let gas = try wei(options.value("--gas-cap"), flag: "--gas-cap")
        return DefaultTransactionCaps.applied(
            to: [FeeCap(maxFeePerGas: maxFee, maxTotalFee: maxTotal)]
                + (gas.map { [GasLimitCap(maximumGas: $0)] } ?? []))
    }

    /// The idempotency key, if given (at most 200 characters).
    static func idempotencyKey(_ options: ParsedOptions) throws(CommandFailure) -> String? {
        guard let key = options.value("--idempotency-key") else { return nil }
        guard !key.isEmpty, key.utf8.count <= 200 else {
            throw .invalidInput("--idempotency-key: expected 1 to 200 bytes, got \(key.utf8.count)")
        }
        return key
    }

    /// The journal: `--journal FILE`, else the default under the XDG state directory (created 0700).
    static func journal(_ options: ParsedOptions, io: any CommandIO) throws(CommandFailure) -> FileTransactionJournal {
        if let path = options.value("--journal") {
            guard !path.isEmpty else { throw .invalidInput("--journal: empty path") }
            return FileTransactionJournal(path: path)
        }
        let environment = io.environment
        let state: String
        if let xdg = environment["XDG_STATE_HOME"], xdg.hasPrefix("/") {
            state = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            state = home + "/.local/state"
        } else {
            throw .invalidInput("--journal: no $XDG_STATE_HOME or $HOME for the default journal; pass --journal FILE")
        }
        let directory = state + "/signerkit"
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .failure("cannot create the journal directory \(TextSafety.displayArgument(directory))")
        }
        return FileTransactionJournal(path: directory + "/journal.jsonl")
    }

    /// `broadcast: action[i] 0x<hash>` for every transaction the failed batch already sent, by index.
    static func broadcastNotes(_ error: DispatchError) -> [String] {
        error.broadcast.sorted { $0.key < $1.key }.map { "broadcast: action[\($0.key)] \($0.value.hex)" }
    }

    /// A decimal (or 0x-hex) amount.
    private static func wei(_ text: String?, flag: String) throws(CommandFailure) -> UInt256? {
        guard let text else { return nil }
        do { return try UInt256(text: text) } catch {
            throw .invalidInput(
                "\(flag): expected a non-negative integer, got \(TextSafety.displayArgument(EchoedText.abbreviated(text)))"
            )
        }
    }
}
