import EIP712
import EthereumPrimitives
import EthereumTransactions
import Foundation
import RedirectSigner
import RedirectSignerTransports
import SignerKit
import SignerKitHTTPServer
import Synchronization

/// A stand-in for the Waypoint hosted wallet, for tests and demos: a loopback HTTP server that
/// serves `/client/{clientId}/authorize`, `/wallet/sign` and `/wallet/send`, validates their
/// parameters, shows an approval page (a plain HTML form with `#approve` and `#reject` buttons, no
/// JavaScript), signs with a ``PrehashSigner`` or returns a chosen failure, and answers with an
/// HTTP 302 to the request's redirect carrying the callback.
///
/// Validation follows the protocol's error codes: a sign request without `message` or `typedData`
/// is 1001, a malformed parameter 1003 (1004 for authorize), an `expectAddress` other than the
/// wallet's 2001, Reject 1000. A request without a usable `redirect` or `state` cannot be answered
/// and gets a 400 page instead.
///
/// For `send` it signs an EIP-1559 transaction itself (own nonce counter, fixed fees) and returns its
/// hash; nothing is broadcast. The ID token of `auth` is an ES256 JWT (`iss` the simulator's origin,
/// `aud` the client id, `sub` the wallet address) signed with a P-256 key libgcrypt generated for this
/// run; the key set is served at `/.well-known/jwks.json`. An authorize request with `code_challenge`
/// (S256 only) is answered with an `authorization_code`, exchanged at `POST /oauth2/token` with the
/// matching `code_verifier`. A scope without `wallet` is answered without an address.
public final class HostedWalletSimulator: Sendable {
    /// How the simulator answers.
    public enum Mode: Sendable, Hashable {
        /// Show the approval page and wait for a click.
        case interactive
        /// Answer every valid request at once as if Approve were clicked.
        case autoApprove
        /// Answer every valid request at once as if Reject were clicked (1000).
        case autoReject
    }

    /// What the simulator is and does.
    public struct Configuration: Sendable {
        /// The key it signs with.
        public var signer: any PrehashSigner
        /// The wallet address it reports at authorize and checks `expectAddress` against; `nil`: the
        /// signer's. Set it to another address to simulate a wallet returning someone else's signature.
        public var reportedAddress: Address?
        /// An external account reported as `secondary_address` at authorize.
        public var secondaryAddress: Address?
        /// When set, requests for other client ids are refused.
        public var clientId: String?
        /// Interactive or automatic.
        public var mode: Mode
        /// When set, Approve answers with this failure instead of a result.
        public var failure: WaypointErrorCode?
        /// The `version` sent in callbacks.
        public var version: String
        /// Signs the ID tokens and publishes their keys (a fresh P-256 key per configuration).
        public var tokenIssuer: IDTokenIssuer

        /// A configuration signing with `signer`.
        public init(
            signer: any PrehashSigner, reportedAddress: Address? = nil, secondaryAddress: Address? = nil,
            clientId: String? = nil, mode: Mode = .interactive, failure: WaypointErrorCode? = nil,
            version: String = "1.0", tokenIssuer: IDTokenIssuer = IDTokenIssuer()
        ) {
            self.tokenIssuer = tokenIssuer
            self.signer = signer
            self.reportedAddress = reportedAddress
            self.secondaryAddress = secondaryAddress
            self.clientId = clientId
            self.mode = mode
            self.failure = failure
            self.version = version
        }

        /// The address it presents as the user's wallet.
        public var walletAddress: Address { reportedAddress ?? signer.address }
    }

    /// A request the simulator received (for assertions).
    public struct ReceivedRequest: Sendable, Hashable {
        /// The path, e.g. `/wallet/sign`.
        public let path: String
        /// The decoded query parameters.
        public let parameters: [String: String]
    }

    /// What a valid request asks.
    enum Ask: Sendable {
        case authorize(scope: String?, codeChallenge: String?)
        case message(String)
        case typedData(json: String, digest: Digest32)
        case send(to: Address, value: UInt256, data: [UInt8], fields: WaypointTransactionFields)

        var method: WaypointMethod {
            switch self {
            case .authorize: .auth
            case .message, .typedData: .sign
            case .send: .send
            }
        }
    }

    /// A valid request waiting for a decision.
    struct Pending: Sendable {
        let ask: Ask
        let clientId: String
        let redirect: String
        let state: String
        let chainId: UInt256
        let expectAddress: Address?
    }

