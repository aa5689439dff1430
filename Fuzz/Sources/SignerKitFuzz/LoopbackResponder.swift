import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback TCP server that answers every connection with the bytes it was last given, then closes: the
/// HTTP server side of the `http-response` target, so libcurl and SignerKit read fuzzed bytes off a real socket.
final class LoopbackResponder: Sendable {
    /// The port it listens on (127.0.0.1).
    let port: UInt16
    private let listener: Int32
    private let answer = Mutex<[UInt8]>([])

    /// Starts listening and accepting on a thread of its own; `nil` when no socket can be had.
    init?() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            return nil
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// What the next connections are answered with.
    func setAnswer(_ bytes: [UInt8]) { answer.withLock { $0 = bytes } }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            readRequestHead(connection)
            let bytes = answer.withLock { $0 }
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes {
                    send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if n <= 0 { break }
                sent += n
            }
            shutdown(connection, Int32(SHUT_WR))
            close(connection)
        }
    }

    /// Reads until the end of the request head (a GET has no body), at most 64 KiB.
    private func readRequestHead(_ connection: Int32) {
        var seen: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while seen.count < 65_536 {
            let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return }
            seen += chunk[..<n]
            if seen.count >= 4, seen.suffix(4) == [0x0D, 0x0A, 0x0D, 0x0A] { return }
        }
    }
}
