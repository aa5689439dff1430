import EthereumPrimitives
import Foundation
import Secp256k1
import SoftwareSigner

/// `signerkit keystore new|address|decrypt`: Web3 Secret Storage v3 keystore files.
enum KeystoreCommands {
    /// The `keystore` group.
    static let command = Command.group(
        "keystore", summary: "Create, inspect and decrypt Web3 Secret Storage v3 keystores.",
        details: """
            Passwords come from --password-file P (the whole file without one trailing newline, LF or CR LF;
            a regular file of mode 0600 or stricter, not a symlink), else from $SIGNERKIT_PASSWORD; never from
            arguments. A wrong password exits 65. Keystores whose KDF asks for more than pbkdf2 c = 10,000,000
            or scrypt work 128·n·r·p above 2^32 bytes are refused, naming the parameter.
            """,
        subcommands: [new, address, decrypt])

    /// `--out FILE`.
    static let outFlag = FlagSpec.option("--out", value: "FILE", help: "the file to create (must not exist; mode 0600)")

    /// `keystore new --out FILE [--password-file P] [--key-file F] [--kdf scrypt|pbkdf2]`.
    static let new = Command.leaf(
        "new", summary: "Encrypt a key into a new v3 keystore file (mode 0600); print its address.",
        details: """
            The key is a new random one, or the 0x-hex key in --key-file. --kdf scrypt (default: n=131072,
            r=8, p=1, about a second and 128 MiB) or pbkdf2 (hmac-sha256, c=262144). --kdf-light is for
            tests only: weak parameters (scrypt n=1024, r=8, p=1; pbkdf2 c=1024) that protect nothing.
            """,
        synopsis: "--out FILE [--password-file P] [--key-file F] [--kdf scrypt|pbkdf2]",
        flags: [
            outFlag, PasswordOptions.passwordFile, SigningKeyOptions.keyFile,
            .option("--kdf", value: "scrypt|pbkdf2", help: "key derivation function (default scrypt)"),
            .flag("--kdf-light", help: "for tests only: very weak KDF parameters, fast to unlock"),
            SecretFile.allowInsecureFlag,
        ],
        run: runNew)

    /// `keystore address FILE [--password-file P]`.
    static let address = Command.leaf(
        "address", summary: "Print a keystore's address (EIP-55).",
        details: """
            The address is read from the keystore's address field. A keystore without one is decrypted, which
            needs --password-file P (or $SIGNERKIT_PASSWORD).
            """,
        synopsis: "FILE [--password-file P]",
        flags: [PasswordOptions.passwordFile, SecretFile.allowInsecureFlag],
        positionals: [.positional("FILE", help: "the keystore file")],
        run: runAddress)

    /// `keystore decrypt FILE --password-file P --out KEYFILE`.
    static let decrypt = Command.leaf(
        "decrypt", summary: "Decrypt a keystore into a new key file (0x-hex, mode 0600); print its address.",
        details: "The private key is written only to the new file given by --out, never to stdout.",
        synopsis: "FILE [--password-file P] --out KEYFILE",
        flags: [PasswordOptions.passwordFile, outFlag, SecretFile.allowInsecureFlag],
        positionals: [.positional("FILE", help: "the keystore file")],
        run: runDecrypt)

    /// Creates the keystore.
    static func runNew(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let path = try outputPath(options)
        let kdf = try kdf(options)
        let password = try PasswordOptions.password(options, io: context.io)
        defer { password.wipe() }
        let key: PrivateKey
        if let keyPath = options.value(SigningKeyOptions.keyFile.name) {
            key = try KeyFile.read(keyPath, allowInsecure: SecretFile.allowsInsecure(options))
        } else {
            key = PrivateKey.generate()
        }
        // Claim the file first, so an existing one is refused before the slow key derivation.
        let descriptor = try FileAccess.createExclusive(path, mode: 0o600)
        let keystore: Web3Keystore
        do {
            keystore = try Web3Keystore.encrypt(key, password: password, kdf: kdf)
        } catch {
            close(descriptor)
            unlink(path)
            throw .invalidInput("keystore encryption failed: \(error)")
        }
        try KeystoreFile.write(keystore, descriptor: descriptor, path: path)
        context.printLine(key.address.checksummed)
        return .success
    }

