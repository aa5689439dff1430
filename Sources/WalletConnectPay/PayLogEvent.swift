import EthereumPrimitives

/// One request to the Pay API and how it ended, for a wallet's logs (``PayClientConfiguration/log``): the
/// method, the endpoint, the URL's path and the sizes and status — never a header (the API key travels in
/// one), never a body (collected data is personal), never a query value.
public struct PayLogEvent: Sendable, Equatable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// The request is about to be sent, with a body of this many bytes.
        case request(bodyBytes: Int)
        /// An answer came: its HTTP status and body size.
        case response(status: Int, bodyBytes: Int)
        /// The call ended without an answer to read (the error, as ``PayError`` describes it).
        case failure(String)
    }

    /// `GET`, `POST`.
    public let method: String
    /// The endpoint.
    public let endpoint: PayEndpoint
    /// The URL's path (`/v1/gateway/payment/pay_…/options`), abbreviated.
    public let path: String
    /// What happened.
    public let kind: Kind

    /// An event.
    public init(method: String, endpoint: PayEndpoint, path: String, kind: Kind) {
        self.method = method
        self.endpoint = endpoint
        self.path = EchoedText.abbreviated(path)
        self.kind = kind
    }

    /// One line: `POST options /v1/gateway/payment/pay_1/options → 200 (1234 bytes)`.
    public var description: String {
        let head = "\(method) \(endpoint) \(path)"
        switch kind {
        case .request(let bytes): return "\(head) (\(bytes) bytes sent)"
        case .response(let status, let bytes): return "\(head) → \(status) (\(bytes) bytes)"
        case .failure(let reason): return "\(head) failed: \(EchoedText.abbreviated(reason))"
        }
    }

    /// The event as a JSON object (`{"msg":"pay api","method",…}`), for a log line.
    public var json: JSONValue {
        var members: [JSONObject.Member] = [
            .init(key: "msg", value: .string("pay api")), .init(key: "method", value: .string(method)),
            .init(key: "endpoint", value: .string(endpoint.rawValue)), .init(key: "path", value: .string(path)),
        ]
        switch kind {
        case .request(let bytes): members.append(.init(key: "sent", value: .number(String(bytes))))
        case .response(let status, let bytes):
            members.append(.init(key: "status", value: .number(String(status))))
            members.append(.init(key: "received", value: .number(String(bytes))))
        case .failure(let reason): members.append(.init(key: "problem", value: .string(EchoedText.abbreviated(reason))))
        }
        return .object(JSONObject(members: members))
    }
}
