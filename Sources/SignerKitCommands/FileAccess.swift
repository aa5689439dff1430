import Foundation
import Secp256k1
import SignerKitSupport

/// Reading and creating files with `errno`-precise, one-line error messages
/// (`<path>: no such file`, `<path>: permission denied`, …).
enum FileAccess {
    /// Reads the whole file at `path`.
    ///
    /// - Throws: 65 `<path>: no such file` (and similar) when it cannot be opened or read.
    static func readAll(_ path: String) throws(CommandFailure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, errno: errno) }
        defer { close(descriptor) }
        switch POSIXIO.readToEnd(descriptor) {
        case .success(let bytes): return bytes
        case .failure(let error): throw failure(path, errno: error.code)
        }
    }

    /// Opens `path` for reading: the descriptor, which the caller closes.
    static func openForReading(_ path: String) throws(CommandFailure) -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, errno: errno) }
        return descriptor
    }

    /// Creates `path`, which must not exist, with permissions `mode` (exactly, regardless of the
    /// umask), and returns the open descriptor, which the caller closes.
    static func createExclusive(_ path: String, mode: mode_t) throws(CommandFailure) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure(path, errno: errno) }
        guard fchmod(descriptor, mode) == 0 else {
            let error = errno
            close(descriptor)
            unlink(path)
            throw failure(path, errno: error)
        }
        return descriptor
    }

    /// Writes the whole buffer; false on error.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        if case .success = POSIXIO.writeAll(bytes, to: descriptor) { return true }
        return false
    }

    /// `<path>: <reason>` for an `errno`, the path shown through ``TextSafety/displayArgument(_:)``.
    static func failure(_ path: String, errno code: Int32) -> CommandFailure {
        .invalidInput("\(TextSafety.displayArgument(path)): \(reason(errno: code))")
    }

    /// A short lower-case reason for common `errno` values.
    static func reason(errno code: Int32) -> String {
        switch code {
        case ENOENT, ENOTDIR: "no such file"
        case EACCES, EPERM: "permission denied"
        case EISDIR: "is a directory"
        case EEXIST: "already exists"
        case ENAMETOOLONG: "file name too long"
        default: String(cString: strerror(code)).lowercased()
        }
    }
}

extension FileAccess {
    /// Reads the open file `descriptor` (named `path` in errors) straight into secure memory: up to
    /// `maximumSize + 1` bytes, so a caller sees `length > maximumSize` for an oversized file. The
    /// caller wipes `contents` when done and closes the descriptor. Secret files are opened by
    /// ``SecretFile``.
    static func readSecret(descriptor: Int32, path: String, maximumSize: Int) throws(CommandFailure) -> (
        contents: SecureBytes, length: Int
    ) {
        var length = 0
        var readError: Int32 = 0
        let contents = SecureBytes(count: maximumSize + 1) { (buffer: UnsafeMutableRawBufferPointer) in
            switch POSIXIO.fill(buffer, from: descriptor) {
            case .success(let count): length = count
            case .failure(let error): readError = error.code
            }
        }
        if readError != 0 {
            contents.wipe()
            throw failure(path, errno: readError)
        }
        return (contents, length)
    }
}
