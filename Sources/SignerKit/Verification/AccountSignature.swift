import EthereumPrimitives

/// A signature claimed to be `account`'s over `digest`: 65 bytes for an EOA, any bytes for a contract account
/// (ERC-1271), or an ERC-6492 wrapper for an account not deployed yet.
public struct AccountSignatureClaim: Sendable, Hashable {
    /// The account the signature is for.
    public let account: Address
    /// The digest SignerKit computed itself (EIP-191 message digest, EIP-712 digest…).
    public let digest: Digest32
    /// The signature bytes as given.
    public let signature: [UInt8]

    /// A claim that `signature` is `account`'s over `digest`.
    public init(account: Address, digest: Digest32, signature: [UInt8]) {
        self.account = account
        self.digest = digest
        self.signature = signature
    }
}

/// How a valid signature was found valid.
public enum AccountSignatureKind: String, Sendable, Hashable, CaseIterable {
    /// A 65-byte signature, low-s, recovering to the account (no node asked).
    case eoa
    /// The account's `isValidSignature(digest, signature)` answered `0x1626ba7e`.
    case erc1271
    /// An ERC-6492 wrapper: SignerKit's validator deployed the account inside a read-only call (when it had
    /// no code) and the account's `isValidSignature` answered `0x1626ba7e`.
    case erc6492
}

/// The verdict on one ``AccountSignatureClaim``.
public enum AccountSignatureVerdict: Sendable, Hashable, CustomStringConvertible {
    /// The signature is the account's.
    case valid(AccountSignatureKind)
    /// It is not; the text says why (what recovered, what the account answered).
    case invalid(String)

    /// Whether the verdict is ``valid(_:)``.
    public var isValid: Bool {
        if case .valid = self { return true }
        return false
    }

    /// `valid eoa`, `valid erc1271`, `valid erc6492`, or `invalid: <reason>`.
    public var description: String {
        switch self {
        case .valid(let kind): "valid \(kind.rawValue)"
        case .invalid(let reason): "invalid: \(reason)"
        }
    }
}
