import Foundation
import Secp256k1

/// Files that hold secrets (`--key-file`, `--password-file`, `--pin-file`, `--api-key-file`):
/// opened so that they cannot block, leak or be swapped unnoticed.
///
/// - The file must be a regular file: a FIFO, socket, device or directory is refused without
///   blocking (it is opened with `O_NONBLOCK` and checked with `fstat` before any read).
/// - It must not be a symbolic link (`O_NOFOLLOW`) and must not be readable, writable or
///   executable by group or others (mode `0600` or stricter), like `ssh` insists for private keys.
///   `--allow-insecure-permissions` waives these two checks, never the first.
/// - It is read straight into secure memory.
///
/// Errors name the file and, for a permission problem, its mode: `key.txt: mode 0644 lets group or
/// others read it; chmod 600 key.txt (or pass --allow-insecure-permissions)`.
enum SecretFile {
    /// `--allow-insecure-permissions`.
    static let allowInsecureFlag = FlagSpec.flag(
        "--allow-insecure-permissions",
        help: "accept key, password, PIN and API-key files that are symlinks or group/other-accessible")

    /// Whether the invocation waives the symlink and mode checks.
    static func allowsInsecure(_ options: ParsedOptions) -> Bool { options.has(allowInsecureFlag.name) }

    /// Opens `path` for reading a secret after the checks above; the caller closes the descriptor.
    ///
    /// - Throws: 65 naming the file: `no such file`, `is a symbolic link`, `is a FIFO, not a regular
    ///   file`, `mode 0644 lets group or others read it …`.
    static func open(_ path: String, allowInsecure: Bool) throws(CommandFailure) -> Int32 {
        let label = TextSafety.displayArgument(path)
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        if !allowInsecure { flags |= O_NOFOLLOW }
        let descriptor = Foundation.open(path, flags)
        guard descriptor >= 0 else {
            let code = errno
            if code == ELOOP, !allowInsecure {
                throw .invalidInput(
                    "\(label): is a symbolic link; name the file itself (or pass \(allowInsecureFlag.name))")
            }
            throw FileAccess.failure(path, errno: code)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw FileAccess.failure(path, errno: code)
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            close(descriptor)
            throw .invalidInput("\(label): is \(typeName(type)), not a regular file")
        }
        let permissions = status.st_mode & 0o7777
        if !allowInsecure, permissions & 0o077 != 0 {
            close(descriptor)
            let mode = "0" + String(permissions, radix: 8)
            let who = permissions & 0o044 != 0 ? "lets group or others read it" : "gives group or others access"
            throw .invalidInput(
                "\(label): mode \(mode) \(who); chmod 600 \(label) (or pass \(allowInsecureFlag.name))")
        }
        // Reads block again (a regular file never waits, but keep the usual semantics).
        let current = fcntl(descriptor, F_GETFL)
        if current >= 0 { _ = fcntl(descriptor, F_SETFL, current & ~O_NONBLOCK) }
        return descriptor
    }

    /// Reads the secret file at `path` into secure memory: up to `maximumSize + 1` bytes, so a
    /// caller sees `length > maximumSize` for an oversized file. The
    /// caller wipes `contents`.
    static func read(_ path: String, maximumSize: Int, allowInsecure: Bool) throws(CommandFailure) -> (
        contents: SecureBytes, length: Int
    ) {
        let descriptor = try open(path, allowInsecure: allowInsecure)
        defer { close(descriptor) }
        return try FileAccess.readSecret(descriptor: descriptor, path: path, maximumSize: maximumSize)
    }

    /// A password, PIN or API key file: the whole file without exactly one trailing newline (LF or
    /// CR LF); nothing else is removed, so the secret is what the file holds.
    ///
    /// - Returns: the secret in secure memory and whether it begins or ends with whitespace (so a
    ///   refusal can say so).
    /// - Throws: as ``read(_:maximumSize:allowInsecure:)``; 65 `<path>: larger than N bytes` or
    ///   `<path>: the <what> is empty`.
    static func readLine(_ path: String, what: String, maximumSize: Int, allowInsecure: Bool) throws(CommandFailure)
        -> (secret: SecureBytes, hasSurroundingWhitespace: Bool)
    {
        let label = TextSafety.displayArgument(path)
        let (contents, length) = try read(path, maximumSize: maximumSize, allowInsecure: allowInsecure)
        defer { contents.wipe() }
        guard length <= maximumSize else { throw .invalidInput("\(label): larger than \(maximumSize) bytes") }
        let (end, whitespace): (Int, Bool) = contents.withUnsafeBytes { bytes in
            let end = secretLength(UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
            guard end > 0 else { return (0, false) }
            return (end, isWhitespace(bytes[0]) || isWhitespace(bytes[end - 1]))
        }
        guard end > 0 else { throw .invalidInput("\(label): the \(what) is empty") }
        let secret = SecureBytes(count: end) { (out: UnsafeMutableRawBufferPointer) in
            contents.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<end])) }
        }
        return (secret, whitespace)
    }

    /// The length of `bytes` without one trailing `\n` or `\r\n`.
    static func secretLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        var end = bytes.count
        if end > 0, bytes[end - 1] == 0x0A {
            end -= 1
            if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
        }
        return end
    }

    /// ASCII space, tab, LF, VT, FF, CR.
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// Whether a secret held in a Swift string (an environment variable) begins or ends with
    /// whitespace.
    static func hasSurroundingWhitespace(_ text: String) -> Bool {
        guard let first = text.utf8.first, let last = text.utf8.last else { return false }
        return isWhitespace(first) || isWhitespace(last)
    }

    /// `a FIFO`, `a directory`, … for a file type from `st_mode`.
    private static func typeName(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        default: "of an unknown file type"
        }
    }
}