    /// The configuration.
    public let configuration: Configuration
    private let server: HTTPServer
    private let pending = Mutex<[String: Pending]>([:])
    private let log = Mutex<[ReceivedRequest]>([])
    private let nonce = Mutex<UInt64>(0)
    /// Issued PKCE codes: code → (challenge, client id, redirect, token).
    private let codes = Mutex<[String: (challenge: String, clientId: String, redirect: String, token: String)]>([:])

    /// Binds 127.0.0.1:`port` (0: ephemeral) and serves at once.
    ///
    /// - Throws: ``WaypointError/transport(_:)`` when the port cannot be bound.
    public init(configuration: Configuration, port: UInt16 = 0) throws(WaypointError) {
        self.configuration = configuration
        let box = Locked<HostedWalletSimulator?>(nil)
        server = try startLoopbackServer(port: port) { request in
            guard let simulator = box.value else { return .text(503, "stopped") }
            return await simulator.handle(request)
        }
        // The server holds the simulator until stop(), which empties the box.
        serverBox = box
        box.value = self
    }

    private let serverBox: Locked<HostedWalletSimulator?>

    /// The bound port.
    public var port: UInt16 { server.port }

    /// `http://127.0.0.1:PORT`: pass as the Waypoint origin.
    public var origin: String { "http://127.0.0.1:\(port)" }

    /// Stops serving and closes the port.
    public func stop() async {
        await server.stop()
        serverBox.value = nil
    }

    /// Every request received so far, in order.
    public var receivedRequests: [ReceivedRequest] { log.withLock { $0 } }

    /// The ids of requests waiting on their approval page.
    public var pendingApprovals: [String] { pending.withLock { Array($0.keys) } }

