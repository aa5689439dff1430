import Secp256k1
import SignerKitSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reads secret files (mnemonic, passphrase) under the project's secret-file rules: a regular
/// file (a FIFO, device or directory is refused without blocking), not a symbolic link
/// (`O_NOFOLLOW`), not accessible by group or others (mode 0600 or stricter); read straight into
/// secure memory.
enum SecretFileReader {
    /// Reads at most `maximumSize` bytes of the file at `path` into secure memory.
    ///
    /// - Returns: the contents (the caller wipes them) and their length.
    /// - Throws: ``SoftwareKeyError/insecureFile(path:reason:)`` or
    ///   ``SoftwareKeyError/unreadableFile(path:reason:)`` (also for a file above `maximumSize`).
    static func read(_ path: String, maximumSize: Int) throws(SoftwareKeyError) -> (SecureBytes, Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP { throw .insecureFile(path: path, reason: "is a symbolic link; name the file itself") }
            throw .unreadableFile(path: path, reason: String(cString: strerror(code)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .insecureFile(path: path, reason: "is not a regular file")
        }
        let permissions = status.st_mode & 0o7777
        guard permissions & 0o077 == 0 else {
            throw .insecureFile(
                path: path,
                reason: "mode 0\(String(permissions, radix: 8)) gives group or others access; chmod 600 the file")
        }
        var length = 0
        var failure: String?
        let contents = SecureBytes(count: maximumSize + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            switch POSIXIO.fill(buffer, from: descriptor) {
            case .success(let count): length = count
            case .failure(let error): failure = error.description
            }
        }
        if let failure {
            contents.wipe()
            throw .unreadableFile(path: path, reason: failure)
        }
        guard length <= maximumSize else {
            contents.wipe()
            throw .unreadableFile(path: path, reason: "larger than \(maximumSize) bytes")
        }
        return (contents, length)
    }

    /// The length of `bytes` without one trailing `\n` or `\r\n` (a passphrase file's line end).
    static func lineLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        var end = bytes.count
        if end > 0, bytes[end - 1] == 0x0A {
            end -= 1
            if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
        }
        return end
    }
}
