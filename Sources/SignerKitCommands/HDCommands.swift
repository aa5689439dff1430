import Foundation
import Secp256k1
import SoftwareSigner

/// `signerkit key mnemonic|derive`: BIP-39 mnemonics and BIP-32/BIP-44 keys derived from them.
enum HDCommands {
    /// `key mnemonic --out FILE [--words N]`.
    static let mnemonic = Command.leaf(
        "mnemonic",
        summary: "Write a new BIP-39 mnemonic to a new file (mode 0600); print its first address (m/44'/60'/0'/0/0).",
        details: """
            The file holds the English words separated by single spaces and a newline; the entropy comes from
            libgcrypt's very strong random generator. An existing file is never overwritten. The address printed
            uses an empty passphrase.
            """,
        synopsis: "--out FILE [--words 12|15|18|21|24]",
        flags: [
            .option("--out", value: "FILE", help: "the mnemonic file to create (must not exist)"),
            .option("--words", value: "N", help: "number of words: 12 (default), 15, 18, 21 or 24"),
        ],
        run: runMnemonic)

    /// `key derive --mnemonic-file F [--passphrase-file P] [--path PATH | --index N] [--out FILE]`.
    static let derive = Command.leaf(
        "derive", summary: "Print the address (EIP-55) of a key derived from a BIP-39 mnemonic; --out writes the key.",
        details: """
            The path defaults to BIP-44's m/44'/60'/0'/0/N with N from --index (default 0); --path takes any BIP-32
            path (m/…, ' or h marks a hardened index). The mnemonic and passphrase files must be regular files (not
            symlinks or FIFOs) of mode 0600 or stricter (--allow-insecure-permissions waives the symlink and mode
            checks); the passphrase file loses one trailing newline (LF or CR LF) and nothing else. With --out the
            private key is written to a new file (mode 0600) as 0x-hex and a newline.
            """,
        synopsis: "--mnemonic-file F [--passphrase-file P] [--path PATH | --index N] [--out key.hex]",
        flags: [
            .option("--mnemonic-file", value: "F", help: "file holding the BIP-39 mnemonic (English words)"),
            .option("--passphrase-file", value: "P", help: "file holding the BIP-39 passphrase (default: empty)"),
            .option("--path", value: "PATH", help: "BIP-32 derivation path (default m/44'/60'/0'/0/INDEX)"),
            .option("--index", value: "N", help: "address index in m/44'/60'/0'/0/N (default 0)"),
            .option("--out", value: "FILE", help: "also write the derived private key to this new file (mode 0600)"),
            SecretFile.allowInsecureFlag,
        ],
        run: runDerive)

    /// Generates, writes and prints the first address.
    static func runMnemonic(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let path = try context.options.required("--out", "(the mnemonic file to create)")
        guard !path.isEmpty, path != "-" else {
            throw .invalidInput("--out: must be a file path (a mnemonic is never written to stdout)")
        }
        var count = 12
        if let text = context.options.value("--words") {
            guard let value = Int(text), Mnemonic.allowedWordCounts.contains(value) else {
                throw .invalidInput("--words: the word count must be 12, 15, 18, 21 or 24")
            }
            count = value
        }
        let mnemonic = Mnemonic.generate(wordCount: count)
        let signer: SoftwareKeySigner
        do {
            signer = try SoftwareKeySigner(
                mnemonic: mnemonic, passphrase: UnsafeRawBufferPointer(start: nil, count: 0),
                path: defaultPath)
        } catch {
            throw .failure("cannot derive the first address: \(error)")
        }
        let descriptor = try FileAccess.createExclusive(path, mode: 0o600)
        let written = mnemonic.withUnsafePhraseBytes { phrase in
            FileAccess.writeAll(descriptor, phrase)
                && [UInt8(0x0A)].withUnsafeBytes { FileAccess.writeAll(descriptor, $0) }
        }
        let synced = written && fsync(descriptor) == 0
        let error = errno
        close(descriptor)
        guard synced else {
            unlink(path)
            throw FileAccess.failure(path, errno: error)
        }
        context.printLine(signer.address.checksummed)
        return .success
    }

