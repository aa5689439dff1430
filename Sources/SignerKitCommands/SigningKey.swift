import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit

/// The flags that choose the signing key, shared by every command that signs.
///
/// Four key sources, exactly one per invocation:
/// - `--key-file FILE`: a `0x`-hex private key in a file;
/// - `--keystore FILE` with `--password-file P` (or `$SIGNERKIT_PASSWORD`): a Web3 Secret
///   Storage v3 keystore;
/// - `--pkcs11-module PATH --token-label L (--key-label K | --key-id HEX)` with `--pin-file F`
///   (or `$SIGNERKIT_PIN`): a secp256k1 key on a PKCS#11 token (the module defaults to
///   `$SIGNERKIT_PKCS11_MODULE`);
/// - `--aws-kms-key-id ID` with `--aws-region R` and `--aws-endpoint-url URL` (else the AWS variables): an
///   `ECC_SECG_P256K1` key in AWS KMS (``AWSKMSOptions``);
/// - `--gcp-kms-key NAME` or `--azure-key-id URL`: a key in Google Cloud KMS or Azure Key Vault
///   (``CloudKMSOptions``);
/// - `--remote-signer URL --remote-account 0xADDR`: an account of a remote signer (``RemoteSignerOptions``),
///   for the commands that sign through the dispatcher (``loadSigningBackend(_:io:)``).
///
/// New key sources add their flags to ``flags`` and a branch to ``loadSigningKey(_:io:)``;
/// commands that sign need no change.
enum SigningKeyOptions {
    /// `--key-file FILE`.
    static let keyFile = FlagSpec.option(
        "--key-file", value: "FILE", help: "file holding the 0x-hex private key (never pass a key as an argument)")
    /// `--keystore FILE`.
    static let keystore = FlagSpec.option(
        "--keystore", value: "FILE",
        help: "Web3 Secret Storage v3 keystore (password: --password-file or $SIGNERKIT_PASSWORD)")
    /// `--password-file FILE`.
    static let passwordFile = PasswordOptions.passwordFile
    /// `--pkcs11-module PATH`.
    static let pkcs11Module = FlagSpec.option(
        "--pkcs11-module", value: "PATH", help: "PKCS#11 module holding the key (default $SIGNERKIT_PKCS11_MODULE)")
    /// `--token-label L`.
    static let tokenLabel = PKCS11Options.tokenLabel
    /// `--key-label K`.
    static let keyLabel = PKCS11Options.keyLabel
    /// `--key-id HEX`.
    static let keyID = PKCS11Options.keyID
    /// `--pin-file FILE`.
    static let pinFile = PKCS11Options.pinFile

    /// Every key-source flag.
    static let flags: [FlagSpec] =
        [
            keyFile, keystore, passwordFile, pkcs11Module, tokenLabel, keyLabel, keyID, pinFile,
            SecretFile.allowInsecureFlag,
        ] + AWSKMSOptions.flags + CloudKMSOptions.flags
        + RemoteSignerOptions.flags

    /// The flag that selects each source (the others only qualify one), for messages.
    static var flagNames: [String] {
        [keyFile.name, keystore.name, pkcs11Module.name, AWSKMSOptions.keyID.name] + cloudKeyFlagNames
            + [RemoteSignerOptions.url.name]
    }

    /// The flags of the Google Cloud KMS and Azure Key Vault sources.
    static let cloudKeyFlagNames = [CloudKMSOptions.gcpKey.name, CloudKMSOptions.azureKeyID.name]

    /// The PKCS#11 flags: any of them selects the PKCS#11 source.
    static let pkcs11FlagNames: [String] = [
        pkcs11Module.name, tokenLabel.name, keyLabel.name, keyID.name, pinFile.name,
    ]

    /// Synopsis fragment naming the key sources.
    static let synopsis =
        "(--key-file F | --keystore F [--password-file P] | --pkcs11-module M --token-label L --key-label K [--pin-file F]"
        + " | --aws-kms-key-id ID [--aws-region R] [--aws-endpoint-url URL]"
        + " | --gcp-kms-key NAME [--gcp-credentials F] [--gcp-kms-endpoint URL] | --azure-key-id URL"
        + " | --remote-signer URL --remote-account 0xADDR [--remote-signer-kind K] [--remote-token-file F])"

