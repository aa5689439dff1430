import EthereumPrimitives
import Foundation

/// An EIP-4361 "Sign-In with Ethereum" message: parsed strictly from its text, or built from fields, and
/// written back to the exact bytes that are signed (``text``).
///
/// Every value is checked against the specification's ABNF when the message is made, so a
/// `SignInMessage` is always well formed and `try SignInMessage(parsing: m.text) == m`; parsing refuses any
/// text that would not be written back byte for byte (a leading zero in `Chain ID`, a line break at the
/// end), so ``text`` is also the text that was parsed.
///
/// ```swift
/// let message = try SignInMessage(parsing: text)
/// let signer = try message.verify(signature: signature, expectedDomain: "example.com", at: Date())
/// ```
public struct SignInMessage: Sendable, Hashable, CustomStringConvertible {
    /// The header's fixed text after the domain.
    public static let headerSuffix = " wants you to sign in with your Ethereum account:"
    /// The only version this specification defines.
    public static let version = "1"
    /// The longest message accepted, in bytes (the specification asks implementers to choose one).
    public static let maximumLength = 65_536
    /// The fewest characters of a nonce.
    public static let minimumNonceLength = 8

    /// The URI scheme of the requesting origin (`https`), when the header names one; absent means `https`.
    public let scheme: String?
    /// The RFC 3986 authority that requests the signature (`example.com`, `example.com:3388`).
    public let domain: String
    /// The account signing in, written in its EIP-55 checksum form.
    public let address: Address
    /// A human-readable ASCII assertion, when there is one (one line, RFC 3986 reserved and unreserved
    /// characters and spaces).
    public let statement: String?
    /// The RFC 3986 URI that is the subject of the signing.
    public let uri: String
    /// The EIP-155 chain the session is bound to.
    public let chainId: UInt256
    /// At least 8 letters and digits chosen by the relying party against replay.
    public let nonce: String
    /// When the message was made.
    public let issuedAt: RFC3339DateTime
    /// When the signed message stops being valid, if it does.
    public let expirationTime: RFC3339DateTime?
    /// When the signed message starts being valid, if not at once.
    public let notBefore: RFC3339DateTime?
    /// A system-specific identifier of the request (`*pchar`, possibly empty), when there is one.
    public let requestId: String?
    /// The resources (RFC 3986 URIs), or `nil` when the message has no `Resources:` line (`[]` is a
    /// `Resources:` line with no entries).
    public let resources: [String]?

    /// Builds a message, checking every field against the EIP-4361 grammar.
    ///
    /// - Throws: ``SignInMessageError`` naming the field (its `line` is `nil`).
    public init(
        scheme: String? = nil, domain: String, address: Address, statement: String? = nil, uri: String,
        chainId: UInt256, nonce: String, issuedAt: RFC3339DateTime, expirationTime: RFC3339DateTime? = nil,
        notBefore: RFC3339DateTime? = nil, requestId: String? = nil, resources: [String]? = nil
    ) throws(SignInMessageError) {
        if let scheme { try Self.checkScheme(Array(scheme.utf8)[...], line: nil) }
        try Self.checkDomain(Array(domain.utf8)[...], line: nil)
        if let statement { try Self.checkStatement(Array(statement.utf8)[...], line: nil) }
        try Self.checkURI(Array(uri.utf8)[...], field: .uri, line: nil)
        try Self.checkNonce(Array(nonce.utf8)[...], line: nil)
        if let requestId { try Self.checkRequestId(Array(requestId.utf8)[...], line: nil) }
        for resource in resources ?? [] { try Self.checkURI(Array(resource.utf8)[...], field: .resources, line: nil) }
        self.scheme = scheme
        self.domain = domain
        self.address = address
        self.statement = statement
        self.uri = uri
        self.chainId = chainId
        self.nonce = nonce
        self.issuedAt = issuedAt
        self.expirationTime = expirationTime
        self.notBefore = notBefore
        self.requestId = requestId
        self.resources = resources
        let length = text.utf8.count
        guard length <= Self.maximumLength else {
            throw SignInMessageError(
                line: nil, field: .message, problem: "\(length) bytes, more than the \(Self.maximumLength) accepted")
        }
    }

