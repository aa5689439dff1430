/// The process exit statuses of `signerkit`.
///
/// Every command returns one of these; nothing else is ever used, so scripts can rely on the
/// three values.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// The input was well formed but the outcome is a failure the command reports on stdout, such
    /// as a failed line of `typed-data hash --jsonl`, or a key backend that could not sign.
    case failure = 1
    /// Invalid input (`EX_DATAERR`): bad JSON, typed data, hex, key file or signature, a missing
    /// file, an unknown command or flag, a missing required flag. Exactly one line,
    /// `error: <problem>`, is written to stderr and nothing to stdout.
    case invalidInput = 65
}
