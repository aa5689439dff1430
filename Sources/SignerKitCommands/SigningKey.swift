import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit

/// The flags that choose the signing key, shared by every command that signs.
///
/// New key sources (keystore files, PKCS#11 tokens) add their flags to ``flags`` and a branch to
/// ``loadSigningKey(_:io:)``; commands that sign need no change.
enum SigningKeyOptions {
    /// `--key-file FILE`.
    static let keyFile = FlagSpec.option(
        "--key-file", value: "FILE", help: "file holding the 0x-hex private key (never pass a key as an argument)")

    /// Every key-source flag.
    static let flags: [FlagSpec] = [keyFile]

    /// The names of the key-source flags, for messages.
    static var flagNames: [String] { flags.map(\.name) }

    /// Checks that exactly one key source is named, without touching it, so a command can fail before
    /// it reads standard input.
    ///
    /// - Throws: 65 `missing --key-file …` or a conflict between sources.
    static func checkPresent(_ options: ParsedOptions) throws(CommandFailure) {
        let given = flagNames.filter(options.has)
        guard given.count <= 1 else {
            throw .usage("\(ParsedOptions.alternatives(given, conjunction: "and")) cannot be used together", command: options.commandPath)
        }
        guard !given.isEmpty else {
            throw .usage("missing \(ParsedOptions.alternatives(flagNames)) (the private key to sign with)", command: options.commandPath)
        }
    }
}

/// Loads the signing key named by the key-source flags: the single point where keys enter the CLI.
///
/// Today only `--key-file FILE` (a `0x`-hex private key; surrounding whitespace and a trailing
/// newline allowed). The key goes from the file straight into secure memory and never into an
/// ordinary string; errors name the file and the problem, never its contents.
///
/// - Throws: 65 for a missing key flag, a missing or unreadable file (`<path>: no such file`) or a
///   malformed key (`<path>: invalid private key: must be 32 bytes of 0x-hex`).
func loadSigningKey(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure) -> any PrehashSigner {
    try SigningKeyOptions.checkPresent(options)
    if let path = options.value(SigningKeyOptions.keyFile.name) {
        return CLIKeySigner(key: try KeyFile.read(path))
    }
    throw .usage("missing \(ParsedOptions.alternatives(SigningKeyOptions.flagNames))", command: options.commandPath)
}

/// Signs `digest` and checks that the signature recovers the signer's address.
///
/// - Throws: 1 when the backend fails or returns a signature that does not verify.
func sign(_ digest: Digest32, with signer: any PrehashSigner) async throws(CommandFailure) -> RecoverableSignature {
    let signature: RecoverableSignature
    do { signature = try await signer.sign(prehash: digest) } catch { throw .failure("signing failed: \(error)") }
    guard (try? Secp256k1.recoverAddress(prehash: digest, signature: signature)) == signer.address else {
        throw .failure("signing failed: the signature does not recover the key's address \(signer.address.checksummed)")
    }
    return signature
}

/// A software private key as a ``PrehashSigner``.
struct CLIKeySigner: PrehashSigner, CustomStringConvertible {
    /// The key, in secure memory.
    let key: PrivateKey

    /// The key's address.
    var address: Address { key.address }

    /// RFC 6979 low-s signature; never fails.
    func sign(prehash: Digest32) async throws(SignerError) -> RecoverableSignature {
        key.sign(prehash: prehash)
    }

    /// `CLIKeySigner(0x…address)`; never the key.
    var description: String { "CLIKeySigner(\(address.checksummed))" }
}

/// Key files: `0x` + 64 hex digits, optional surrounding whitespace.
enum KeyFile {
    /// Longest key file accepted (the key plus generous whitespace).
    static let maximumSize = 256

    /// Reads the key file at `path` straight into secure memory.
    static func read(_ path: String) throws(CommandFailure) -> PrivateKey {
        let label = TextSafety.displayArgument(path)
        let descriptor = try FileAccess.openForReading(path)
        defer { close(descriptor) }
        // One byte more than allowed, to notice an oversized file.
        var length = 0
        var readError: Int32 = 0
        let contents = SecureBytes(count: maximumSize + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            while length < buffer.count {
                let count = Foundation.read(descriptor, buffer.baseAddress! + length, buffer.count - length)
                if count > 0 {
                    length += count
                } else if count == 0 {
                    break
                } else if errno != EINTR {
                    readError = errno
                    break
                }
            }
        }
        defer { contents.wipe() }
        if readError != 0 { throw FileAccess.failure(path, errno: readError) }
        guard length <= maximumSize else { throw .invalidInput("\(label): \(KeyError.invalidHex)") }
        do {
            let secret = try SecureBytes(count: 32) { (out: UnsafeMutableRawBufferPointer) throws(KeyError) in
                try contents.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws(KeyError) in
                    try decode(UnsafeRawBufferPointer(rebasing: bytes[0..<length]), into: out)
                }
            }
            defer { secret.wipe() }
            return try PrivateKey(secret: secret)
        } catch {
            throw .invalidInput("\(label): \(error)")
        }
    }

    /// Decodes trimmed `0x` + 64 hex digits into the 32 bytes of `out`.
    static func decode(_ text: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(KeyError) {
        var start = 0
        var end = text.count
        while start < end, isWhitespace(text[start]) { start += 1 }
        while end > start, isWhitespace(text[end - 1]) { end -= 1 }
        guard end - start == 66, text[start] == 0x30, text[start + 1] == 0x78 || text[start + 1] == 0x58 else {
            throw .invalidHex
        }
        for k in 0..<32 {
            guard let high = Hex.nibble(text[start + 2 + 2 * k]), let low = Hex.nibble(text[start + 3 + 2 * k]) else {
                throw .invalidHex
            }
            out[k] = high << 4 | low
        }
    }

    /// Writes `key` to a new file at `path` (mode 0600, refusing to overwrite) as `0x…` and a
    /// newline, formatting the hex in secure memory.
    static func write(_ key: PrivateKey, to path: String) throws(CommandFailure) {
        let descriptor = try FileAccess.createExclusive(path, mode: 0o600)
        let text = SecureBytes(count: 67) { (out: UnsafeMutableRawBufferPointer) in
            let digits = Array("0123456789abcdef".utf8)
            out[0] = 0x30
            out[1] = 0x78
            key.withUnsafeSecretBytes { secret in
                for k in 0..<32 {
                    out[2 + 2 * k] = digits[Int(secret[k] >> 4)]
                    out[3 + 2 * k] = digits[Int(secret[k] & 0x0F)]
                }
            }
            out[66] = 0x0A
        }
        defer { text.wipe() }
        let written = text.withUnsafeBytes { FileAccess.writeAll(descriptor, $0) } && fsync(descriptor) == 0
        let error = errno
        close(descriptor)
        guard written else {
            unlink(path)
            throw FileAccess.failure(path, errno: error)
        }
    }

    /// ASCII space, tab, LF, VT, FF, CR.
    private static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || (0x09...0x0D).contains(c) }
}
