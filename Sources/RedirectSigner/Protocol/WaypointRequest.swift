import EthereumPrimitives

/// One request to the hosted wallet: where it goes and what it asks, without its `state` (a fresh
/// one is issued per attempt; see ``url(state:)``).
///
/// ```swift
/// let request = WaypointRequest.personalSign(
///     clientId: "my-client", redirect: "http://127.0.0.1:53682/callback",
///     message: "Sign in to My Dapp", expectAddress: account)
/// request.url(state: "5f0c…")
/// // https://waypoint.roninchain.com/wallet/sign?clientId=my-client&redirect=http%3A%2F%2F127.0.0.1%3A53682%2Fcallback&chainId=2020&state=5f0c…&message=Sign%20in%20to%20My%20Dapp&expectAddress=0x…
/// ```
///
/// Every request carries `clientId`, `redirect`, `chainId` (decimal) and `state`, then its own
/// parameters; absent optional values are left out. Values are percent-encoded so that `+`, `&`,
/// `=` and `#` survive (see ``QueryEncoding``). Addresses are sent in EIP-55 checksummed form.
public struct WaypointRequest: Sendable, Hashable {
    /// What the request asks for.
    public enum Action: Sendable, Hashable {
        /// Sign in: `/client/{clientId}/authorize` with `scope` (space-separated).
        case authorize(scope: [String])
        /// `personal_sign` of a text message: `/wallet/sign` with `message`.
        case personalSign(message: String, expectAddress: Address?)
        /// `eth_signTypedData_v4`: `/wallet/sign` with `typedData` (compact JSON text).
        case signTypedData(json: String, expectAddress: Address?)
        /// A native transfer or contract call: `/wallet/send` with `to`, `value` (decimal wei) and
        /// `data` (0x-hex calldata).
        case send(to: Address, value: UInt256?, data: [UInt8]?, expectAddress: Address?)
    }

    /// The hosted wallet's origin, without a trailing `/`.
    public var origin: String
    /// The dapp's client id from the developer console.
    public var clientId: String
    /// Where the wallet sends the browser back to.
    public var redirect: String
    /// The EIP-155 chain id.
    public var chainId: UInt256
    /// What is asked.
    public var action: Action
    /// Authorize only: the PKCE S256 challenge (``PKCEVerifier/challenge``), sent as `code_challenge`
    /// with `code_challenge_method=S256`; the wallet then answers with an `authorization_code`.
    public var codeChallenge: String?
    /// Send only: the transaction fields forwarded as the upstream SDKs do (type, gas, nonce, fees).
    public var transactionFields: WaypointTransactionFields

    /// A request with every field given. `origin` loses any trailing `/`.
    public init(
        origin: String = Waypoint.defaultOrigin, clientId: String, redirect: String, chainId: UInt256, action: Action
    ) {
        var origin = origin
        while origin.hasSuffix("/") { origin.removeLast() }
        self.origin = origin
        self.clientId = clientId
        self.redirect = redirect
        self.chainId = chainId
        self.action = action
        codeChallenge = nil
        transactionFields = WaypointTransactionFields()
    }

    /// The callback `method` that answers this request.
    public var method: WaypointMethod {
        switch action {
        case .authorize: .auth
        case .personalSign, .signTypedData: .sign
        case .send: .send
        }
    }

    /// The address the wallet must sign with, when the request names one.
    public var expectAddress: Address? {
        switch action {
        case .authorize: nil
        case .personalSign(_, let address), .signTypedData(_, let address), .send(_, _, _, let address): address
        }
    }

    /// The page's URL without a query: `{origin}/client/{clientId}/authorize`, `{origin}/wallet/sign`
    /// or `{origin}/wallet/send`.
    public var endpoint: String {
        switch action {
        case .authorize: "\(origin)/client/\(QueryEncoding.percentEncode(clientId))/authorize"
        case .personalSign, .signTypedData: "\(origin)/wallet/sign"
        case .send: "\(origin)/wallet/send"
        }
    }

