import EthereumPrimitives

/// Why a callback URL is not a well-formed Waypoint response.
public enum CallbackParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not a URL with a scheme and a query (the text says what is wrong).
    case malformedURL(String)
    /// A required parameter (`state`, `type`, `method`, `data` for success, `code` for failure) is absent.
    case missingParameter(String)
    /// A parameter occurs more than once.
    case duplicateParameter(String)
    /// A parameter is not valid percent-encoding or UTF-8.
    case invalidEncoding(String)
    /// `type` is neither `success` nor `fail`.
    case invalidType(String)
    /// `method` is none of `auth`, `send`, `sign`.
    case invalidMethod(String)
    /// `code` is not a decimal number.
    case nonNumericCode(String)

    /// A one-line explanation (values are quoted and cut short).
    public var description: String {
        switch self {
        case .malformedURL(let reason): "malformed callback URL: \(reason)"
        case .missingParameter(let name): "callback has no \(name) parameter"
        case .duplicateParameter(let name): "callback repeats the \(name) parameter"
        case .invalidEncoding(let name): "callback parameter \(Self.shown(name)) is not valid percent-encoded UTF-8"
        case .invalidType(let value): "callback type \(Self.shown(value)) is neither success nor fail"
        case .invalidMethod(let value): "callback method \(Self.shown(value)) is none of auth, send, sign"
        case .nonNumericCode(let value): "callback code \(Self.shown(value)) is not a number"
        }
    }

    /// The untrusted value quoted: abbreviated, with runs of 64+ hex digits (a pasted key) redacted
    /// before the cut (``EchoedText/abbreviated(_:)``).
    static func shown(_ text: String) -> String {
        EchoedText.abbreviated(text).debugDescription
    }
}

/// A `type=fail` callback: the hosted wallet's error.
public struct WaypointFailure: Sendable, Hashable, CustomStringConvertible {
    /// The code (unknown codes are kept as ``WaypointErrorCode/unknown(_:)``).
    public let code: WaypointErrorCode
    /// The error name: the `[NAME]` prefix of the message, else the code's known name.
    public let name: String?
    /// The message text after any `[NAME]` prefix, form-decoded.
    public let message: String

    /// Builds a failure.
    public init(code: WaypointErrorCode, name: String?, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// Splits a wire message `[NAME] text` into its name and text.
    public init(code: WaypointErrorCode, wireMessage: String) {
        var name = code.name
        var text = wireMessage
        if wireMessage.hasPrefix("["), let close = wireMessage.firstIndex(of: "]") {
            let inner = wireMessage[wireMessage.index(after: wireMessage.startIndex)..<close]
            if !inner.isEmpty, inner.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                name = String(inner)
                // One space separates the name from the text; any further ones belong to the text, so that
                // `wireMessage` reads back as the same failure.
                let rest = wireMessage[wireMessage.index(after: close)...]
                text = String(rest.hasPrefix(" ") ? rest.dropFirst() : rest)
            }
        }
        self.init(code: code, name: name, message: text)
    }

    /// The message as sent on the wire: `[NAME] text` (or the text alone without a name).
    public var wireMessage: String {
        guard let name else { return message }
        return message.isEmpty ? "[\(name)]" : "[\(name)] \(message)"
    }

    /// `[WALLET_USER_CANCEL] User rejected (code 1000)`.
    public var description: String { "\(wireMessage) (code \(code.code))" }
}

/// A parsed callback URL: `<redirect>?state=…&method=…&version=…&type=success&data=…[&address=…]`
/// (an authorize answer to a PKCE request may carry `authorization_code` instead of `data`)
/// or `…&type=fail&code=NNNN&message=%5BNAME%5D+text`.
///
/// Parsing is tolerant of parameter order, of `+` or `%20` for spaces, of absent optional fields and
/// of unknown extra parameters; it is strict about everything that could change the meaning: a
/// duplicated parameter, a missing `state`, `type` or `method`, bad encoding or a non-numeric code
/// is a ``CallbackParseError``.
public struct WaypointCallback: Sendable, Hashable {
    /// What the wallet answered.
    public enum Outcome: Sendable, Hashable {
        /// `type=success`: `data` is an ID token (auth), a transaction hash (send) or a signature
        /// (sign); `address` and `secondaryAddress` come with auth.
        case success(data: String, address: String?, secondaryAddress: String?)
        /// `type=fail`.
        case failure(WaypointFailure)
    }

    /// The URL before `?`: where the callback was delivered (compare with the request's redirect).
    public let base: String
    /// The request's state, echoed back.
    public let state: String
    /// Which kind of request this answers.
    public let method: WaypointMethod
    /// The wallet's protocol version, when sent.
    public let version: String?
    /// Success or failure.
    public let outcome: Outcome
    /// The `authorization_code` of a PKCE authorize answer (to be exchanged at the token endpoint with the
    /// code verifier); such a callback may come without `data` (its `data` is then empty).
    public let authorizationCode: String?

