import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A blocking TCP client for exact bytes on the wire (keep-alive, malformed heads); runs off the pool.
public final class RawClient: @unchecked Sendable {
    private let fd: Int32

    /// Connects from `source` (any address of 127.0.0.0/8, all loopback on Linux) to 127.0.0.1:`port`; a read
    /// waits up to `receiveTimeout` for bytes.
    ///
    /// The descriptor becomes the client's only once connected: a class whose initializer throws after
    /// every property is set still runs its `deinit`, so closing it here and there would close the number
    /// twice, and the second close could hit a descriptor another thread opened meanwhile (a connection of
    /// a server in a parallel test, which libmicrohttpd then aborts on).
    public init(port: UInt16, from source: String = "127.0.0.1", receiveTimeout: Duration = .seconds(10)) throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) == 0 }
        }
        let connected =
            bound
            && withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, size) == 0 }
            }
        guard connected else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        let (seconds, attoseconds) = receiveTimeout.components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        fd = descriptor
    }

    deinit { close(fd) }

    /// Sends `text`; false when the connection failed first.
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends `bytes`; false when the connection failed first.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Whether the server has neither answered nor closed the connection, looked at without waiting.
    public var isWaiting: Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// Reads one response: head, then `Content-Length` bytes. `nil` when the server closed first.
    public func readResponse() -> (status: Int, head: String, body: String)? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        func fill() -> Bool {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer += chunk[0..<count]
            return true
        }
        var end: Range<Int>?
        while end == nil {
            guard fill() else { return nil }
            end = buffer.firstRange(of: [13, 10, 13, 10])
        }
        guard let end else { return nil }
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count - end.upperBound < length { guard fill() else { return nil } }
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = String(decoding: buffer[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
        return (status, head, body)
    }

    /// Whether the server closed the connection (a read returns 0 within the socket timeout).
    public func serverClosed() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    /// Runs blocking client work on a plain thread.
    public static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }
}
