import Foundation
import Secp256k1
import SignerKitSupport

/// A BIP-39 mnemonic (English wordlist) with a valid checksum, held as word indices in secure
/// memory (`SecureBytes`, wiped on release).
///
/// Parsing splits on ASCII whitespace, applies NFKD to any non-ASCII word, and checks every word,
/// the word count (12, 15, 18, 21 or 24) and the checksum. The phrase used for the seed is always
/// rebuilt from the wordlist with single spaces, so stray whitespace in a file does not change it.
public final class Mnemonic: Sendable {
    /// BIP-39's allowed word counts.
    public static let allowedWordCounts: Set<Int> = [12, 15, 18, 21, 24]

    /// Most bytes of phrase text accepted (24 words of at most 8 letters need far fewer).
    public static let maximumTextLength = 4096

    /// Two bytes per word, big-endian 11-bit index.
    private let indices: SecureBytes

    /// Number of words.
    public let wordCount: Int

    /// The wordlist as byte arrays, in order (sorted, so it can be binary-searched).
    static let words: [[UInt8]] = BIP39EnglishWordlist.text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        .map { Array($0.utf8) }

    private init(indices: SecureBytes, wordCount: Int) {
        self.indices = indices
        self.wordCount = wordCount
    }

    /// Parses phrase text (UTF-8) read into memory the caller controls (for example a secret
    /// file read into secure memory); the caller's bytes are only read.
    ///
    /// Non-ASCII words are normalised with NFKD, which needs an ordinary Swift string briefly;
    /// ASCII words never leave `text`.
    ///
    /// - Throws: ``MnemonicError`` naming the problem (and the word's position).
    public convenience init(text: UnsafeRawBufferPointer) throws(MnemonicError) {
        let tokens = Self.tokens(text)
        guard !tokens.isEmpty else { throw .empty }
        let indices = try SecureBytes(count: 2 * tokens.count) {
            (out: UnsafeMutableRawBufferPointer) throws(MnemonicError) in
            for (number, range) in tokens.enumerated() {
                let index = try Self.lookup(UnsafeRawBufferPointer(rebasing: text[range]), position: number + 1)
                out[2 * number] = UInt8(index >> 8)
                out[2 * number + 1] = UInt8(index & 0xFF)
            }
        }
        guard Self.allowedWordCounts.contains(tokens.count) else { throw .wordCount(tokens.count) }
        self.init(indices: indices, wordCount: tokens.count)
        try verifyChecksum()
    }

    /// Parses a phrase given as a Swift string (which cannot be wiped; prefer
    /// ``init(text:)`` with secure memory).
    public convenience init(phrase: String) throws(MnemonicError) {
        var phrase = phrase
        let result: Result<Mnemonic, MnemonicError> = phrase.withUTF8 { utf8 in
            Result { () throws(MnemonicError) in try Mnemonic(text: UnsafeRawBufferPointer(utf8)) }
        }
        let parsed = try result.get()
        self.init(indices: parsed.copyOfIndices(), wordCount: parsed.wordCount)
    }

    /// The mnemonic for `entropy` (16, 20, 24, 28 or 32 bytes: 12–24 words); the caller's buffer is
    /// only read.
    ///
    /// - Precondition: a valid entropy length.
    public convenience init(entropy: UnsafeRawBufferPointer) {
        precondition([16, 20, 24, 28, 32].contains(entropy.count), "BIP-39 entropy has 16 to 32 bytes in steps of 4")
        let count = entropy.count * 3 / 4
        let checksumBits = entropy.count / 4
        let checksum = HDCrypto.sha256FirstByte(entropy) >> (8 - checksumBits)
        let indices = SecureBytes(count: 2 * count) { (out: UnsafeMutableRawBufferPointer) in
            for word in 0..<count {
                var value = 0
                for bit in 0..<11 {
                    let position = word * 11 + bit
                    let set: Bool
                    if position < entropy.count * 8 {
                        set = entropy[position / 8] & (0x80 >> (position % 8)) != 0
                    } else {
                        set = (checksum >> (checksumBits - 1 - (position - entropy.count * 8))) & 1 != 0
                    }
                    value = value << 1 | (set ? 1 : 0)
                }
                out[2 * word] = UInt8(value >> 8)
                out[2 * word + 1] = UInt8(value & 0xFF)
            }
        }
        self.init(indices: indices, wordCount: count)
    }