    // MARK: - HTTP

    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let path = String(request.path)
        if request.method == "POST", path == "/decide" { return await decide(request) }
        if request.method == "POST", path == "/oauth2/token" { return exchange(request) }
        if request.method == "GET", path == "/.well-known/jwks.json" {
            return HTTPServerResponse(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Array(configuration.tokenIssuer.jwksJSON.utf8))
        }
        guard request.method == "GET" else { return page(405, "Method not allowed", "<p>Use GET.</p>") }
        if path == "/" {
            return page(
                200, "Waypoint simulator",
                "<h1>Waypoint simulator</h1><p>Wallet \(configuration.walletAddress.checksummed)</p>")
        }
        let kind: WaypointMethod
        var pathClient: String?
        if path == "/wallet/sign" {
            kind = .sign
        } else if path == "/wallet/send" {
            kind = .send
        } else if path.hasPrefix("/client/"), path.hasSuffix("/authorize") {
            kind = .auth
            let inner = path.dropFirst("/client/".count).dropLast("/authorize".count)
            guard !inner.isEmpty, !inner.contains("/"), let decoded = QueryEncoding.formDecode(inner) else {
                return page(404, "Not found", "<p>Unknown client path.</p>")
            }
            pathClient = decoded
        } else {
            return page(404, "Not found", "<p>Nothing here.</p>")
        }
        var parameters: [String: String] = [:]
        switch QueryEncoding.decodePairs(request.query) {
        case .failure(let failure):
            return page(
                400, "Bad request", "<p>Parameter \(HTML.escape(failure.name)) is not valid percent-encoding.</p>")
        case .success(let pairs):
            for (name, value) in pairs {
                guard parameters[name] == nil else {
                    return page(400, "Bad request", "<p>Parameter \(HTML.escape(name)) is repeated.</p>")
                }
                parameters[name] = value
            }
        }
        log.withLock { $0.append(ReceivedRequest(path: path, parameters: parameters)) }
        switch validate(kind: kind, pathClient: pathClient, parameters) {
        case .refuse(let response): return response
        case .fail(let callback): return .redirect(to: callback)
        case .valid(let request):
            switch configuration.mode {
            case .autoApprove: return .redirect(to: await answer(request, approved: true))
            case .autoReject: return .redirect(to: await answer(request, approved: false))
            case .interactive:
                let id = WaypointStateStore.randomState()
                pending.withLock { $0[id] = request }
                return approvalPage(id: id, request)
            }
        }
    }

    private func decide(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard case .success(let pairs) = QueryEncoding.decodePairs(String(decoding: request.body, as: UTF8.self)[...])
        else {
            return page(400, "Bad request", "<p>Unreadable form.</p>")
        }
        let form = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard let id = form["id"], let decision = form["decision"], decision == "approve" || decision == "reject" else {
            return page(400, "Bad request", "<p>Missing id or decision.</p>")
        }
        guard let entry = pending.withLock({ $0.removeValue(forKey: id) }) else {
            return page(410, "Gone", "<p>This request was already answered.</p>")
        }
        return .redirect(to: await answer(entry, approved: decision == "approve"))
    }

    private enum Validation {
        case valid(Pending)
        case fail(String)
        case refuse(HTTPServerResponse)
    }

    private func validate(kind: WaypointMethod, pathClient: String?, _ parameters: [String: String]) -> Validation {
        guard let clientId = parameters["clientId"], !clientId.isEmpty else {
            return .refuse(page(400, "Bad request", "<p>Missing clientId.</p>"))
        }
        if let pathClient, pathClient != clientId {
            return .refuse(page(400, "Bad request", "<p>clientId does not match the path.</p>"))
        }
        if let expected = configuration.clientId, expected != clientId {
            return .refuse(page(400, "Unknown client", "<p>Unknown client \(HTML.escape(clientId)).</p>"))
        }
        guard let redirect = parameters["redirect"], WaypointCallback.isRedirectURI(redirect) else {
            return .refuse(page(400, "Bad request", "<p>Missing or invalid redirect.</p>"))
        }
        guard let state = parameters["state"], !state.isEmpty else {
            return .refuse(page(400, "Bad request", "<p>Missing state.</p>"))
        }
        let invalid: WaypointErrorCode = kind == .auth ? .authorizeInvalidPayload : .invalidPayload
        func fail(_ code: WaypointErrorCode, _ text: String) -> Validation {
            let failure = WaypointFailure(code: code, name: code.name, message: text)
            return .fail(callback(redirect: redirect, state: state, method: kind, .failure(failure)))
        }
        guard let chainText = parameters["chainId"], let chainId = Self.decimal(chainText) else {
            return fail(invalid, "chainId must be a decimal number")
        }
        var expectAddress: Address?
        if let text = parameters["expectAddress"] {
            guard let address = try? Address(text) else { return fail(invalid, "expectAddress is not an address") }
            guard address == configuration.walletAddress else {
                return fail(.noAddress, "This wallet is not \(address.checksummed)")
            }
            expectAddress = address
        }
        let ask: Ask
        switch kind {
        case .auth:
            var challenge: String?
            if let text = parameters["code_challenge"] {
                guard parameters["code_challenge_method"] == "S256" else {
                    return fail(invalid, "code_challenge_method must be S256")
                }
                guard text.utf8.count == 43, Base64URL.decode(text)?.count == 32 else {
                    return fail(invalid, "code_challenge is not a base64url SHA-256")
                }
                challenge = text
            }
            ask = .authorize(scope: parameters["scope"], codeChallenge: challenge)
        case .sign:
            switch (parameters["message"], parameters["typedData"]) {
            case (nil, nil): return fail(.signNoParams, "Nothing to sign: message or typedData is required")
            case (_?, _?): return fail(.invalidPayload, "Give message or typedData, not both")
            case (let message?, nil): ask = .message(message)
            case (nil, let json?):
                do {
                    let typedData = try TypedData(jsonText: json)
                    if let domainChain = try typedData.domainChainId(), domainChain != chainId {
                        return fail(.invalidPayload, "typedData domain.chainId is not chainId")
                    }
                    ask = .typedData(json: json, digest: try typedData.digest())
                } catch {
                    return fail(.invalidPayload, "typedData: \(error)")
                }
            }
        case .send:
            guard let toText = parameters["to"], let to = try? Address(toText) else {
                return fail(.invalidPayload, "to is not an address")
            }
            var value = UInt256.zero
            if let valueText = parameters["value"] {
                guard let parsed = Self.decimal(valueText) else {
                    return fail(.invalidPayload, "value must be decimal wei")
                }
                value = parsed
            }
            var data: [UInt8] = []
            if let dataText = parameters["data"] {
                guard let parsed = try? Hex.decode(dataText) else {
                    return fail(.invalidPayload, "data must be 0x-hex")
                }
                data = parsed
            }
            var fields = WaypointTransactionFields()
            if let text = parameters["type"] {
                guard text.hasPrefix("0x"), (3...4).contains(text.utf8.count),
                    let type = UInt8(text.dropFirst(2), radix: 16)
                else { return fail(.invalidPayload, "type must be 0x-hex") }
                fields.type = type
            }
            for (name, path) in [
                ("gas", \WaypointTransactionFields.gas), ("nonce", \.nonce), ("gasPrice", \.gasPrice),
                ("maxFeePerGas", \.maxFeePerGas), ("maxPriorityFeePerGas", \.maxPriorityFeePerGas),
            ] {
                guard let text = parameters[name] else { continue }
                guard let parsed = Self.decimal(text) else { return fail(.invalidPayload, "\(name) must be decimal") }
                fields[keyPath: path] = parsed
            }
            ask = .send(to: to, value: value, data: data, fields: fields)
        }
        return .valid(
            Pending(
                ask: ask, clientId: clientId, redirect: redirect, state: state, chainId: chainId,
                expectAddress: expectAddress))
    }

    /// The callback URL for a decision.
    private func answer(_ request: Pending, approved: Bool) async -> String {
        let method = request.ask.method
        guard approved else {
            let code = WaypointErrorCode.userCancel
            return callback(
                redirect: request.redirect, state: request.state, method: method,
                .failure(WaypointFailure(code: code, name: code.name, message: code.defaultMessage)))
        }
        if let code = configuration.failure {
            return callback(
                redirect: request.redirect, state: request.state, method: method,
                .failure(WaypointFailure(code: code, name: code.name, message: code.defaultMessage)))
        }
        do {
            switch try await result(for: request) {
            case .outcome(let outcome):
                return callback(redirect: request.redirect, state: request.state, method: method, outcome)
            case .code(let code, let address, let secondary):
                return WaypointCallback(
                    base: request.redirect, state: request.state, method: method, version: configuration.version,
                    outcome: .success(data: "", address: address, secondaryAddress: secondary),
                    authorizationCode: code
                ).url
            }
        } catch {
            let code = WaypointErrorCode.unknownError
            return callback(
                redirect: request.redirect, state: request.state, method: method,
                .failure(WaypointFailure(code: code, name: code.name, message: "\(error)")))
        }
    }

    /// What ``result(for:)`` answers: a callback outcome, or a PKCE authorization code.
    private enum Answer {
        case outcome(WaypointCallback.Outcome)
        case code(String, address: String?, secondaryAddress: String?)

        static func success(data: String, address: String?, secondaryAddress: String?) -> Answer {
            .outcome(.success(data: data, address: address, secondaryAddress: secondaryAddress))
        }
    }

    private func result(for request: Pending) async throws(SignerError) -> Answer {
        let signer = configuration.signer
        switch request.ask {
        case .authorize(let scope, let challenge):
            let token = idToken(audience: request.clientId, scope: scope)
            let wallet = (scope ?? "openid wallet").split(separator: " ").contains("wallet")
            let address = wallet ? configuration.walletAddress.lowercased : nil
            let secondary = wallet ? configuration.secondaryAddress?.lowercased : nil
            guard let challenge else { return .success(data: token, address: address, secondaryAddress: secondary) }
            let code = WaypointStateStore.randomState()
            codes.withLock {
                $0[code] = (challenge: challenge, clientId: request.clientId, redirect: request.redirect, token: token)
            }
            return .code(code, address: address, secondaryAddress: secondary)
        case .message(let text):
            let signature = try await signer.sign(prehash: PersonalMessage.digest(Array(text.utf8)))
            return .success(data: signature.hex, address: nil, secondaryAddress: nil)
        case .typedData(_, let digest):
            let signature = try await signer.sign(prehash: digest)
            return .success(data: signature.hex, address: nil, secondaryAddress: nil)
        case .send(let to, let value, let data, let fields):
            let count = nonce.withLock { value -> UInt64 in
                defer { value += 1 }
                return value
            }
            // The stand-in is always EIP-1559; forwarded gas, nonce and fees are used (a legacy gas price
            // as both fees), a forwarded type is shown on the approval page and kept in the request log.
            let transaction = Transaction.eip1559(
                EIP1559Transaction(
                    chainId: request.chainId, nonce: fields.nonce ?? UInt256(count),
                    maxPriorityFeePerGas: fields.maxPriorityFeePerGas ?? fields.gasPrice ?? 1_000_000_000,
                    maxFeePerGas: fields.maxFeePerGas ?? fields.gasPrice ?? 20_000_000_000,
                    gasLimit: fields.gas ?? (data.isEmpty ? 21_000 : 200_000), to: to, value: value, data: data))
            let signed = try await signer.signTransaction(transaction)
            return .success(data: signed.hash.hex, address: nil, secondaryAddress: nil)
        }
    }

    private func callback(redirect: String, state: String, method: WaypointMethod, _ outcome: WaypointCallback.Outcome)
        -> String
    {
        WaypointCallback(base: redirect, state: state, method: method, version: configuration.version, outcome: outcome)
            .url
    }

    // MARK: - Pages

    private func page(_ status: Int, _ title: String, _ body: String) -> HTTPServerResponse {
        .html(status, HTML.page(title: title, body: body))
    }

    private func approvalPage(id: String, _ request: Pending) -> HTTPServerResponse {
        var rows: [(String, String)] = [
            ("App", request.clientId), ("Chain", request.chainId.decimalString),
            ("Wallet", configuration.walletAddress.checksummed),
            ("Returns to", request.redirect),
        ]
        let title: String
        switch request.ask {
        case .authorize(let scope, _):
            title = "Sign in"
            rows.append(("Scope", scope ?? ""))
        case .message(let text):
            title = "Sign message"
            rows.append(("Message", text))
        case .typedData(let json, _):
            title = "Sign typed data"
            rows.append(("Typed data", json))
        case .send(let to, let value, let data, let fields):
            title = data.isEmpty ? "Send" : "Contract call"
            rows.append(("To", to.checksummed))
            rows.append(("Value (wei)", value.decimalString))
            if !data.isEmpty { rows.append(("Data", Hex.encode(data))) }
            for (name, text) in fields.parameters {
                rows.append((name == "type" && text == "0x64" ? "Type (sponsored)" : name, text))
            }
        }
        if let expect = request.expectAddress { rows.append(("Expected account", expect.checksummed)) }
        let details = rows.map { "<dt>\(HTML.escape($0.0))</dt><dd><pre>\(HTML.escape($0.1))</pre></dd>" }.joined()
        let body = """
            <h1 id=title>\(HTML.escape(title))</h1><p>Waypoint simulator — review the request.</p><dl>\(details)</dl>
            <form method=post action="/decide"><input type=hidden name=id value="\(HTML.escape(id))">
            <button id=approve type=submit name=decision value=approve>Approve</button>
            <button id=reject type=submit name=decision value=reject>Reject</button></form>
            """
        return .html(200, HTML.page(title: "Waypoint simulator: \(title)", body: body))
    }

    // MARK: - Helpers

    /// A decimal number without sign or leading zeros (except `0`), or `nil`.
    static func decimal(_ text: String) -> UInt256? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), text == "0" || !text.hasPrefix("0")
        else {
            return nil
        }
        guard let value = try? SignedMagnitude(text: text), !value.isNegative else { return nil }
        return value.magnitude
    }

    /// An ES256 ID token for `audience`: `iss` this origin, `sub` the wallet address, valid for an hour.
    func idToken(audience: String, scope: String?) -> String {
        var claims = IDTokenIssuer.claims(
            issuer: origin, audience: audience, subject: configuration.walletAddress.lowercased,
            now: Int64(Date().timeIntervalSince1970))
        if let scope { claims["scope"] = .string(scope) }
        return configuration.tokenIssuer.token(claims: claims)
    }

    /// `POST /oauth2/token`: exchanges a PKCE code (single use) when its verifier, client id and redirect
    /// match; errors are RFC 6749 JSON (`invalid_request`, `invalid_grant`).
    private func exchange(_ request: HTTPServerRequest) -> HTTPServerResponse {
        func json(_ status: Int, _ value: JSONObject) -> HTTPServerResponse {
            HTTPServerResponse(
                status: status, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Array(JSONValue.object(value).serialized.utf8))
        }
        func error(_ code: String, _ text: String) -> HTTPServerResponse {
            json(400, JSONObject(["error": .string(code), "error_description": .string(text)]))
        }
        guard case .success(let pairs) = QueryEncoding.decodePairs(String(decoding: request.body, as: UTF8.self)[...])
        else { return error("invalid_request", "unreadable form") }
        let form = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        guard form["grant_type"] == "authorization_code" else {
            return error("unsupported_grant_type", "grant_type must be authorization_code")
        }
        guard let code = form["code"], let verifier = form["code_verifier"], let clientId = form["client_id"],
            let redirect = form["redirect_uri"]
        else { return error("invalid_request", "code, code_verifier, client_id and redirect_uri are required") }
        guard let issued = codes.withLock({ $0.removeValue(forKey: code) }) else {
            return error("invalid_grant", "unknown or used code")
        }
        guard PKCEVerifier(verifier) != nil, PKCEVerifier.challenge(of: verifier) == issued.challenge else {
            return error("invalid_grant", "code_verifier does not match the code_challenge")
        }
        guard clientId == issued.clientId, redirect == issued.redirect else {
            return error("invalid_grant", "client_id or redirect_uri differs from the authorize request")
        }
        return json(
            200,
            JSONObject([
                "id_token": .string(issued.token), "token_type": .string("Bearer"), "expires_in": .number("3600"),
            ]))
    }
}
