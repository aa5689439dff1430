import Foundation
import SignerKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why the loopback server could not start.
public struct LoopbackServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failing call and its `errno` text.
    public let description: String
}

/// One HTTP/1.1 request as the loopback server read it.
public struct LoopbackHTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path, still percent-encoded, without the query.
    public var path: String
    /// The query parameters in order, percent-decoded.
    public var query: [(name: String, value: String)]
    /// Header fields with lower-cased names, in order.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// The first header called `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name == lower }?.value
    }

    /// The first query parameter called `name`.
    public func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
}

/// An HTTP answer, or an instruction to drop the connection without one.
public struct LoopbackHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Extra header fields (`Content-Length` and `Connection` are added).
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]
    /// Close the connection without answering (a transport error for the client).
    public var dropConnection: Bool

    /// An answer.
    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], dropConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.dropConnection = dropConnection
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(
            status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8))
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 over POSIX sockets, for the local Pay service and tests.
///
/// One thread accepts; each connection is served on its own thread, one request per connection
/// (`Connection: close`); the handler runs as a Swift task. Bodies need `Content-Length` (no chunked
/// uploads); requests are limited to 1 MiB.
public final class LoopbackHTTPServer: Sendable {
    /// Handles one request.
    public typealias Handler = @Sendable (LoopbackHTTPRequest) async -> LoopbackHTTPResponse

    /// The port it listens on.
    public let port: UInt16
    /// `http://127.0.0.1:<port>`.
    public let baseURL: URL

    private let listener: Int32
    private let stopped = Atomic<Bool>(false)
    private let handler: Handler

    static let maximumRequestSize = 1 << 20

    #if canImport(Glibc)
        /// No SIGPIPE when the client has gone away.
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
        static let sendFlags: Int32 = 0
    #endif

    /// Binds 127.0.0.1:`port` (0 picks a free port), listens and starts accepting.
    public init(port: UInt16 = 0, handler: @escaping Handler) throws(LoopbackServerError) {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Self.failure("socket") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else {
            let error = Self.failure("bind 127.0.0.1:\(port)")
            close(fd)
            throw error
        }
        guard listen(fd, 128) == 0 else {
            let error = Self.failure("listen")
            close(fd)
            throw error
        }
        self.listener = fd
        self.port = UInt16(bigEndian: address.sin_port)
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = Int(self.port)
        guard let url = components.url else { preconditionFailure("cannot form the loopback URL") }
        self.baseURL = url
        self.handler = handler
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "LoopbackHTTPServer.accept"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting (idempotent); connections in progress finish. The server keeps running until
    /// this is called (its accept thread holds it).
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Wakes the blocked accept(); the accept thread closes the descriptor, so its number cannot be
        // reused under a pending accept().
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private static func failure(_ call: String) -> LoopbackServerError {
        LoopbackServerError(description: "\(call): \(String(cString: strerror(errno)))")
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !stopped.load(ordering: .acquiring) {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if stopped.load(ordering: .acquiring) { return }
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: usleep(10_000)
                default: return
                }
                continue
            }
            if stopped.load(ordering: .acquiring) {
                close(connection)
                return
            }
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            #if !canImport(Glibc)
                var yes: Int32 = 1
                _ = setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let handler = self.handler
            let thread = Thread { Self.serve(connection, handler: handler) }
            thread.name = "LoopbackHTTPServer.connection"
            thread.start()
        }
    }

    /// Reads one request, runs the handler, writes the answer, closes.
    private static func serve(_ connection: Int32, handler: @escaping Handler) {
        defer { close(connection) }
        guard let request = readRequest(connection) else {
            write(
                connection,
                LoopbackHTTPResponse.json(400, #"{"code":"invalid_params","message":"malformed HTTP request"}"#))
            return
        }
        let response = BlockingAwait.run { await handler(request) }
        if response.dropConnection {
            // An abortive close (RST), so the client sees a failed exchange rather than an empty answer.
            var abortive = linger()
            abortive.l_onoff = 1
            abortive.l_linger = 0
            _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<linger>.size))
            return
        }
        write(connection, response)
    }

    private static func readRequest(_ connection: Int32) -> LoopbackHTTPRequest? {
        var buffer: [UInt8] = []
        var headerEnd: Int?
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while headerEnd == nil {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
            headerEnd = find([13, 10, 13, 10], in: buffer)
            if buffer.count > maximumRequestSize { return nil }
        }
        guard let headerEnd else { return nil }
        let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            headers.append(
                (
                    String(line[..<colon]).lowercased(),
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                ))
        }
        let length = headers.first { $0.name == "content-length" }.flatMap { Int($0.value) } ?? 0
        guard length >= 0, length <= maximumRequestSize else { return nil }
        var body = Array(buffer[(headerEnd + 4)...])
        while body.count < length {
            let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            body.append(contentsOf: chunk[0..<count])
        }
        if body.count > length { body.removeLast(body.count - length) }
        let target = String(requestLine[1])
        var path = target
        var query: [(name: String, value: String)] = []
        if let question = target.firstIndex(of: "?") {
            path = String(target[..<question])
            query = PaymentLink.parameters(target[target.index(after: question)...])
        }
        return LoopbackHTTPRequest(
            method: String(requestLine[0]), path: path, query: query, headers: headers, body: body)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return i }
        }
        return nil
    }

    private static func write(_ connection: Int32, _ response: LoopbackHTTPResponse) {
        var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + response.body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, sendFlags) }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else {
                return
            }
        }
        shutdown(connection, Int32(SHUT_WR))
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 451: "Unavailable For Legal Reasons"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
