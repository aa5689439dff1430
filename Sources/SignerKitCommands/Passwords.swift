import Foundation
import Secp256k1

/// Keystore passwords: the first line of `--password-file FILE`, else `$SIGNERKIT_PASSWORD`.
///
/// A password is never taken from an argument (command lines are visible to every user). It is
/// read straight into secure memory; only the environment variable, which the process cannot
/// wipe, passes through an ordinary string.
enum PasswordOptions {
    /// `--password-file FILE`.
    static let passwordFile = FlagSpec.option(
        "--password-file", value: "FILE",
        help: "file whose first line is the keystore password (else $SIGNERKIT_PASSWORD)")

    /// The environment variable read when `--password-file` is absent.
    static let environmentVariable = "SIGNERKIT_PASSWORD"

    /// Longest password file read (the first line of it is the password).
    static let maximumFileSize = 4096

    /// The password from `--password-file` or `$SIGNERKIT_PASSWORD`, in secure memory (the
    /// caller wipes it).
    ///
    /// - Throws: 65 `missing --password-file …` when neither is given, a file error
    ///   (`<path>: no such file`), or `<source>: the password is empty`.
    static func password(_ options: ParsedOptions, io: any CommandIO) throws(CommandFailure) -> SecureBytes {
        if let path = options.value(passwordFile.name) { return try readFile(path) }
        if let value = io.environment[environmentVariable], !value.isEmpty {
            var bytes = Array(value.utf8)
            return SecureBytes(wiping: &bytes)
        }
        throw .usage(
            "missing \(passwordFile.name) (a file holding the keystore password; or set \(environmentVariable))",
            command: options.commandPath)
    }

    /// The first line of the file at `path` (without `\n`, and without a `\r` before it), read
    /// into secure memory.
    static func readFile(_ path: String) throws(CommandFailure) -> SecureBytes {
        let label = TextSafety.displayArgument(path)
        let (contents, length) = try FileAccess.readSecret(path, maximumSize: maximumFileSize)
        defer { contents.wipe() }
        guard length <= maximumFileSize else {
            throw .invalidInput("\(label): larger than \(maximumFileSize) bytes; expected a password on its first line")
        }
        let lineLength: Int = contents.withUnsafeBytes { bytes in
            var end = bytes[0..<length].firstIndex(of: 0x0A) ?? length
            if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
            return end
        }
        guard lineLength > 0 else { throw .invalidInput("\(label): the password is empty (its first line is empty)") }
        return SecureBytes(count: lineLength) { (out: UnsafeMutableRawBufferPointer) in
            contents.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<lineLength])) }
        }
    }
}