    /// A new mnemonic of `wordCount` words from libgcrypt's `GCRY_VERY_STRONG_RANDOM` generator;
    /// the entropy is generated and wiped in secure memory.
    ///
    /// - Precondition: `wordCount` is 12, 15, 18, 21 or 24.
    public static func generate(wordCount: Int = 12) -> Mnemonic {
        precondition(allowedWordCounts.contains(wordCount), "BIP-39 word count must be 12, 15, 18, 21 or 24")
        let entropy = SecureBytes.random(count: wordCount * 4 / 3)
        defer { entropy.wipe() }
        return entropy.withUnsafeBytes { Mnemonic(entropy: $0) }
    }

    /// Calls `body` with the phrase (words joined by single spaces, no newline) assembled in
    /// secure memory and wiped afterwards.
    ///
    /// - Warning: The view is valid only during `body`; never copy it into ordinary memory, log it
    ///   or let it escape.
    public func withUnsafePhraseBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let phrase = sentence()
        defer { phrase.wipe() }
        return try phrase.withUnsafeBytes { try body($0) }
    }

    /// The 64-byte BIP-39 seed: PBKDF2-HMAC-SHA512 over the phrase, salt `"mnemonic"` + the
    /// NFKD-normalised passphrase (UTF-8), 2048 rounds. The passphrase is only read; an empty one
    /// is allowed. A non-ASCII passphrase passes through an ordinary string for NFKD.
    ///
    /// - Throws: ``MnemonicError/passphraseNotUTF8``.
    public func seed(passphrase: UnsafeRawBufferPointer) throws(MnemonicError) -> SecureBytes {
        let salt = try Self.salt(passphrase: passphrase)
        defer { salt.wipe() }
        let phrase = sentence()
        defer { phrase.wipe() }
        return phrase.withUnsafeBytes { password in
            salt.withUnsafeBytes { HDCrypto.pbkdf2SHA512(password: password, salt: $0, iterations: 2048) }
        }
    }

    // MARK: internals

    /// A copy of the index buffer (for the string initialiser).
    private func copyOfIndices() -> SecureBytes { SecureBytes(copying: indices) }

    /// The word index at `position` (from 0).
    private func index(_ position: Int) -> Int {
        indices.withUnsafeBytes { Int($0[2 * position]) << 8 | Int($0[2 * position + 1]) }
    }

    /// Words joined by single spaces, in secure memory (the indices are read one at a time, never
    /// collected in ordinary memory).
    private func sentence() -> SecureBytes {
        var length = wordCount - 1
        for position in 0..<wordCount { length += Self.words[index(position)].count }
        return SecureBytes(count: length) { (out: UnsafeMutableRawBufferPointer) in
            var offset = 0
            for position in 0..<wordCount {
                if position > 0 {
                    out[offset] = 0x20
                    offset += 1
                }
                for byte in Self.words[index(position)] {
                    out[offset] = byte
                    offset += 1
                }
            }
        }
    }

    /// Recomputes the checksum from the entropy bits the words carry.
    private func verifyChecksum() throws(MnemonicError) {
        let entropyBytes = wordCount * 4 / 3
        let checksumBits = wordCount / 3
        var checksum: UInt8 = 0
        let entropy = SecureBytes(count: entropyBytes) { (out: UnsafeMutableRawBufferPointer) in
            for position in 0..<(wordCount * 11) {
                let value = index(position / 11)
                let set = (value >> (10 - position % 11)) & 1 != 0
                if position < entropyBytes * 8 {
                    if set { out[position / 8] |= 0x80 >> (position % 8) }
                } else {
                    checksum = checksum << 1 | (set ? 1 : 0)
                }
            }
        }
        defer { entropy.wipe() }
        let expected = entropy.withUnsafeBytes { HDCrypto.sha256FirstByte($0) } >> (8 - checksumBits)
        guard expected == checksum else { throw .checksum }
    }

    /// Byte ranges of the whitespace-separated words.
    private static func tokens(_ text: UnsafeRawBufferPointer) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start: Int?
        for offset in 0..<text.count {
            let byte = text[offset]
            let separator = byte == 0x20 || (0x09...0x0D).contains(byte)
            if separator, let first = start {
                ranges.append(first..<offset)
                start = nil
            } else if !separator, start == nil {
                start = offset
            }
        }
        if let first = start { ranges.append(first..<text.count) }
        return ranges
    }

    /// The wordlist index of one word (NFKD-normalised first if it is not ASCII).
    private static func lookup(_ word: UnsafeRawBufferPointer, position: Int) throws(MnemonicError) -> Int {
        if word.allSatisfy({ (0x61...0x7A).contains($0) }) {
            if let index = search(word) { return index }
            throw .unknownWord(position: position)
        }
        guard word.contains(where: { $0 >= 0x80 }), let text = String(bytes: word, encoding: .utf8) else {
            throw .invalidCharacter(position: position)
        }
        let normalized = Array(text.decomposedStringWithCompatibilityMapping.utf8)
        guard normalized.allSatisfy({ (0x61...0x7A).contains($0) }) else {
            throw .unknownWord(position: position)
        }
        let found = normalized.withUnsafeBytes { search($0) }
        guard let found else { throw .unknownWord(position: position) }
        return found
    }

    /// Binary search of the (byte-sorted) wordlist.
    private static func search(_ word: UnsafeRawBufferPointer) -> Int? {
        var low = 0
        var high = words.count
        while low < high {
            let middle = (low + high) / 2
            let candidate = words[middle]
            if candidate.lexicographicallyPrecedes(word) {
                low = middle + 1
            } else if word.lexicographicallyPrecedes(candidate) {
                high = middle
            } else {
                return middle
            }
        }
        return nil
    }

    /// `"mnemonic"` + NFKD(passphrase) in secure memory.
    private static func salt(passphrase: UnsafeRawBufferPointer) throws(MnemonicError) -> SecureBytes {
        let prefix = Array("mnemonic".utf8)
        if passphrase.allSatisfy({ $0 < 0x80 }) {
            return SecureBytes(count: prefix.count + passphrase.count) { (out: UnsafeMutableRawBufferPointer) in
                prefix.withUnsafeBytes { out.copyMemory(from: $0) }
                UnsafeMutableRawBufferPointer(rebasing: out[prefix.count...]).copyMemory(from: passphrase)
            }
        }
        guard let text = String(bytes: passphrase, encoding: .utf8) else { throw .passphraseNotUTF8 }
        var normalized = Array(text.decomposedStringWithCompatibilityMapping.utf8)
        defer { normalized.withUnsafeMutableBytes { MemoryWiping.wipe($0) } }
        return SecureBytes(count: prefix.count + normalized.count) { (out: UnsafeMutableRawBufferPointer) in
            prefix.withUnsafeBytes { out.copyMemory(from: $0) }
            normalized.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: out[prefix.count...]).copyMemory(from: $0)
            }
        }
    }
}

extension Mnemonic: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `Mnemonic(12 words, redacted)`.
    public var description: String { "Mnemonic(\(wordCount) words, redacted)" }

    /// The same redacted form as ``description``.
    public var debugDescription: String { description }

    /// A mirror that shows only the word count.
    public var customMirror: Mirror { Mirror(self, children: ["wordCount": wordCount], displayStyle: .class) }
}
