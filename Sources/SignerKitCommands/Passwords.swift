import Foundation
import Secp256k1

/// Keystore passwords: the whole of `--password-file FILE` without one trailing newline, else
/// `$SIGNERKIT_PASSWORD`.
///
/// A password is never taken from an argument (command lines are visible to every user). It is
/// read straight into secure memory; only the environment variable, which the process cannot
/// wipe, passes through an ordinary string. The file must be a regular file of mode 0600 or
/// stricter, not a symlink (see ``SecretFile``). Exactly one trailing newline (LF or CR LF) is
/// dropped and nothing else: spaces are part of the password.
enum PasswordOptions {
    /// `--password-file FILE`.
    static let passwordFile = FlagSpec.option(
        "--password-file", value: "FILE",
        help: "file holding the keystore password (one trailing newline dropped; else $SIGNERKIT_PASSWORD)")

    /// The environment variable read when `--password-file` is absent.
    static let environmentVariable = "SIGNERKIT_PASSWORD"

    /// Longest password file read.
    static let maximumFileSize = 4096

    /// The password from `--password-file` or `$SIGNERKIT_PASSWORD`, in secure memory (the
    /// caller wipes it).
    ///
    /// - Throws: 65 `missing --password-file …` when neither is given, a file error
    ///   (`<path>: no such file`, `<path>: mode 0644 …`), or `<source>: the password is empty`.
    static func password(_ options: ParsedOptions, io: any CommandIO) throws(CommandFailure) -> SecureBytes {
        if let path = options.value(passwordFile.name) {
            return try password(file: path, allowInsecure: SecretFile.allowsInsecure(options))
        }
        if let value = io.environment[environmentVariable], !value.isEmpty {
            var bytes = Array(value.utf8)
            return SecureBytes(wiping: &bytes)
        }
        throw .usage(
            "missing \(passwordFile.name) (a file holding the keystore password; or set \(environmentVariable))",
            command: options.commandPath)
    }

    /// The password in the file at `path` (see ``SecretFile``), in secure memory (the caller wipes it).
    static func password(file path: String, allowInsecure: Bool) throws(CommandFailure) -> SecureBytes {
        try SecretFile.readLine(path, what: "password", maximumSize: maximumFileSize, allowInsecure: allowInsecure)
            .secret
    }
}
