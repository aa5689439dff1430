import EthereumPrimitives

/// The origin a sign-in request really comes from (`https://example.com`, `http://localhost:3000`): a
/// scheme, a host and a port, the port defaulting to the scheme's (443 for `https` and `wss`, 80 for `http`
/// and `ws`).
public struct SignInOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, in lower case.
    public let scheme: String
    /// The host, in lower case (an IPv6 literal keeps its brackets).
    public let host: String
    /// The port, explicit or the scheme's default; `nil` for a scheme without a default and no port.
    public let port: UInt16?

    /// Parses `scheme://host[:port]` (an origin as browsers serialise it, a trailing `/` allowed) or
    /// `host[:port]`, which means `https`.
    ///
    /// - Throws: ``SignInOriginError`` naming what is wrong.
    public init(_ text: String) throws(SignInOriginError) {
        var authority = text
        var scheme = "https"
        if let separator = text.range(of: "://") {
            scheme = String(text[..<separator.lowerBound])
            authority = String(text[separator.upperBound...])
            if authority.hasSuffix("/") { authority.removeLast() }
            if let problem = URIGrammar.checkScheme(Array(scheme.utf8)[...]) {
                throw SignInOriginError(text: text, problem: problem)
            }
        }
        try self.init(scheme: scheme, authority: authority, original: text)
    }

    /// The origin a sign-in message names: its scheme (`https` when absent) and domain.
    ///
    /// - Throws: ``SignInOriginError`` when the domain carries user info (`user@host`) or a port that is
    ///   not a 16-bit number.
    public init(of message: SignInMessage) throws(SignInOriginError) {
        try self.init(
            scheme: message.scheme ?? "https", authority: message.domain,
            original: (message.scheme.map { $0 + "://" } ?? "") + message.domain)
    }

    private init(scheme: String, authority: String, original: String) throws(SignInOriginError) {
        let bytes = Array(authority.utf8)[...]
        let parts: URIGrammar.Authority
        switch URIGrammar.parseAuthority(bytes, requireHost: true) {
        case .success(let value): parts = value
        case .failure(let problem): throw SignInOriginError(text: original, problem: problem.text)
        }
        guard parts.userInfo == nil else {
            throw SignInOriginError(text: original, problem: "user info before \"@\" (an origin has none)")
        }
        self.scheme = scheme.lowercased()
        host = String(decoding: parts.host, as: UTF8.self).lowercased()
        if let digits = parts.port, !digits.isEmpty {
            guard digits.count <= 5, let value = UInt16(String(decoding: digits, as: UTF8.self)) else {
                throw SignInOriginError(text: original, problem: "port above 65535")
            }
            port = value
        } else {
            port = Self.defaultPort(self.scheme)
        }
    }

    /// The scheme's default port, if it has one.
    public static func defaultPort(_ scheme: String) -> UInt16? {
        switch scheme.lowercased() {
        case "https", "wss": 443
        case "http", "ws": 80
        default: nil
        }
    }

    /// `scheme://host[:port]`, the port shown unless it is the scheme's default.
    public var description: String {
        let shownPort = port.flatMap { $0 == Self.defaultPort(scheme) ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(shownPort)"
    }
}

/// Why a text is not an origin.
public struct SignInOriginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text, abbreviated.
    public let text: String
    /// What is wrong.
    public let problem: String

    /// An error about `text` (kept abbreviated).
    public init(text: String, problem: String) {
        self.text = EchoedText.abbreviated(text)
        self.problem = problem
    }

    /// `invalid origin "…": …`.
    public var description: String { "invalid origin \(text.debugDescription): \(problem)" }
}

/// Refuses a `personal_sign` of an EIP-4361 sign-in message for another origin than the one the request
/// comes from — the phishing case: a page at `evil.example` asking to sign in to `example.com` (EIP-4361,
/// "Verifying the Request Origin").
///
/// A message whose scheme (`https` when it names none), host and port (the scheme's default when absent)
/// are those of one of ``origins`` passes; other sign-in messages are refused. So is any message that
/// contains the phrase "wants you to sign in with your Ethereum account" but is not a well-formed EIP-4361
/// message (the specification asks wallets to warn of those; a policy cannot warn), and a message whose
/// domain carries user info (`example.com@evil.example`). Messages without the phrase, typed data and
/// transactions pass.
///
/// ```swift
/// let origin = try SignInOrigin("https://example.com")  // where the request really comes from
/// let dispatcher = RpcDispatcher { SignInDomainBinding(origins: [origin]) }
/// ```
public struct SignInDomainBinding: ActionPolicy {
    /// The origins sign-in messages may name.
    public let origins: [SignInOrigin]

    /// What the specification's wallets look for in a message that claims to be a sign-in request.
    public static let phrase = Array("wants you to sign in with your Ethereum account".utf8)

    /// Allows sign-in messages for `origins`.
    public init(origins: [SignInOrigin]) { self.origins = origins }

    /// Allows sign-in messages for one origin (`https://example.com`, or `example.com` for `https`).
    ///
    /// - Throws: ``SignInOriginError`` when `origin` is not one.
    public init(origin: String) throws(SignInOriginError) { self.init(origins: [try SignInOrigin(origin)]) }

    /// Fails sign-in messages for another origin, and malformed ones.
    public func evaluate(_ request: ResolvedRequest) -> PolicyDecision {
        guard case .personalMessage(let bytes, _) = request.payload, Self.containsPhrase(bytes) else { return .pass }
        let message: SignInMessage
        do { message = try SignInMessage(bytes: bytes) } catch {
            return .fail(
                reason:
                    "the message asks to sign in with an Ethereum account but is not a valid EIP-4361 message: \(error)"
            )
        }
        let origin: SignInOrigin
        do { origin = try SignInOrigin(of: message) } catch {
            return .fail(reason: "sign-in message with an unusable domain: \(error)")
        }
        guard !origins.contains(origin) else { return .pass }
        let expected = origins.map(\.description).joined(separator: ", ")
        return .fail(
            reason:
                "sign-in message for \(EchoedText.abbreviated(origin.description)), not for \(origins.count == 1 ? "the request's origin" : "one of") \(expected.isEmpty ? "(none allowed)" : expected)"
        )
    }

    /// Whether `bytes` contain ``phrase``.
    static func containsPhrase(_ bytes: [UInt8]) -> Bool {
        let phrase = Self.phrase
        guard bytes.count >= phrase.count, let first = phrase.first else { return false }
        var index = 0
        while index + phrase.count <= bytes.count {
            if bytes[index] == first, bytes[index..<(index + phrase.count)].elementsEqual(phrase) { return true }
            index += 1
        }
        return false
    }
}
