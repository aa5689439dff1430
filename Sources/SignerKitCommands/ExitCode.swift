/// The process exit statuses of `signerkit`.
///
/// Every command returns one of these; nothing else is ever used, so scripts can rely on the
/// three values.
public enum ExitCode: Int32, Sendable, CaseIterable {
    /// The command did what was asked.
    case success = 0
    /// The input was well formed but the outcome is a failure the command reports on stdout: a
    /// failed line of `typed-data hash --jsonl`.
    case failure = 1
    /// Invalid input (`EX_DATAERR`) or any other error: bad JSON, typed data, transaction, action,
    /// hex, key file, keystore (or its password) or signature, a missing file, an unknown command or
    /// flag, a missing required flag, a PKCS#11 failure (wrong PIN, key not on secp256k1), a key
    /// backend or node that failed. Exactly one line, `error: <problem>`, is written to stderr and
    /// nothing to stdout.
    case invalidInput = 65
}
