import EthereumPrimitives
import Secp256k1
import SoftwareSigner

/// Secrets read from files: keystore v3 JSON, BIP-39 mnemonics, BIP-32 paths.
enum SoftwareKeyTargets {
    /// Keystores whose KDF costs at most this many scrypt blocks or PBKDF2 rounds are decrypted; costlier
    /// ones are only parsed (the fuzzer would spend its time in the KDF, which is libgcrypt's).
    static let decryptionWorkCap = 64

    static let keystore = FuzzTarget(
        name: "keystore",
        summary: "Web3 keystore v3 JSON: typed errors, KDF limits; cheap keystores are decrypted (wrong password "
            + "or MAC refused, never a crash)"
    ) { bytes in
        let keystore: Web3Keystore
        do throws(KeystoreError) {
            keystore = try Web3Keystore(json: bytes)
        } catch {
            FuzzCheck.boundedDescription(error)
            return
        }
        FuzzCheck.expect(keystore.derivedKeyLength >= 32, "a derived key shorter than the MAC and AES keys")
        let cheap: Bool =
            switch keystore.kdf {
            case .scrypt(let n, let r, let p):
                n.multipliedReportingOverflow(by: r).partialValue <= decryptionWorkCap && p <= 2
            case .pbkdf2(let iterations): iterations <= decryptionWorkCap
            }
        guard cheap else { return }
        var password = Array("fuzz".utf8)
        do throws(KeystoreError) {
            let key = try keystore.decrypt(password: &password)
            if let stored = keystore.address {
                FuzzCheck.expect(key.address == stored, "a keystore decrypted to a key of another address")
            }
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }

    static let mnemonic = FuzzTarget(
        name: "mnemonic",
        summary: "BIP-39 English mnemonics: an accepted phrase re-reads to the same words; entropy round trip"
    ) { bytes in
        let result = bytes.withUnsafeBytes { text in
            Result { () throws(MnemonicError) in try Mnemonic(text: text) }
        }
        let parsed: Mnemonic
        switch result {
        case .success(let mnemonic): parsed = mnemonic
        case .failure(let error):
            FuzzCheck.boundedDescription(error)
            return
        }
        FuzzCheck.expect(Mnemonic.allowedWordCounts.contains(parsed.wordCount), "\(parsed.wordCount) words accepted")
        let phrase = parsed.withUnsafePhraseBytes { Array($0) }
        let again = phrase.withUnsafeBytes { try? Mnemonic(text: $0) }
        FuzzCheck.expect(again?.withUnsafePhraseBytes { Array($0) } == phrase, "the phrase does not re-read equal")
        FuzzCheck.expect(phrase.split(separator: 0x20).count == parsed.wordCount, "phrase word count differs")
    }

    /// The seed paths are derived from (BIP-32 test vector 1's seed).
    static let seed: SecureBytes = {
        var bytes = (0..<16).map { UInt8($0) }
        return SecureBytes(wiping: &bytes)
    }()

    static let derivationPath = FuzzTarget(
        name: "derivation-path",
        summary: "BIP-32 paths: an accepted path prints in canonical form and re-parses equal; short paths derive "
            + "a key deterministically"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        do throws(DerivationPathError) {
            let path = try DerivationPath(parsing: text)
            FuzzCheck.expect((try? DerivationPath(parsing: path.description)) == path, "canonical form re-parses")
            guard path.indices.count <= 6 else { return }
            let first = try? HDWallet.privateKey(seed: seed, path: path)
            let second = try? HDWallet.privateKey(seed: seed, path: path)
            FuzzCheck.expect(first?.address == second?.address, "derivation is not deterministic")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }
}
