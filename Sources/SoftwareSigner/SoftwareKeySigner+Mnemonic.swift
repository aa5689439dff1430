import Secp256k1

extension SoftwareKeySigner {
    /// Longest passphrase file read.
    public static let passphraseFileLimit = 4096

    /// The key at `path` of a BIP-39 mnemonic and passphrase (both only read; an empty passphrase
    /// is BIP-39's default). The seed is derived and wiped in secure memory.
    ///
    /// - Throws: ``SoftwareKeyError/mnemonic(source:reason:)`` (a passphrase that is not UTF-8) or
    ///   ``SoftwareKeyError/derivation(source:reason:)``, with source ``KeySource/mnemonicText``.
    public init(mnemonic: Mnemonic, passphrase: UnsafeRawBufferPointer, path: DerivationPath) throws(SoftwareKeyError) {
        try self.init(mnemonic: mnemonic, passphrase: passphrase, path: path, source: .mnemonicText)
    }

    /// Reads a BIP-39 mnemonic (words separated by whitespace) from `mnemonicFile` and, if given, a
    /// passphrase from `passphraseFile` (the whole file without one trailing newline), and derives
    /// the key at `path` (by default BIP-44's first Ethereum account, `m/44'/60'/0'/0/0`).
    ///
    /// Both files must be regular files, not symbolic links, with mode 0600 or stricter; they are
    /// read into secure memory, and the mnemonic, seed and intermediate keys are wiped.
    ///
    /// - Throws: ``SoftwareKeyError/insecureFile(path:reason:)``,
    ///   ``SoftwareKeyError/unreadableFile(path:reason:)``, ``SoftwareKeyError/mnemonic(source:reason:)``
    ///   (checksum, unknown word, word count, …) or ``SoftwareKeyError/derivation(source:reason:)``,
    ///   naming the mnemonic file.
    public init(mnemonicFile: String, passphraseFile: String? = nil, path: DerivationPath? = nil)
        throws(SoftwareKeyError)
    {
        let source = KeySource.mnemonicFile(path: mnemonicFile)
        let (text, length) = try SecretFileReader.read(mnemonicFile, maximumSize: Mnemonic.maximumTextLength)
        defer { text.wipe() }
        let parsed: Result<Mnemonic, MnemonicError> = text.withUnsafeBytes { bytes in
            Result { () throws(MnemonicError) in try Mnemonic(text: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
            }
        }
        let mnemonic: Mnemonic
        do { mnemonic = try parsed.get() } catch { throw .mnemonic(source: source, reason: error) }
        let resolvedPath = path ?? DerivationPath(indices: [0x8000_002C, 0x8000_003C, 0x8000_0000, 0, 0])
        guard let passphraseFile else {
            try self.init(
                mnemonic: mnemonic, passphrase: UnsafeRawBufferPointer(start: nil, count: 0), path: resolvedPath,
                source: source)
            return
        }
        let (passphrase, passphraseLength) = try SecretFileReader.read(
            passphraseFile, maximumSize: Self.passphraseFileLimit)
        defer { passphrase.wipe() }
        let derived: Result<SoftwareKeySigner, SoftwareKeyError> = passphrase.withUnsafeBytes { bytes in
            let line = UnsafeRawBufferPointer(rebasing: bytes[0..<passphraseLength])
            let secret = UnsafeRawBufferPointer(rebasing: line[0..<SecretFileReader.lineLength(line)])
            return Result { () throws(SoftwareKeyError) in
                try SoftwareKeySigner(mnemonic: mnemonic, passphrase: secret, path: resolvedPath, source: source)
            }
        }
        self = try derived.get()
    }

    /// Seed, derivation, errors naming `source`.
    private init(mnemonic: Mnemonic, passphrase: UnsafeRawBufferPointer, path: DerivationPath, source: KeySource)
        throws(SoftwareKeyError)
    {
        let seed: SecureBytes
        do { seed = try mnemonic.seed(passphrase: passphrase) } catch { throw .mnemonic(source: source, reason: error) }
        defer { seed.wipe() }
        do { self.init(privateKey: try HDWallet.privateKey(seed: seed, path: path)) } catch {
            throw .derivation(source: source, reason: error)
        }
    }
}