    /// Reads the mnemonic (and passphrase), derives, prints and optionally writes the key.
    static func runDerive(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let mnemonicFile = try options.required("--mnemonic-file", "(the BIP-39 mnemonic file)")
        let path = try derivationPath(options)
        let out = options.value("--out")
        if let out, out.isEmpty || out == "-" {
            throw .invalidInput("--out: must be a file path (a key is never written to stdout)")
        }
        let allowInsecure = SecretFile.allowsInsecure(options)
        let mnemonic = try readMnemonic(mnemonicFile, allowInsecure: allowInsecure)
        let signer: SoftwareKeySigner
        if let passphraseFile = options.value("--passphrase-file") {
            let (contents, length) = try SecretFile.read(
                passphraseFile, maximumSize: SoftwareKeySigner.passphraseFileLimit, allowInsecure: allowInsecure)
            defer { contents.wipe() }
            guard length <= SoftwareKeySigner.passphraseFileLimit else {
                throw .invalidInput(
                    "\(TextSafety.displayArgument(passphraseFile)): larger than \(SoftwareKeySigner.passphraseFileLimit) bytes"
                )
            }
            let result: Result<SoftwareKeySigner, SoftwareKeyError> = contents.withUnsafeBytes { bytes in
                let line = UnsafeRawBufferPointer(rebasing: bytes[0..<length])
                let secret = UnsafeRawBufferPointer(rebasing: line[0..<SecretFile.secretLength(line)])
                return Result { () throws(SoftwareKeyError) in
                    try SoftwareKeySigner(mnemonic: mnemonic, passphrase: secret, path: path)
                }
            }
            do { signer = try result.get() } catch {
                throw .invalidInput("\(TextSafety.displayArgument(passphraseFile)): \(reason(error))")
            }
        } else {
            do {
                signer = try SoftwareKeySigner(
                    mnemonic: mnemonic, passphrase: UnsafeRawBufferPointer(start: nil, count: 0), path: path)
            } catch {
                throw .invalidInput("\(TextSafety.displayArgument(mnemonicFile)): \(reason(error))")
            }
        }
        if let out { try KeyFile.write(signer.privateKey, to: out) }
        context.printLine(signer.address.checksummed)
        return .success
    }

    /// `--path` or `--index` (not both), else m/44'/60'/0'/0/0.
    static func derivationPath(_ options: ParsedOptions) throws(CommandFailure) -> DerivationPath {
        let pathText = options.value("--path")
        let indexText = options.value("--index")
        if pathText != nil, indexText != nil {
            throw .invalidInput("--path and --index exclude each other (--index N means m/44'/60'/0'/0/N)")
        }
        if let pathText {
            do { return try DerivationPath(parsing: pathText) } catch { throw .invalidInput("--path: \(error)") }
        }
        guard let indexText else { return defaultPath }
        guard let index = Int(indexText), index >= 0, index < Int(DerivationPath.hardenedOffset) else {
            throw .invalidInput(
                "--index: \"\(TextSafety.displayArgument(indexText))\" must be an index from 0 to 2147483647")
        }
        do { return try .ethereum(index: index) } catch { throw .invalidInput("--index: \(error)") }
    }

    /// m/44'/60'/0'/0/0.
    static let defaultPath = DerivationPath(
        indices: [
            44 + DerivationPath.hardenedOffset, 60 + DerivationPath.hardenedOffset, DerivationPath.hardenedOffset, 0, 0,
        ])

    /// Reads and parses the mnemonic file in secure memory.
    static func readMnemonic(_ path: String, allowInsecure: Bool) throws(CommandFailure) -> Mnemonic {
        let label = TextSafety.displayArgument(path)
        let (contents, length) = try SecretFile.read(
            path, maximumSize: Mnemonic.maximumTextLength, allowInsecure: allowInsecure)
        defer { contents.wipe() }
        guard length <= Mnemonic.maximumTextLength else {
            throw .invalidInput("\(label): larger than \(Mnemonic.maximumTextLength) bytes")
        }
        let result: Result<Mnemonic, MnemonicError> = contents.withUnsafeBytes { bytes in
            Result { () throws(MnemonicError) in try Mnemonic(text: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
            }
        }
        do { return try result.get() } catch { throw .invalidInput("\(label): \(error)") }
    }

    /// The reason part of a derivation error (the source is named by the caller).
    private static func reason(_ error: SoftwareKeyError) -> String {
        switch error {
        case .mnemonic(_, let reason): reason.description
        case .derivation(_, let reason): reason.description
        default: error.description
        }
    }
}
