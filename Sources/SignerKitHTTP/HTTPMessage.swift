import Foundation

/// One header field: its name as given and its value.
public struct HTTPHeader: Sendable, Equatable {
    /// The field name (compared case-insensitively).
    public var name: String
    /// The field value.
    public var value: String

    /// A header `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One HTTP request: what to send and how long the whole exchange may take.
///
/// The ``deadline`` is absolute: it bounds connecting, sending, waiting and reading, including a
/// request that is in flight when it passes. A request is sent at most once per
/// ``HTTPTransport/send(_:)`` call, body included; the transport never repeats it by itself.
public struct HTTPRequest: Sendable {
    /// The default cap on a response body: 8 MiB.
    public static let defaultMaxResponseBytes = 8 << 20

    /// `GET`, `POST`, …
    public var method: String
    /// An absolute `http` or `https` URL.
    public var url: URL
    /// Header fields to send, in order.
    public var headers: [HTTPHeader]
    /// The body, sent with `Content-Length`; `nil` for none.
    public var body: [UInt8]?
    /// When the whole exchange must be over (``HTTPError/timeout(requestSent:)`` after it).
    public var deadline: ContinuousClock.Instant
    /// The longest wait for the connection (TCP and TLS); never beyond ``deadline``.
    public var connectTimeout: Duration
    /// The largest response body accepted (``HTTPError/bodyTooLarge(limit:)`` beyond it).
    public var maxResponseBytes: Int
    /// When set, the connection goes to this Unix-domain socket instead of the URL's host and port (the
    /// URL's host is then only the `Host` header); `nil` for TCP.
    public var unixSocketPath: String? = nil
    /// When set, the transport signs the request with AWS Signature Version 4 (see ``AWSSignatureV4``);
    /// `nil` for none.
    public var awsSignature: AWSSignatureV4? = nil
    /// Whether a 3xx answer is returned as a response (with its `Location`) instead of
    /// ``HTTPError/redirectRefused(status:locationHost:)``. Never followed either way. For the package's
    /// own tests, which play a browser.
    package var deliversRedirects = false

    /// A request that must be over by `deadline`.
    public init(
        method: String, url: URL, headers: [HTTPHeader] = [], body: [UInt8]? = nil,
        deadline: ContinuousClock.Instant, connectTimeout: Duration = .seconds(10),
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.deadline = deadline
        self.connectTimeout = connectTimeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// A request that must be over `timeout` from now.
    public init(
        method: String, url: URL, headers: [HTTPHeader] = [], body: [UInt8]? = nil, timeout: Duration,
        connectTimeout: Duration = .seconds(10), maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) {
        self.init(
            method: method, url: url, headers: headers, body: body, deadline: .now.advanced(by: timeout),
            connectTimeout: connectTimeout, maxResponseBytes: maxResponseBytes)
    }
}

/// A complete HTTP answer (never a 3xx: those are ``HTTPError/redirectRefused(status:locationHost:)``,
/// unless the request asked for them).
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The header fields of the final answer, names lower-cased, in order.
    public var headers: [HTTPHeader]
    /// The whole body (at most the request's ``HTTPRequest/maxResponseBytes``).
    public var body: [UInt8]

    /// A response.
    public init(status: Int, headers: [HTTPHeader], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The last value of header `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.last { $0.name.lowercased() == wanted }?.value
    }

    /// Whether the status is 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }
}

/// Sends HTTP requests: one attempt each, bounded by the request's deadline and the caller's cancellation.
///
/// Implementations never follow redirects, never send a request twice, and tell apart a request that
/// never left (``HTTPError/notSent(_:)``) from one whose outcome is unknown
/// (``HTTPError/outcomeUnknown(_:)``): only the first is always safe to repeat.
public protocol HTTPTransport: Sendable {
    /// Sends `request` once and returns the complete answer.
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse
}