    /// The query parameters in order, absent values left out.
    public func parameters(state: String) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = [
            ("clientId", clientId), ("redirect", redirect), ("chainId", chainId.decimalString), ("state", state),
        ]
        switch action {
        case .authorize(let scope):
            if !scope.isEmpty { pairs.append(("scope", scope.joined(separator: " "))) }
            if let codeChallenge {
                pairs.append(("code_challenge", codeChallenge))
                pairs.append(("code_challenge_method", "S256"))
            }
        case .personalSign(let message, let expectAddress):
            pairs.append(("message", message))
            if let expectAddress { pairs.append(("expectAddress", expectAddress.checksummed)) }
        case .signTypedData(let json, let expectAddress):
            pairs.append(("typedData", json))
            if let expectAddress { pairs.append(("expectAddress", expectAddress.checksummed)) }
        case .send(let to, let value, let data, let expectAddress):
            pairs.append(("to", to.checksummed))
            if let value { pairs.append(("value", value.decimalString)) }
            if let data { pairs.append(("data", Hex.encode(data))) }
            if let expectAddress { pairs.append(("expectAddress", expectAddress.checksummed)) }
            pairs += transactionFields.parameters
        }
        return pairs
    }

    /// The full request URL for one attempt identified by `state`.
    public func url(state: String) -> String {
        endpoint + "?" + QueryEncoding.query(parameters(state: state).map { ($0.name, $0.value) })
    }
}

// MARK: - Builders

extension WaypointRequest {
    /// Sign in and connect the keyless wallet (and optionally an external account).
    public static func authorize(
        origin: String = Waypoint.defaultOrigin, clientId: String, redirect: String,
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), scope: [String] = Waypoint.defaultScope
    ) -> WaypointRequest {
        WaypointRequest(
            origin: origin, clientId: clientId, redirect: redirect, chainId: chainId, action: .authorize(scope: scope))
    }

    /// `personal_sign` of `message` (text: the hosted wallet signs its UTF-8 bytes).
    public static func personalSign(
        origin: String = Waypoint.defaultOrigin, clientId: String, redirect: String,
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), message: String, expectAddress: Address? = nil
    ) -> WaypointRequest {
        WaypointRequest(
            origin: origin, clientId: clientId, redirect: redirect, chainId: chainId,
            action: .personalSign(message: message, expectAddress: expectAddress))
    }

    /// `personal_sign` of message bytes as they arrive in RPC params. The hosted wallet accepts text
    /// only, so the bytes must be UTF-8.
    ///
    /// - Throws: ``WaypointError/messageNotText`` for bytes that are not UTF-8 text.
    public static func personalSign(
        origin: String = Waypoint.defaultOrigin, clientId: String, redirect: String,
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), messageBytes: [UInt8], expectAddress: Address? = nil
    ) throws(WaypointError) -> WaypointRequest {
        guard let text = String(validating: messageBytes, as: UTF8.self) else { throw .messageNotText }
        return personalSign(
            origin: origin, clientId: clientId, redirect: redirect, chainId: chainId, message: text,
            expectAddress: expectAddress)
    }

    /// `eth_signTypedData_v4` of a typed-data document, sent as its compact JSON text.
    public static func signTypedData(
        origin: String = Waypoint.defaultOrigin, clientId: String, redirect: String,
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), typedData: JSONValue, expectAddress: Address? = nil
    ) -> WaypointRequest {
        WaypointRequest(
            origin: origin, clientId: clientId, redirect: redirect, chainId: chainId,
            action: .signTypedData(json: typedData.serialized, expectAddress: expectAddress))
    }

    /// A native-token transfer of `value` wei to `to`.
    public static func sendNative(
        origin: String = Waypoint.defaultOrigin, clientId: String, redirect: String,
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), to: Address, value: UInt256, expectAddress: Address? = nil
    ) -> WaypointRequest {
        WaypointRequest(
            origin: origin, clientId: clientId, redirect: redirect, chainId: chainId,
            action: .send(to: to, value: value, data: nil, expectAddress: expectAddress))
    }

    /// A contract call: `data` to `to`, optionally moving `value` wei.
    public static func contractCall(
        origin: String = Waypoint.defaultOrigin, clientId: String, redirect: String,
        chainId: UInt256 = UInt256(Waypoint.roninMainnet), to: Address, data: [UInt8], value: UInt256? = nil,
        expectAddress: Address? = nil
    ) -> WaypointRequest {
        WaypointRequest(
            origin: origin, clientId: clientId, redirect: redirect, chainId: chainId,
            action: .send(to: to, value: value, data: data, expectAddress: expectAddress))
    }
}

/// A request ready to hand to a transport: its URL and the state that identifies its callback.
public struct PreparedRequest: Sendable, Hashable {
    /// The full request URL.
    public let url: String
    /// The single-use state the callback must carry.
    public let state: String
    /// The callback method that answers it.
    public let method: WaypointMethod

    /// Bundles a URL with its state and method.
    public init(url: String, state: String, method: WaypointMethod) {
        self.url = url
        self.state = state
        self.method = method
    }
}