    /// The message text, exactly as it is signed (lines joined by LF, no line break at the end).
    public var text: String {
        var lines: [String] = []
        lines.append((scheme.map { $0 + "://" } ?? "") + domain + Self.headerSuffix)
        lines.append(address.checksummed)
        lines.append("")
        if let statement { lines.append(statement) }
        lines.append("")
        lines.append("URI: " + uri)
        lines.append("Version: " + Self.version)
        lines.append("Chain ID: " + chainId.decimalString)
        lines.append("Nonce: " + nonce)
        lines.append("Issued At: " + issuedAt.text)
        if let expirationTime { lines.append("Expiration Time: " + expirationTime.text) }
        if let notBefore { lines.append("Not Before: " + notBefore.text) }
        if let requestId { lines.append("Request ID: " + requestId) }
        if let resources {
            lines.append("Resources:")
            lines += resources.map { "- " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    /// The message bytes that are signed (the UTF-8, here ASCII, of ``text``).
    public var bytes: [UInt8] { Array(text.utf8) }

    /// The `personal_sign` (EIP-191) digest of the message, computed by SignerKit.
    public var personalSignDigest: Digest32 { PersonalMessage.digest(bytes) }

    /// The message text (what is signed).
    public var description: String { text }

    /// A `personal_sign` action asking ``address`` to sign this message, on `chain` (by default the
    /// message's own `eip155:<Chain ID>`). The message travels as 0x-hex of its bytes, so no wallet can
    /// read it differently.
    public func personalSignAction(chain requested: ChainID? = nil) throws(CAIPError) -> WalletRpcAction {
        let chain: ChainID
        if let requested { chain = requested } else { chain = try ChainID(eip155ChainID: chainId) }
        let params = JSONValue.array([.string(Hex.encode(bytes)), .string(address.checksummed)])
        return WalletRpcAction(chainId: chain, method: .personalSign, params: params.serialized)
    }
}

extension SignInMessage {
    // MARK: - Field grammar (shared by the parser and the initializer)

    static func fail(_ field: SignInMessageError.Field, _ line: Int?, _ problem: String) -> SignInMessageError {
        SignInMessageError(line: line, field: field, problem: problem)
    }

    static func checkScheme(_ bytes: ArraySlice<UInt8>, line: Int?) throws(SignInMessageError) {
        if let problem = URIGrammar.checkScheme(bytes) {
            throw fail(.scheme, line, "\(SignInMessageError.quote(bytes)) is not an RFC 3986 scheme: \(problem)")
        }
    }

    static func checkDomain(_ bytes: ArraySlice<UInt8>, line: Int?) throws(SignInMessageError) {
        guard !bytes.isEmpty else { throw fail(.domain, line, "empty (a domain is required)") }
        if case .failure(let problem) = URIGrammar.parseAuthority(bytes, requireHost: true) {
            throw fail(
                .domain, line, "\(SignInMessageError.quote(bytes)) is not an RFC 3986 authority: \(problem.text)")
        }
    }

    static func checkStatement(_ bytes: ArraySlice<UInt8>, line: Int?) throws(SignInMessageError) {
        let problem = URIGrammar.check(bytes, percent: false) {
            URIGrammar.isReserved($0) || URIGrammar.isUnreserved($0) || $0 == 0x20
        }
        if let problem {
            throw fail(
                .statement, line,
                "\(problem) in \(SignInMessageError.quote(bytes)) (a statement is one line of RFC 3986 reserved and unreserved characters and spaces)"
            )
        }
    }

    static func checkURI(_ bytes: ArraySlice<UInt8>, field: SignInMessageError.Field, line: Int?)
        throws(SignInMessageError)
    {
        if let problem = URIGrammar.checkURI(bytes) {
            throw fail(field, line, "\(SignInMessageError.quote(bytes)) is not an RFC 3986 URI: \(problem)")
        }
    }

    static func checkNonce(_ bytes: ArraySlice<UInt8>, line: Int?) throws(SignInMessageError) {
        if let bad = bytes.first(where: { !URIGrammar.isAlpha($0) && !URIGrammar.isDigit($0) }) {
            throw fail(
                .nonce, line,
                "\(URIGrammar.describe(bad)) in \(SignInMessageError.quote(bytes)) (letters and digits only)")
        }
        guard bytes.count >= minimumNonceLength else {
            throw fail(
                .nonce, line,
                "\(SignInMessageError.quote(bytes)) has \(bytes.count) characters, fewer than the \(minimumNonceLength) required"
            )
        }
    }

    static func checkRequestId(_ bytes: ArraySlice<UInt8>, line: Int?) throws(SignInMessageError) {
        if let problem = URIGrammar.checkPchars(bytes) {
            throw fail(
                .requestId, line, "\(problem) in \(SignInMessageError.quote(bytes)) (RFC 3986 pchar characters only)")
        }
    }
}
