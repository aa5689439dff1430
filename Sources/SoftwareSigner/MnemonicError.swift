import EthereumPrimitives

/// Why a BIP-39 mnemonic (or its passphrase) was refused.
///
/// No case carries any of the phrase: even a mistyped word is most of a secret word (one letter off), so
/// errors name positions only.
public enum MnemonicError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The phrase has no words.
    case empty
    /// Word `position` (from 1) contains a character that is neither a letter of a wordlist word nor
    /// a separator (words are separated by spaces, tabs or newlines; a comma is refused here).
    case invalidCharacter(position: Int)
    /// Word `position` (from 1) is not in the BIP-39 English wordlist.
    case unknownWord(position: Int)
    /// The phrase has this many words; BIP-39 allows 12, 15, 18, 21 or 24.
    case wordCount(Int)
    /// The words are known but their checksum bits do not match the entropy.
    case checksum
    /// The passphrase is not valid UTF-8.
    case passphraseNotUTF8

    /// A one-line explanation naming the problem.
    public var description: String {
        switch self {
        case .empty: "mnemonic is empty"
        case .invalidCharacter(let position):
            "mnemonic word \(position) contains a character that is not a lower-case letter; separate words with spaces"
        case .unknownWord(let position):
            "mnemonic word \(position) is an unknown word (not in the BIP-39 English wordlist)"
        case .wordCount(let count):
            "mnemonic has \(count) word\(count == 1 ? "" : "s"): the word count must be 12, 15, 18, 21 or 24"
        case .checksum: "mnemonic checksum does not match: a word is wrong or out of order"
        case .passphraseNotUTF8: "mnemonic passphrase is not valid UTF-8"
        }
    }
}