    /// Builds a callback value (for wallets and tests; parse received URLs with ``init(parsing:)``).
    public init(
        base: String, state: String, method: WaypointMethod, version: String?, outcome: Outcome,
        authorizationCode: String? = nil
    ) {
        self.base = base
        self.state = state
        self.method = method
        self.version = version
        self.outcome = outcome
        self.authorizationCode = authorizationCode
    }

    /// The success `data`, or `nil` for a failure.
    public var data: String? {
        if case .success(let data, _, _) = outcome { return data }
        return nil
    }

    /// The failure, or `nil` for a success.
    public var failure: WaypointFailure? {
        if case .failure(let failure) = outcome { return failure }
        return nil
    }

    /// Parses a callback URL.
    ///
    /// - Throws: ``CallbackParseError``.
    public init(parsing url: String) throws(CallbackParseError) {
        guard !url.isEmpty else { throw .malformedURL("empty") }
        guard url.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F && $0.isASCII }) else {
            throw .malformedURL("contains spaces, control or non-ASCII characters")
        }
        guard let colon = url.firstIndex(of: ":"), Self.isScheme(url[..<colon]) else {
            throw .malformedURL("no scheme")
        }
        var rest = Substring(url)
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        guard let question = rest.firstIndex(of: "?") else { throw .malformedURL("no query") }
        let base = String(rest[..<question])
        guard base.index(after: colon) < base.endIndex else { throw .malformedURL("nothing after the scheme") }
        let query = rest[rest.index(after: question)...]

        var values: [String: String] = [:]
        switch QueryEncoding.decodePairs(query) {
        case .failure(let failure): throw .invalidEncoding(failure.name)
        case .success(let pairs):
            for (name, value) in pairs {
                guard values[name] == nil else { throw .duplicateParameter(name) }
                values[name] = value
            }
        }
        func nonEmpty(_ name: String) -> String? {
            guard let value = values[name], !value.isEmpty else { return nil }
            return value
        }
        guard let state = nonEmpty("state") else { throw .missingParameter("state") }
        guard let type = values["type"] else { throw .missingParameter("type") }
        guard let methodText = values["method"] else { throw .missingParameter("method") }
        guard let method = WaypointMethod(rawValue: methodText) else { throw .invalidMethod(methodText) }
        let outcome: Outcome
        let code = method == .auth ? nonEmpty("authorization_code") : nil
        switch type {
        case "success":
            guard let data = values["data"] ?? (code == nil ? nil : "") else { throw .missingParameter("data") }
            outcome = .success(
                data: data, address: nonEmpty("address"), secondaryAddress: nonEmpty("secondary_address"))
        case "fail":
            guard let codeText = values["code"] else { throw .missingParameter("code") }
            guard !codeText.isEmpty, codeText.utf8.count <= 9, codeText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                let code = Int(codeText)
            else { throw .nonNumericCode(codeText) }
            outcome = .failure(
                WaypointFailure(code: WaypointErrorCode(code: code), wireMessage: values["message"] ?? ""))
        default:
            throw .invalidType(type)
        }
        self.init(
            base: base, state: state, method: method, version: nonEmpty("version"), outcome: outcome,
            authorizationCode: type == "success" ? code : nil)
    }

    /// The callback as a URL on `base` (what a hosted wallet redirects to): values form-encoded,
    /// `state`, `method`, `version`, `type`, then `data`/`address`/`secondary_address` or
    /// `code`/`message`.
    public var url: String {
        var pairs: [(String, String)] = [("state", state), ("method", method.rawValue)]
        if let version { pairs.append(("version", version)) }
        switch outcome {
        case .success(let data, let address, let secondaryAddress):
            pairs.append(("type", "success"))
            if !data.isEmpty || authorizationCode == nil { pairs.append(("data", data)) }
            if let authorizationCode { pairs.append(("authorization_code", authorizationCode)) }
            if let address { pairs.append(("address", address)) }
            if let secondaryAddress { pairs.append(("secondary_address", secondaryAddress)) }
        case .failure(let failure):
            pairs.append(("type", "fail"))
            pairs.append(("code", String(failure.code.code)))
            pairs.append(("message", failure.wireMessage))
        }
        let separator = base.contains("?") ? "&" : "?"
        return base + separator + QueryEncoding.query(pairs, spaceAsPlus: true)
    }

    /// Whether `text` is a plausible redirect URI: a scheme, something after it, printable ASCII
    /// without spaces, no fragment.
    package static func isRedirectURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), isScheme(text[..<colon]), text.index(after: colon) < text.endIndex
        else {
            return false
        }
        return !text.contains("#")
            && text.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }
    }

    /// `[A-Za-z][A-Za-z0-9+.-]*`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else {
            return false
        }
        return text.utf8.allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2B
                || c == 0x2D
                || c == 0x2E
        }
    }
}
