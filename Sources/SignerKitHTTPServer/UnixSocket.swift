import SignerKitSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Unix-domain stream sockets for ``HTTPServer/init(unixSocketPath:limits:handler:)``: binding the
/// listener (mode 0600, close-on-exec), probing whether a server already answers on a path, and the
/// user id of a connection's peer. libmicrohttpd accepts and serves; nothing here reads or writes.
package enum UnixSocket {
    /// Binds and listens on `path` (which must not exist) with mode 0600; returns the descriptor.
    static func bindAndListen(path: String, backlog: Int32) throws(HTTPServerError) -> Int32 {
        var address = try self.address(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HTTPServerError(description: "socket: \(SystemError.current)") }
        // The file is created by bind. On Linux its mode is the socket's own (set here) less the umask, so it
        // is 0600 from the start; the process-wide umask is never touched (other threads of the host app
        // create files meanwhile). Elsewhere it is narrowed right after bind; peers are checked by user id
        // anyway (``peerUserID(_:)``).
        #if os(Linux)
            guard fchmod(descriptor, 0o600) == 0 else {
                let error = SystemError.current
                close(descriptor)
                throw HTTPServerError(description: "fchmod: \(error)")
            }
        #endif
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let error = SystemError.current
            close(descriptor)
            throw HTTPServerError(description: "bind \(path.prefix(200)): \(error)")
        }
        #if !os(Linux)
            guard chmod(path, 0o600) == 0 else {
                let error = SystemError.current
                close(descriptor)
                unlink(path)
                throw HTTPServerError(description: "chmod \(path.prefix(200)): \(error)")
            }
        #endif
        guard listen(descriptor, backlog) == 0 else {
            let error = SystemError.current
            close(descriptor)
            unlink(path)
            throw HTTPServerError(description: "listen \(path.prefix(200)): \(error)")
        }
        return descriptor
    }

    /// True when something accepts connections on `path` (a live server, not a stale socket file).
    package static func isAccepting(path: String) -> Bool {
        guard var address = try? self.address(path) else { return false }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return connected == 0
    }

    /// The effective user id of the process at the other end of `descriptor`, or `nil`.
    static func peerUserID(_ descriptor: Int32) -> UInt32? {
        #if canImport(Glibc)
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (glibc hides it without _GNU_SOURCE).
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
            var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
            return credentials.uid
        #else
            var user: uid_t = 0
            var group: gid_t = 0
            guard getpeereid(descriptor, &user, &group) == 0 else { return nil }
            return user
        #endif
    }

    private static func address(_ path: String) throws(HTTPServerError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.hasPrefix("/"), bytes.count < capacity, !bytes.contains(0) else {
            throw HTTPServerError(description: "socket path must be absolute and under \(capacity) bytes")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }
}
