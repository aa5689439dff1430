import Dispatch
import Foundation
import SignerKit
import Synchronization

/// One HTTP/1.1 request as the loopback server read it.
struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    let method: String
    /// The request target as sent, e.g. `/callback?state=…`.
    let target: String
    /// Header values by lower-case name (the last one wins).
    let headers: [String: String]
    /// Every header line in order, names in lower case: a name may repeat.
    let fields: [(name: String, value: String)]
    /// The body (`Content-Length` bytes).
    let body: [UInt8]

    /// Every value of the header `name` (lower case), in order.
    func values(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// The target before `?`.
    var path: Substring {
        guard let question = target.firstIndex(of: "?") else { return target[...] }
        return target[..<question]
    }

    /// The target after `?`, or empty.
    var query: Substring {
        guard let question = target.firstIndex(of: "?") else { return "" }
        return target[target.index(after: question)...]
    }
}

/// One HTTP response; the server adds `Content-Length` and `Connection: close`.
struct HTTPResponse: Sendable {
    /// The status code.
    var status: Int
    /// Extra headers in order.
    var headers: [(String, String)]
    /// The body.
    var body: [UInt8]

    /// An HTML page that must not be cached, framed or leak its URL as a referrer.
    static func html(
        _ status: Int, _ page: String, contentSecurityPolicy: String? = "default-src 'none'; style-src 'unsafe-inline'"
    ) -> HTTPResponse {
        var headers: [(String, String)] = [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"), ("X-Content-Type-Options", "nosniff"),
        ]
        if let contentSecurityPolicy { headers.append(("Content-Security-Policy", contentSecurityPolicy)) }
        return HTTPResponse(status: status, headers: headers, body: Array(page.utf8))
    }

    /// A `302 Found` to `location`.
    static func redirect(to location: String) -> HTTPResponse {
        HTTPResponse(
            status: 302,
            headers: [("Location", location), ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")],
            body: [])
    }

    /// A plain-text response.
    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "text/plain; charset=utf-8"), ("Cache-Control", "no-store")],
            body: Array(text.utf8))
    }

    /// The status line, headers and body.
    var serialized: [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 302: "Found"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 413: "Payload Too Large"
        case 421: "Misdirected Request"
        default: "Status"
        }
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 over POSIX sockets: one request per connection, each
/// connection on its own thread (reads never block the concurrency pool), then `Connection: close`.
///
/// Limits: request head 256 KiB, body 1 MiB, 10 s to send a request.
final class LoopbackHTTPServer: Sendable {
    typealias Handler = @Sendable (HTTPRequest) async -> HTTPResponse

    /// The bound port.
    let port: UInt16
    private let listener: Int32
    private let handler: Handler
    private let state = Mutex<(started: Bool, stopped: Bool)>((false, false))
    private let finished = OneShot<Void>()

    static let headLimit = 256 * 1024
    static let bodyLimit = 1024 * 1024

    /// Binds 127.0.0.1:`port` (0 = an ephemeral port) at once; serving starts with ``start()``.
    convenience init(port: UInt16 = 0, handler: @escaping Handler) throws(WaypointError) {
        self.init(listening: try POSIXSocket.listenLoopback(port: port), handler: handler)
    }

    /// Serves a socket already listening (see ``POSIXSocket/listenLoopback(port:)``).
    init(listening socket: (fd: Int32, port: UInt16), handler: @escaping Handler) {
        listener = socket.fd
        port = socket.port
        self.handler = handler
    }

    deinit {
        if state.withLock({ !$0.started && !$0.stopped }) { close(listener) }
    }

    /// Starts accepting connections on a dedicated thread.
    func start() {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started && !state.stopped
        }
        guard first else { return }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "signerkit-http-\(port)"
        thread.start()
    }

    /// Stops accepting (within about 100 ms); requests being served finish. Returns once the port is
    /// closed.
    func stop() async {
        let (wasRunning, neverStarted) = state.withLock { state -> (Bool, Bool) in
            defer { state.stopped = true }
            return (state.started && !state.stopped, !state.started && !state.stopped)
        }
        if wasRunning { await finished.value() }
        if neverStarted { close(listener) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        POSIXSocket.acceptConnections(on: listener, threadName: "signerkit-http-conn", isStopped: { isStopped }) {
            [self] client in
            serve(client)
        }
        close(listener)
        finished.fulfill(())
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        POSIXSocket.setTimeouts(client, seconds: 10)
        let response: HTTPResponse
        switch Self.readRequest(client) {
        case .reject(let problem): response = problem
        case .request(let request):
            let handler = self.handler
            response = BlockingAwait.run { await handler(request) }
        }
        POSIXSocket.write(client, response.serialized)
        shutdown(client, Int32(SHUT_WR))
    }

    /// A parsed request, or the response refusing it.
    enum ReadOutcome {
        case request(HTTPRequest)
        case reject(HTTPResponse)
    }

    /// Reads and parses one request, or the error response to send.
    static func readRequest(_ fd: Int32) -> ReadOutcome {
        let terminator: [UInt8] = [13, 10, 13, 10]
        guard
            let head = POSIXSocket.read(
                fd, limit: headLimit,
                isComplete: { data in
                    data.count >= 4 && data.firstRange(of: terminator) != nil
                }), let end = head.firstRange(of: terminator)
        else {
            return .reject(.text(400, "incomplete or oversized request"))
        }
        let headText = String(decoding: head[..<end.lowerBound], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            return .reject(.text(400, "malformed request line"))
        }
        var headers: [String: String] = [:]
        var fields: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .reject(.text(400, "malformed header")) }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = value
            fields.append((name, value))
        }
        var body = Array(head[end.upperBound...])
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else { return .reject(.text(400, "bad Content-Length")) }
            guard length <= bodyLimit else { return .reject(.text(413, "body too large")) }
            if body.count < length {
                guard
                    let rest = POSIXSocket.read(
                        fd, limit: length - body.count, isComplete: { $0.count >= length - body.count })
                else { return .reject(.text(413, "body too large")) }
                body += rest
            }
            guard body.count >= length else { return .reject(.text(400, "incomplete body")) }
            body = Array(body.prefix(length))
        } else {
            body = []
        }
        return .request(
            HTTPRequest(
                method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, fields: fields,
                body: body))
    }
}

/// HTML text escaping for the pages the listener and the simulator serve.
enum HTML {
    /// Escapes `& < > " '`.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    /// A small self-contained page.
    static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>\(escape(title))</title>
        <style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}
        pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:.75rem;border-radius:4px}
        dt{font-weight:600;margin-top:.5rem}button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.75rem}
        .ok{color:#176117}.bad{color:#a11}</style></head>
        <body>\(body)</body></html>
        """
    }
}
