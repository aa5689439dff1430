/// One HTTP request as the server received it.
package struct HTTPServerRequest: Sendable {
    /// `GET`, `POST`, …
    package let method: String
    /// The request target exactly as sent, e.g. `/callback?state=…` (still percent-encoded).
    package let target: String
    /// Every header field in order, names in lower case: a name may repeat.
    package let fields: [(name: String, value: String)]
    /// The body (at most ``HTTPServerLimits/maxBodyBytes``).
    package let body: [UInt8]
    /// On a Unix-domain socket, the effective user id of the connecting process (`SO_PEERCRED`); `nil` on
    /// TCP or when the system does not tell.
    package let peerUserID: UInt32?

    /// A request (the server builds these; tests may too).
    package init(
        method: String, target: String, fields: [(name: String, value: String)], body: [UInt8],
        peerUserID: UInt32? = nil
    ) {
        self.method = method
        self.target = target
        self.fields = fields
        self.body = body
        self.peerUserID = peerUserID
    }

    /// Every value of the header `name` (case-insensitive), in order.
    package func values(_ name: String) -> [String] {
        let lower = name.lowercased()
        return fields.filter { $0.name == lower }.map(\.value)
    }

    /// The `Host` of a request to a loopback listener, lower-cased, when the request carries exactly one `Host`
    /// header and it is one of `hosts` (`127.0.0.1:PORT`, `localhost:PORT`, lower case); `nil` otherwise. A page
    /// on 127.0.0.1 answers nothing else, so a DNS-rebinding page of another site cannot reach it.
    package func listenerHost(among hosts: Set<String>) -> String? {
        let hostValues = values("host")
        guard hostValues.count == 1, let host = hostValues.first?.lowercased(), hosts.contains(host) else { return nil }
        return host
    }

    /// The first value of the header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return fields.first { $0.name == lower }?.value
    }

    /// The target before `?`, still percent-encoded.
    package var path: Substring {
        guard let question = target.firstIndex(of: "?") else { return target[...] }
        return target[..<question]
    }

    /// The target after `?` (still percent-encoded), or empty.
    package var query: Substring {
        guard let question = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: question)...]
    }
}

/// One HTTP answer, or an instruction to drop the connection without one. The server adds
/// `Content-Length`, `Date` and the connection management headers.
package struct HTTPServerResponse: Sendable {
    /// The status code.
    package var status: Int
    /// Extra header fields in order (`Content-Length` and `Connection` are the server's and skipped).
    package var headers: [(String, String)]
    /// The body.
    package var body: [UInt8]
    /// Close the connection without answering (a transport error for the client).
    package var dropConnection: Bool

    /// An answer.
    package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], dropConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.dropConnection = dropConnection
    }

    /// A plain-text answer that must not be cached.
    package static func text(_ status: Int, _ text: String) -> HTTPServerResponse {
        HTTPServerResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(text.utf8))
    }

    /// Closes the connection without an answer.
    package static var drop: HTTPServerResponse { HTTPServerResponse(status: 0, dropConnection: true) }
}

/// The one set of limits every server built on this layer uses (defaults fit a loopback service).
package struct HTTPServerLimits: Sendable, Equatable {
    /// Connections open at once, idle keep-alive ones included (each has a thread of its own); more are
    /// closed unanswered when accepted. Beyond seven eighths of it (from eight up) a newcomer makes room by
    /// closing the connection without credentials that has waited longest for its request
    /// (``ConnectionLedger``; libmicrohttpd's own limit stands an eighth higher, for the connections being
    /// closed).
    package var maxConnections: UInt32
    /// Connections open at once from one IP address; more from it are closed unanswered when accepted, and
    /// room is made beyond seven eighths of it, as for ``maxConnections``.
    package var maxConnectionsPerAddress: UInt32
    /// Idle seconds before a connection (between or within requests) is closed.
    package var connectionTimeoutSeconds: UInt32
    /// How long a whole request (request line, header fields, body) may take to arrive, from the
    /// connection's start or from the end of the previous answer on a keep-alive connection; then the
    /// connection is closed without an answer, however steadily bytes trickle in.
    package var requestReceiveTimeout: Duration
    /// Bytes of request line plus header fields; beyond it the answer is `431` (a request line that
    /// alone is too long gets `414`).
    package var maxHeaderBytes: Int
    /// Body bytes; a longer declared or received body gets `413`.
    package var maxBodyBytes: Int
    /// How long ``HTTPServer/stop()`` lets requests in flight finish before cancelling their handlers.
    package var shutdownGrace: Duration

    /// The limits (64 connections, 64 from one address, 10 s idle, 10 s to receive a request, 64 KiB head,
    /// 1 MiB body, 10 s grace).
    package init(
        maxConnections: UInt32 = 64, maxConnectionsPerAddress: UInt32 = 64, connectionTimeoutSeconds: UInt32 = 10,
        requestReceiveTimeout: Duration = .seconds(10), maxHeaderBytes: Int = 64 * 1024, maxBodyBytes: Int = 1 << 20,
        shutdownGrace: Duration = .seconds(10)
    ) {
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.requestReceiveTimeout = requestReceiveTimeout
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        self.shutdownGrace = shutdownGrace
    }
}

/// Why a server could not start.
package struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What failed, e.g. `cannot listen on 127.0.0.1:8080`.
    package let description: String
}
