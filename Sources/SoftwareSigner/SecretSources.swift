import Secp256k1
import SignerKitSupport

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reading key text from files and the environment, and decoding it, without the secret ever
/// passing through an ordinary Swift `String` or array.
enum SecretSources {
    /// Longest key file read: a hex key with generous whitespace fits many times over.
    static let keyFileLimit = 4096
    /// Longest keystore file read.
    static let keystoreFileLimit = 1 << 20

    /// Decodes 64 hex digits (optional `0x`/`0X`, surrounding ASCII whitespace ignored) into a
    /// fresh secure buffer.
    static func decodeKeyHex(_ text: UnsafeRawBufferPointer) throws(KeyError) -> SecureBytes {
        var start = 0
        var end = text.count
        while start < end, isWhitespace(text[start]) { start += 1 }
        while end > start, isWhitespace(text[end - 1]) { end -= 1 }
        if end - start >= 2, text[start] == 0x30, text[start + 1] == 0x78 || text[start + 1] == 0x58 {
            start += 2
        }
        guard end - start == 64 else { throw .invalidHex }
        return try SecureBytes(count: 32) { (out: UnsafeMutableRawBufferPointer) throws(KeyError) in
            for k in 0..<32 {
                guard let high = nibble(text[start + 2 * k]), let low = nibble(text[start + 2 * k + 1]) else {
                    throw .invalidHex
                }
                out[k] = high << 4 | low
            }
        }
    }

    /// Decodes key text given as a Swift string, reading its UTF-8 storage in place.
    static func decodeKeyHex(_ text: String) throws(KeyError) -> SecureBytes {
        var text = text
        let result: Result<SecureBytes, KeyError> = text.withUTF8 { utf8 in
            Result { () throws(KeyError) in try decodeKeyHex(UnsafeRawBufferPointer(utf8)) }
        }
        return try result.get()
    }

    /// Reads the key file at `path` into secure memory and decodes it.
    static func readKeyFile(_ path: String) throws(SoftwareKeyError) -> SecureBytes {
        var length = 0
        let contents = try SecureBytes(count: keyFileLimit + 1) {
            (buffer: UnsafeMutableRawBufferPointer) throws(SoftwareKeyError) in
            length = try readFile(path, into: buffer)
        }
        defer { contents.wipe() }
        guard length <= keyFileLimit else {
            throw .invalidKey(source: .file(path: path), reason: .invalidHex)
        }
        let result: Result<SecureBytes, KeyError> = contents.withUnsafeBytes { bytes in
            Result { () throws(KeyError) in try decodeKeyHex(UnsafeRawBufferPointer(rebasing: bytes[0..<length])) }
        }
        do { return try result.get() } catch { throw .invalidKey(source: .file(path: path), reason: error) }
    }

    /// Reads the environment variable `name` in place (no copy) and decodes it.
    static func readKeyVariable(_ name: String) throws(SoftwareKeyError) -> SecureBytes {
        guard let value = getenv(name) else { throw .environmentVariableNotSet(name: name) }
        let bytes = UnsafeRawBufferPointer(start: value, count: strlen(value))
        do { return try decodeKeyHex(bytes) } catch {
            throw .invalidKey(source: .environmentVariable(name: name), reason: error)
        }
    }

    /// Reads a keystore file (public data: ordinary memory is fine).
    static func readKeystoreFile(_ path: String) throws(SoftwareKeyError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: keystoreFileLimit + 1)
        let result: Result<Int, SoftwareKeyError> = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SoftwareKeyError) in try readFile(path, into: buffer) }
        }
        let length = try result.get()
        guard length <= keystoreFileLimit else {
            throw .unreadableFile(path: path, reason: "larger than \(keystoreFileLimit) bytes")
        }
        bytes.removeSubrange(length...)
        return bytes
    }

    /// Reads at most `buffer.count` bytes of the file into `buffer`; returns how many were read.
    private static func readFile(_ path: String, into buffer: UnsafeMutableRawBufferPointer) throws(SoftwareKeyError)
        -> Int
    {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadableFile(path: path, reason: systemError()) }
        defer { close(descriptor) }
        switch POSIXIO.fill(buffer, from: descriptor) {
        case .success(let count): return count
        case .failure(let error): throw .unreadableFile(path: path, reason: error.description)
        }
    }

    /// The text for the current `errno`.
    private static func systemError() -> String {
        guard let text = strerror(errno) else { return "error \(errno)" }
        return String(cString: text)
    }

    /// ASCII space, tab, LF, VT, FF, CR.
    private static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || (0x09...0x0d).contains(c)
    }

    /// Value of one ASCII hex digit.
    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c &- 0x30
        case 0x61...0x66: c &- 0x57
        case 0x41...0x46: c &- 0x37
        default: nil
        }
    }
}
