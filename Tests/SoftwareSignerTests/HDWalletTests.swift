import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitTestSupport
import Testing

@testable import SoftwareSigner

/// One row of the shared `hd_wallets.jsonl` or `hd_invalid.jsonl` vectors.
struct HDRow: Sendable, CustomTestStringConvertible {
    let fields: [String: String]
    subscript(_ key: String) -> String { fields[key] ?? "" }
    var testDescription: String { self["name"] }

    static func load(_ name: String) throws -> [HDRow] {
        try Vectors.text(name).split(separator: "\n").map { line in
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
            return HDRow(fields: object)
        }
    }
}

/// Hex of a secure buffer, for comparing test output (test vectors only).
private func hex(_ bytes: SecureBytes) -> String {
    bytes.withUnsafeBytes { Hex.encode(Array($0)) }
}

@Suite("BIP-39 / BIP-32 HD wallets")
struct HDWalletTests {
    static let rows: [HDRow] = (try? HDRow.load("hd_wallets.jsonl")) ?? []
    static let invalid: [HDRow] = (try? HDRow.load("hd_invalid.jsonl")) ?? []

    @Test("the fixture files hold 36 and 12 rows")
    func rowCounts() {
        #expect(Self.rows.count == 36)
        #expect(Self.invalid.count == 12)
    }

