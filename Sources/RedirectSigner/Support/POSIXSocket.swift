import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thin helpers over POSIX Unix-domain sockets for the deep-link transport (HTTP servers use
/// `SignerKitHTTPServer`). Every descriptor is close-on-exec, and writes never raise `SIGPIPE`.
enum POSIXSocket {
    /// `SOCK_STREAM` with close-on-exec where the platform allows it at creation.
    private static var streamType: Int32 {
        #if canImport(Glibc) || canImport(Musl)
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            SOCK_STREAM
        #endif
    }

    /// The `errno` text for `code`.
    static func reason(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }

    /// Marks `fd` close-on-exec and, on Apple platforms, free of `SIGPIPE`.
    private static func prepare(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
            var one: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// A `sockaddr_un` for `path`, or `nil` when the path does not fit.
    private static func unixAddress(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
            raw[bytes.count] = 0
        }
        #if canImport(Darwin)
            address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
        #endif
        return address
    }

    /// A Unix-domain socket listening at `path` (which must not exist), mode 0600.
    static func listenUnix(path: String) throws(WaypointError) -> Int32 {
        guard var address = unixAddress(path) else { throw .transport("socket path too long: \(path)") }
        let fd = socket(AF_UNIX, streamType, 0)
        guard fd >= 0 else { throw .transport("socket: \(reason(errno))") }
        prepare(fd)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .transport("bind \(path): \(reason(code))")
        }
        chmod(path, 0o600)
        guard listen(fd, 16) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw .transport("listen \(path): \(reason(code))")
        }
        return fd
    }

    /// A connected Unix-domain socket to `path`.
    static func connectUnix(path: String) throws(WaypointError) -> Int32 {
        guard var address = unixAddress(path) else { throw .transport("socket path too long: \(path)") }
        let fd = socket(AF_UNIX, streamType, 0)
        guard fd >= 0 else { throw .transport("socket: \(reason(errno))") }
        prepare(fd)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw .transport("connect \(path): \(reason(code))")
        }
        return fd
    }

    /// The user id of the process at the other end of a Unix-domain socket.
    static func peerUserID(_ fd: Int32) -> uid_t? {
        #if canImport(Glibc) || canImport(Musl)
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; } (glibc hides it without _GNU_SOURCE).
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
            var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
            return uid_t(credentials.uid)
        #else
            var uid: uid_t = 0
            var gid: gid_t = 0
            guard getpeereid(fd, &uid, &gid) == 0 else { return nil }
            return uid
        #endif
    }

    /// Waits until `fd` is readable; `false` on timeout or error.
    static func waitReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, milliseconds)
        return ready > 0
    }

    /// Accepts one connection (close-on-exec), or `nil`.
    /// Accepts connections on `listener` until `isStopped()` turns true, serving each on a thread of its own.
    static func acceptConnections(
        on listener: Int32, threadName: String, isStopped: () -> Bool, serve: @escaping @Sendable (Int32) -> Void
    ) {
        while !isStopped() {
            guard waitReadable(listener, milliseconds: 100), !isStopped() else { continue }
            guard let client = accept(listener) else { continue }
            let thread = Thread { serve(client) }
            thread.name = threadName
            thread.start()
        }
    }

    static func accept(_ fd: Int32) -> Int32? {
        let client = Foundation.accept(fd, nil, nil)
        guard client >= 0 else { return nil }
        prepare(client)
        return client
    }

    /// Sets receive and send timeouts.
    static func setTimeouts(_ fd: Int32, seconds: Int) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads up to `limit` bytes until `isComplete` says the message is whole, EOF or timeout.
    static func read(_ fd: Int32, limit: Int, isComplete: ([UInt8]) -> Bool) -> [UInt8]? {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while !isComplete(data) {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                data.append(contentsOf: chunk[0..<count])
                guard data.count <= limit else { return nil }
            } else if count < 0, errno == EINTR {
                continue
            } else {
                break
            }
        }
        return data
    }

    /// Writes every byte; `false` on error.
    @discardableResult
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        #if canImport(Glibc) || canImport(Musl)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                raw.baseAddress.map { send(fd, $0 + offset, raw.count - offset, flags) } ?? -1
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }
}
