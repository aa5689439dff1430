import Secp256k1

/// Where a software key came from; errors name it so the user can find the problem without the
/// key ever being printed.
public enum KeySource: Sendable, Hashable, CustomStringConvertible {
    /// Hex text handed to the API directly.
    case text
    /// A file holding the hex key.
    case file(path: String)
    /// An environment variable holding the hex key.
    case environmentVariable(name: String)
    /// Keystore JSON handed to the API directly.
    case keystoreText
    /// A keystore file.
    case keystoreFile(path: String)
    /// A BIP-39 mnemonic file (with its derivation path).
    case mnemonicFile(path: String)
    /// BIP-39 mnemonic text handed to the API directly.
    case mnemonicText

    /// `key file /path`, `environment variable NAME`, …
    public var description: String {
        switch self {
        case .text: "hex key text"
        case .file(let path): "key file \(path)"
        case .environmentVariable(let name): "environment variable \(name)"
        case .keystoreText: "keystore JSON"
        case .keystoreFile(let path): "keystore file \(path)"
        case .mnemonicFile(let path): "mnemonic file \(path)"
        case .mnemonicText: "mnemonic text"
        }
    }
}

/// Why a ``SoftwareKeySigner`` could not be created.
///
/// Each case names the ``KeySource`` (file path or variable name) and never contains key
/// material or passwords.
public enum SoftwareKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source's text is not a valid private key: `KeyError/invalidHex` for anything but
    /// 64 hex digits (optional `0x`, surrounding whitespace ignored), `KeyError/outOfRange`
    /// for zero or a value ≥ n.
    case invalidKey(source: KeySource, reason: KeyError)
    /// A file could not be read; `reason` is the system's explanation (or a size limit).
    case unreadableFile(path: String, reason: String)
    /// The environment variable is not set.
    case environmentVariableNotSet(name: String)
    /// A keystore could not be parsed or decrypted.
    case keystore(source: KeySource, reason: KeystoreError)
    /// A secret file is a symbolic link, not a regular file, or accessible by group or others
    /// (secret files must be regular files with mode 0600 or stricter).
    case insecureFile(path: String, reason: String)
    /// A BIP-39 mnemonic or its passphrase was refused.
    case mnemonic(source: KeySource, reason: MnemonicError)
    /// BIP-32 derivation failed.
    case derivation(source: KeySource, reason: HDWalletError)

    /// A one-line explanation naming the source.
    public var description: String {
        switch self {
        case .invalidKey(let source, .invalidHex):
            "invalid private key in \(source): must be 64 hex digits, optionally 0x-prefixed"
        case .invalidKey(let source, let reason): "invalid private key in \(source): \(reason)"
        case .unreadableFile(let path, let reason): "cannot read \(path): \(reason)"
        case .environmentVariableNotSet(let name): "environment variable \(name) is not set"
        case .keystore(let source, let reason): "\(source): \(reason)"
        case .insecureFile(let path, let reason): "\(path): \(reason)"
        case .mnemonic(let source, let reason): "\(source): \(reason)"
        case .derivation(let source, let reason): "\(source): \(reason)"
        }
    }
}