    @Test("the wordlist is BIP-39 english.txt: published SHA-256, 2048 sorted unique words, same as embedded")
    func wordlist() throws {
        let file = try Data(contentsOf: TestSupport.fixtureURL("bip39-english.txt"))
        #expect(
            Hex.encode(HDCrypto.sha256(Array(file)), prefix: false)
                == "2f5eed53a4727b4bf8880d8f3f199efc90e58503646d9ff8eff3a2ed3b24dbda")
        let fileWords = String(decoding: file, as: UTF8.self).split(separator: "\n").map { Array($0.utf8) }
        #expect(fileWords.count == 2048)
        #expect(Mnemonic.words == fileWords)
        #expect(Set(Mnemonic.words).count == 2048)
        #expect(zip(Mnemonic.words, Mnemonic.words.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
    }

    @Test("entropy → mnemonic, mnemonic → seed → key → address, byte for byte", arguments: rows)
    func vector(_ row: HDRow) throws {
        let entropy = try Hex.decode(row["entropy"])
        let fromEntropy = entropy.withUnsafeBytes { Mnemonic(entropy: $0) }
        let phrase = fromEntropy.withUnsafePhraseBytes { String(decoding: $0, as: UTF8.self) }
        #expect(phrase == row["mnemonic"])

        let mnemonic = try Mnemonic(phrase: row["mnemonic"])
        #expect(mnemonic.wordCount == row["mnemonic"].split(separator: " ").count)
        let passphrase = Array(row["passphrase"].utf8)
        let seed = try passphrase.withUnsafeBytes { try mnemonic.seed(passphrase: $0) }
        #expect(hex(seed) == row["seed"])
        let path = try DerivationPath(parsing: row["path"])
        #expect(path.description == row["path"])
        let key = try HDWallet.privateKey(seed: seed, path: path)
        #expect(key.withUnsafeSecretBytes { Hex.encode(Array($0)) } == row["privateKey"])
        #expect(key.address.checksummed == row["address"])

        let signer = try passphrase.withUnsafeBytes {
            try SoftwareKeySigner(mnemonic: mnemonic, passphrase: $0, path: path)
        }
        #expect(signer.address.checksummed == row["address"])
    }

    @Test("invalid rows are refused naming the problem", arguments: invalid)
    func invalidRow(_ row: HDRow) throws {
        let expected: [String: String] = [
            "mnemonic-bad-checksum": "checksum",
            "mnemonic-unknown-word": "word 6 is an unknown word",
            "mnemonic-eleven-words": "has 11 words: the word count",
            "mnemonic-thirteen-words": "has 13 words: the word count",
            "mnemonic-empty": "mnemonic is empty",
            "mnemonic-comma-separated": "word 1 contains a character",
            "path-no-m": "must start with the segment \"m\"",
            "path-index-too-big": "segment 5 \"2147483648\": index must be below 2^31",
            "path-negative": "segment 2 \"-60'\": not a decimal index",
            "path-letters": "segment 2 \"eth'\": not a decimal index",
            "path-empty-segment": "segment 2 \"\": empty segment",
            "path-double-apostrophe": "segment 1 \"44''\": at most one hardened marker",
        ]
        let needle = try #require(expected[row["name"]])
        let message: String
        if row["name"].hasPrefix("mnemonic-") {
            let error = try #require(throws: MnemonicError.self) { try Mnemonic(phrase: row["mnemonic"]) }
            message = error.description
            #expect(try DerivationPath(parsing: row["path"]).description == row["path"])
        } else {
            _ = try Mnemonic(phrase: row["mnemonic"])
            let error = try #require(throws: DerivationPathError.self) { try DerivationPath(parsing: row["path"]) }
            message = error.description
        }
        #expect(message.contains(needle), "\(message)")
    }

    @Test("NFKD: a fully decomposed or full-width word reads as the wordlist word")
    func normalizedWords() throws {
        let row = Self.rows[0]
        let words = row["mnemonic"].split(separator: " ").map(String.init)
        var wide = words
        wide[0] = String(words[0].unicodeScalars.map { Character(UnicodeScalar($0.value - 0x61 + 0xFF41)!) })
        let mnemonic = try Mnemonic(phrase: wide.joined(separator: "\n  \t"))
        #expect(mnemonic.withUnsafePhraseBytes { String(decoding: $0, as: UTF8.self) } == row["mnemonic"])
        // The passphrase is normalised too: composed and decomposed forms give one seed.
        let composed = Array("caf\u{E9}".utf8)
        let decomposed = Array("cafe\u{301}".utf8)
        let a = try composed.withUnsafeBytes { try mnemonic.seed(passphrase: $0) }
        let b = try decomposed.withUnsafeBytes { try mnemonic.seed(passphrase: $0) }
        #expect(hex(a) == hex(b))
        let invalidUTF8: [UInt8] = [0xFF, 0xFE]
        #expect(throws: MnemonicError.passphraseNotUTF8) {
            try invalidUTF8.withUnsafeBytes { try mnemonic.seed(passphrase: $0) }
        }
    }

    @Test("generated mnemonics have the requested word count, a valid checksum, and differ")
    func generate() throws {
        for count in [12, 15, 18, 21, 24] {
            let mnemonic = Mnemonic.generate(wordCount: count)
            #expect(mnemonic.wordCount == count)
            let phrase = mnemonic.withUnsafePhraseBytes { String(decoding: $0, as: UTF8.self) }
            #expect(try Mnemonic(phrase: phrase).wordCount == count)
            // Exactly the redacted form: no word of the phrase (a check for the first word failed whenever it was
            // "word", "act" or "red", which the redacted form itself contains).
            #expect(mnemonic.description == "Mnemonic(\(count) words, redacted)")
        }
        let a = Mnemonic.generate().withUnsafePhraseBytes { String(decoding: $0, as: UTF8.self) }
        let b = Mnemonic.generate().withUnsafePhraseBytes { String(decoding: $0, as: UTF8.self) }
        #expect(a != b)
    }

    @Test("paths: hardened markers, the BIP-44 default, master key")
    func paths() throws {
        #expect(try DerivationPath(parsing: "m/44h/60H/0'/0/3") == DerivationPath.ethereum(index: 3))
        #expect(try DerivationPath.ethereum(index: 0).description == "m/44'/60'/0'/0/0")
        #expect(try DerivationPath(parsing: "m").indices.isEmpty)
        #expect(throws: DerivationPathError.self) { try DerivationPath.ethereum(index: -1) }
        #expect(throws: DerivationPathError.self) { try DerivationPath(parsing: "m/2147483648'") }
        #expect(throws: DerivationPathError.self) { try DerivationPath(parsing: "m/") }
        #expect(throws: DerivationPathError.self) { try DerivationPath(parsing: "m/+1") }
        #expect(throws: DerivationPathError.self) { try DerivationPath(parsing: "m/'") }
    }

    @Test("mnemonic and passphrase files: vectors, default path, secret-file rules")
    func files() throws {
        let row = try #require(Self.rows.first { $0["passphrase"].isEmpty == false })
        let mnemonicPath = try TestSupport.temporaryFile(row["mnemonic"] + "\n", name: "words")
        let passphrasePath = try TestSupport.temporaryFile(row["passphrase"] + "\n", name: "pass")
        defer {
            TestSupport.remove(mnemonicPath)
            TestSupport.remove(passphrasePath)
        }
        chmod(mnemonicPath, 0o600)
        chmod(passphrasePath, 0o600)
        let signer = try SoftwareKeySigner(
            mnemonicFile: mnemonicPath, passphraseFile: passphrasePath, path: DerivationPath(parsing: row["path"]))
        #expect(signer.address.checksummed == row["address"])

        let seed = try Mnemonic(phrase: row["mnemonic"]).seed(passphrase: UnsafeRawBufferPointer(start: nil, count: 0))
        let expected = try HDWallet.privateKey(seed: seed, path: .ethereum(index: 0))
        #expect(try SoftwareKeySigner(mnemonicFile: mnemonicPath).address == expected.address)

        chmod(mnemonicPath, 0o644)
        let error = try #require(throws: SoftwareKeyError.self) { try SoftwareKeySigner(mnemonicFile: mnemonicPath) }
        #expect(error.description.contains("mode 0644"))
        chmod(mnemonicPath, 0o600)
        let link = mnemonicPath + ".link"
        symlink(mnemonicPath, link)
        defer { unlink(link) }
        let linkError = try #require(throws: SoftwareKeyError.self) { try SoftwareKeySigner(mnemonicFile: link) }
        #expect(linkError.description.contains("symbolic link"))
        let fifo = mnemonicPath + ".fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        let fifoError = try #require(throws: SoftwareKeyError.self) { try SoftwareKeySigner(mnemonicFile: fifo) }
        #expect(fifoError == .insecureFile(path: fifo, reason: "is not a regular file"))
        let bad = try TestSupport.temporaryFile("abandon abandon", name: "bad")
        defer { TestSupport.remove(bad) }
        chmod(bad, 0o600)
        let badError = try #require(throws: SoftwareKeyError.self) { try SoftwareKeySigner(mnemonicFile: bad) }
        #expect(badError == .mnemonic(source: .mnemonicFile(path: bad), reason: .wordCount(2)))
        #expect(!signer.description.contains(row["mnemonic"]))
    }
}
