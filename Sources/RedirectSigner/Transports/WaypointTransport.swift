/// How requests reach the user's browser and callbacks come back: a loopback HTTP listener, a
/// pasted line, a custom-scheme deep link over a local socket, or `ASWebAuthenticationSession`.
///
/// A transport only moves URLs. Parsing, the state check, replay and expiry, and verification
/// happen in ``WaypointSession``, whatever the transport.
public protocol WaypointTransport: Sendable {
    /// The redirect URI requests name (e.g. `http://127.0.0.1:53682/callback` or `mydapp://callback`).
    var redirectURI: String { get }

    /// Starts receiving and returns the stream of arriving callbacks. Called once.
    func start() async throws(WaypointError) -> AsyncStream<TransportEvent>

    /// Shows a request to the user: opens a browser, prints the URL, presents a sheet.
    func open(_ request: PreparedRequest) async throws(WaypointError)

    /// Stops receiving and ends the stream.
    func stop() async
}

/// Something a transport observed.
public enum TransportEvent: Sendable {
    /// A callback URL arrived.
    case callback(IncomingCallback)
    /// The user abandoned the request with this state (closed the browser sheet).
    case abandoned(state: String)
}

/// A callback URL and how to answer whoever delivered it (the browser page, the `deliver` command).
public struct IncomingCallback: Sendable {
    /// The callback URL as received.
    public let url: String
    /// Tells the deliverer the outcome; called once by the session (later calls are ignored).
    public let reply: @Sendable (CallbackReply) -> Void

    /// Wraps a URL and its reply channel.
    public init(url: String, reply: @escaping @Sendable (CallbackReply) -> Void) {
        self.url = url
        self.reply = reply
    }
}

/// What the session tells the deliverer of a callback.
public enum CallbackReply: Sendable, Hashable {
    /// The callback answered a pending request and verified; the text says what was done.
    case accepted(String)
    /// The callback was refused; the text says why.
    case rejected(String)

    /// Whether it was accepted.
    public var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    /// The text.
    public var text: String {
        switch self {
        case .accepted(let text), .rejected(let text): text
        }
    }
}

/// How a transport shows a request URL to the user.
public struct URLOpener: Sendable {
    /// Opens (or announces) one URL.
    public let open: @Sendable (String) async throws(WaypointError) -> Void

    /// An opener running `body`.
    public init(_ body: @escaping @Sendable (String) async throws(WaypointError) -> Void) {
        open = body
    }

    /// Does nothing (a test or another component opens the URL).
    public static let none = URLOpener { _ in }
}