    /// Help paragraph on the key sources.
    static let details = """
        Key sources (exactly one): --key-file F (0x-hex private key); --keystore F with --password-file P
        (else $SIGNERKIT_PASSWORD); --pkcs11-module M --token-label L --key-label K (or --key-id HEX) with
        --pin-file F (else $SIGNERKIT_PIN): a secp256k1 key on a PKCS#11 token; --aws-kms-key-id ID (key id,
        ARN or alias/NAME) with --aws-region R and --aws-endpoint-url URL (else $AWS_REGION or
        $AWS_DEFAULT_REGION, $AWS_ENDPOINT_URL_KMS or $AWS_ENDPOINT_URL): an ECC_SECG_P256K1 key in AWS KMS,
        credentials from $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY, $AWS_SESSION_TOKEN or the shared
        credentials file ($AWS_SHARED_CREDENTIALS_FILE, profile $AWS_PROFILE); --gcp-kms-key NAME
        (projects/…/cryptoKeyVersions/V) with --gcp-credentials F (else $GOOGLE_APPLICATION_CREDENTIALS) and
        --gcp-kms-endpoint URL (else $GOOGLE_CLOUD_KMS_ENDPOINT): an EC_SIGN_SECP256K1_SHA256 key in Google
        Cloud KMS; --azure-key-id URL (https://VAULT.vault.azure.net/keys/NAME/VERSION) with $AZURE_TENANT_ID,
        $AZURE_CLIENT_ID, $AZURE_CLIENT_SECRET (and $AZURE_AUTHORITY_HOST): a P-256K key in Azure Key Vault;
        --remote-signer URL --remote-account 0xADDR with --remote-signer-kind web3signer|signerkit (default
        web3signer) and --remote-token-file F (else $SIGNERKIT_REMOTE_TOKEN): an account of a remote signer,
        every answer verified (key address, sign, message sign, typed-data sign and tx sign). Keys, passwords
        and PINs are never taken from arguments. Key, password and PIN files must be regular files (not
        symlinks or FIFOs) of mode 0600 or stricter (--allow-insecure-permissions waives the symlink and mode
        checks); password and PIN files lose one trailing newline (LF or CR LF) and nothing else.
        """

    /// Where the key comes from.
    enum Source: Equatable {
        /// `--key-file FILE`.
        case keyFile(String)
        /// `--keystore FILE`.
        case keystore(String)
        /// The PKCS#11 flags.
        case pkcs11
        /// `--aws-kms-key-id ID`.
        case awsKMS
        /// `--gcp-kms-key NAME`.
        case gcpKMS
        /// `--azure-key-id URL`.
        case azureKeyVault
        /// `--remote-signer URL`.
        case remote
    }

    /// Checks that exactly one key source is named (and that qualifying flags belong to it),
    /// without touching it, so a command can fail before it reads standard input.
    ///
    /// - Throws: 65 `missing --key-file, --keystore or --pkcs11-module …`, a conflict between
    ///   sources, or a flag used without its source (`--password-file needs --keystore`).
    @discardableResult
    static func checkPresent(_ options: ParsedOptions) throws(CommandFailure) -> Source {
        let pkcs11Given = pkcs11FlagNames.filter(options.has)
        var given =
            ([keyFile.name, keystore.name, AWSKMSOptions.keyID.name] + cloudKeyFlagNames + [
                RemoteSignerOptions.url.name
            ]).filter(options.has)
        if let first = pkcs11Given.first { given.append(first) }
        guard given.count <= 1 else {
            throw .usage(
                "\(ParsedOptions.alternatives(given, conjunction: "and")) cannot be used together",
                command: options.commandPath)
        }
        if options.has(passwordFile.name), !options.has(keystore.name) {
            throw .usage("\(passwordFile.name) needs \(keystore.name)", command: options.commandPath)
        }
        for flag in [AWSKMSOptions.region, AWSKMSOptions.endpointURL]
        where options.has(flag.name) && !options.has(AWSKMSOptions.keyID.name) {
            throw .usage("\(flag.name) needs \(AWSKMSOptions.keyID.name)", command: options.commandPath)
        }
        for flag in [CloudKMSOptions.gcpCredentials, CloudKMSOptions.gcpEndpoint]
        where options.has(flag.name) && !options.has(CloudKMSOptions.gcpKey.name) {
            throw .usage("\(flag.name) needs \(CloudKMSOptions.gcpKey.name)", command: options.commandPath)
        }
        for flag in RemoteSignerOptions.qualifiers
        where options.has(flag.name) && !options.has(RemoteSignerOptions.url.name) {
            throw .usage("\(flag.name) needs \(RemoteSignerOptions.url.name)", command: options.commandPath)
        }
        if options.has(RemoteSignerOptions.url.name) { return .remote }
        if let path = options.value(keyFile.name) { return .keyFile(path) }
        if let path = options.value(keystore.name) { return .keystore(path) }
        if options.has(AWSKMSOptions.keyID.name) { return .awsKMS }
        if options.has(CloudKMSOptions.gcpKey.name) { return .gcpKMS }
        if options.has(CloudKMSOptions.azureKeyID.name) { return .azureKeyVault }
        guard pkcs11Given.isEmpty else { return .pkcs11 }
        throw .usage(
            "missing \(ParsedOptions.alternatives(flagNames)) (the private key to sign with)",
            command: options.commandPath)
    }
}