    /// Prints the stored (or decrypted) address.
    static func runAddress(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let path = context.options.positional(0) ?? ""
        let keystore = try KeystoreFile.read(path)
        if let address = keystore.address {
            context.printLine(address.checksummed)
            return .success
        }
        guard
            context.options.has(PasswordOptions.passwordFile.name)
                || context.io.environment[PasswordOptions.environmentVariable]?.isEmpty == false
        else {
            throw .invalidInput(
                "\(TextSafety.displayArgument(path)): the keystore has no address field; give --password-file to decrypt it"
            )
        }
        let password = try PasswordOptions.password(context.options, io: context.io)
        defer { password.wipe() }
        let key = try KeystoreFile.decrypt(keystore, password: password, label: path)
        context.printLine(key.address.checksummed)
        return .success
    }

    /// Decrypts into a new key file.
    static func runDecrypt(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let source = options.positional(0) ?? ""
        let path = try outputPath(options)
        let keystore = try KeystoreFile.read(source)
        let password = try PasswordOptions.password(options, io: context.io)
        defer { password.wipe() }
        let key = try KeystoreFile.decrypt(keystore, password: password, label: source)
        try KeyFile.write(key, to: path)
        context.printLine(key.address.checksummed)
        return .success
    }

    /// The required `--out` path; never stdout.
    static func outputPath(_ options: ParsedOptions) throws(CommandFailure) -> String {
        let path = try options.required(outFlag.name, "(the file to create)")
        guard !path.isEmpty, path != "-" else {
            throw .invalidInput("--out: must be a file path (secrets are never written to stdout)")
        }
        return path
    }

    /// The KDF chosen by `--kdf` and `--kdf-light`.
    static func kdf(_ options: ParsedOptions) throws(CommandFailure) -> KeystoreKDF {
        let light = options.has("--kdf-light")
        switch options.value("--kdf") ?? "scrypt" {
        case "scrypt": return light ? KeystoreFile.lightScrypt : .standard
        case "pbkdf2": return light ? KeystoreFile.lightPBKDF2 : KeystoreFile.standardPBKDF2
        default: throw .invalidInput("--kdf: expected scrypt or pbkdf2")
        }
    }
}

/// Reading, decrypting and writing keystore files with one-line errors naming the file.
enum KeystoreFile {
    /// Largest keystore file read.
    static let maximumSize = 1 << 20

    /// PBKDF2-HMAC-SHA256 with geth's iteration count.
    static let standardPBKDF2 = KeystoreKDF.pbkdf2(iterations: 262_144)
    /// Test-only scrypt parameters (`--kdf-light`).
    static let lightScrypt = KeystoreKDF.scrypt(n: 1024, r: 8, p: 1)
    /// Test-only PBKDF2 parameters (`--kdf-light`).
    static let lightPBKDF2 = KeystoreKDF.pbkdf2(iterations: 1024)

    /// Reads and validates the keystore at `path` (public data; no password needed).
    ///
    /// - Throws: 65 `<path>: no such file`, `<path>: keystore is not valid JSON: …`, or the
    ///   offending field (`<path>: crypto.kdfparams.n: must be a power of two`).
    static func read(_ path: String) throws(CommandFailure) -> Web3Keystore {
        let label = TextSafety.displayArgument(path)
        let bytes = try FileAccess.readAll(path)
        guard bytes.count <= maximumSize else { throw .invalidInput("\(label): larger than \(maximumSize) bytes") }
        do { return try Web3Keystore(json: bytes) } catch { throw .invalidInput("\(label): \(error)") }
    }

    /// Decrypts `keystore` (read from `label`) with `password` (only read).
    ///
    /// - Throws: 65 `<path>: wrong password: keystore MAC mismatch` and the other keystore errors.
    static func decrypt(_ keystore: Web3Keystore, password: SecureBytes, label: String) throws(CommandFailure)
        -> PrivateKey
    {
        do { return try keystore.decrypt(password: password) } catch {
            throw .invalidInput("\(TextSafety.displayArgument(label)): \(error)")
        }
    }

    /// Writes the keystore JSON and a newline to `descriptor` (a new file at `path`), syncs and
    /// closes it; on failure the file is removed.
    static func write(_ keystore: Web3Keystore, descriptor: Int32, path: String) throws(CommandFailure) {
        var text = keystore.json + "\n"
        let written =
            text.withUTF8 { FileAccess.writeAll(descriptor, UnsafeRawBufferPointer($0)) } && fsync(descriptor) == 0
        let error = errno
        close(descriptor)
        guard written else {
            unlink(path)
            throw FileAccess.failure(path, errno: error)
        }
    }
}