/// Loads the signing key named by the key-source flags: the single point where keys enter the CLI.
///
/// - `--key-file FILE`: a `0x`-hex private key (surrounding whitespace and a trailing newline
///   allowed), read straight into secure memory, never into an ordinary string.
/// - `--keystore FILE`: decrypted with the password from `--password-file` or
///   `$SIGNERKIT_PASSWORD` (see ``PasswordOptions``).
/// - PKCS#11: the module is loaded, the token found by label, one login made with the PIN from
///   `--pin-file` or `$SIGNERKIT_PIN`, and the key checked to be secp256k1 (see ``PKCS11Options``).
/// - AWS KMS: one `GetPublicKey` for the key `--aws-kms-key-id` names (see ``AWSKMSOptions``).
/// - Google Cloud KMS, Azure Key Vault: one `getPublicKey` / `get key` (see ``CloudKMSOptions``).
///
/// Errors name the file, variable or PKCS#11 call and return code, never a secret.
///
/// - Throws: 65 for a missing key flag, a missing or unreadable file (`<path>: no such file`), a
///   malformed key (`<path>: invalid private key: must be 32 bytes of 0x-hex`), a wrong password
///   (`<path>: wrong password: …`) or a PKCS#11 failure (`PKCS#11 C_Login: CKR_PIN_INCORRECT`).
func loadSigningKey(_ options: ParsedOptions, io: any CommandIO) async throws(CommandFailure) -> any PrehashSigner {
    let source = try SigningKeyOptions.checkPresent(options)
    switch source {
    case .keyFile(let path):
        return CLIKeySigner(key: try KeyFile.read(path, allowInsecure: SecretFile.allowsInsecure(options)))
    case .keystore(let path):
        let keystore = try KeystoreFile.read(path)
        let password = try PasswordOptions.password(options, io: io)
        defer { password.wipe() }
        return CLIKeySigner(key: try KeystoreFile.decrypt(keystore, password: password, label: path))
    case .pkcs11:
        return try await PKCS11Options.signer(options, io: io)
    case .awsKMS:
        return try await AWSKMSOptions.signer(options, io: io)
    case .gcpKMS:
        return try await CloudKMSOptions.gcpSigner(options, io: io)
    case .azureKeyVault:
        return try await CloudKMSOptions.azureSigner(options, io: io)
    case .remote:
        throw RemoteSignerOptions.notAKey(options)
    }
}

/// Signs `digest` and checks that the signature recovers the signer's address.
///
/// - Throws: 65 `signing failed: …` when the backend fails (a PKCS#11 error names the call and
///   return code) or returns a signature that does not verify.
func sign(_ digest: Digest32, with signer: any PrehashSigner) async throws(CommandFailure) -> RecoverableSignature {
    let signature: RecoverableSignature
    do { signature = try await signer.sign(prehash: digest) } catch { throw .invalidInput("signing failed: \(error)") }
    guard (try? ECDSA.recoverAddress(prehash: digest, signature: signature)) == signer.address else {
        throw .invalidInput(
            "signing failed: the signature does not recover the key's address \(signer.address.checksummed)")
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

    /// Reads the key file at `path` straight into secure memory (a regular file of mode 0600 or
    /// stricter, not a symlink, unless `allowInsecure`; see ``SecretFile``).
    static func read(_ path: String, allowInsecure: Bool) throws(CommandFailure) -> PrivateKey {
        let label = TextSafety.displayArgument(path)
        let (contents, length) = try SecretFile.read(path, maximumSize: maximumSize, allowInsecure: allowInsecure)
        defer { contents.wipe() }
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
